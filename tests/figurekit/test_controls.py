"""figurekit.controls: each kind of control reads as link text and back, and refuses what it
cannot hold with a message naming the value and the control."""

import math

import pytest

from figurekit.controls import BadLink, Choice, Clicks, Number, Slider, Switch, Text, slug


def round_trip(control, value):
    text = control.text(value)
    assert control.parse(text) == value
    return text


def test_numbers_read_as_themselves():
    assert round_trip(Slider("t", "Context length T", start=1, end=4096), 4096) == "4096"
    assert round_trip(Slider("f", "Factor", start=0.0, end=1.0, step=0.01), 0.35) == "0.35"
    assert round_trip(Number("x", "x", whole=True), -3) == "-3"
    assert round_trip(Number("x", "x"), 1e-05) == "1e-05"
    assert round_trip(Number("x", "x"), None) == ""


def test_choices_read_as_labels_slugified_or_as_their_numbers():
    fills = Choice("fill", "Fill", {"−∞ (correct)": "-inf", "0 (wrong)": "zero"})
    assert round_trip(fills, "zero") == "0-wrong"
    widths = Choice("w", "Width", {"4,096": 4096, "8,192": 8192}, style="slider")
    assert round_trip(widths, 8192) == "8192"
    tokens = Choice("q", "Query token", ["Your", "journey"])
    assert tokens.parse("Your") == "Your" and tokens.text("Your") == "your"


def test_switches_and_clicks():
    assert round_trip(Switch("s", "Scale"), True) == "true"
    resample = Clicks("seed", "Resample", first=123)
    assert resample.text(125) == "2" and resample.parse("2") == 125
    assert round_trip(Text("row", "Row"), "1, 2") == "1, 2"


@pytest.mark.parametrize(
    "control, text, named",
    [
        (Slider("n", "Layers", start=1, end=48), "49", "'49' is outside 1 to 48 for 'layers'"),
        (Slider("n", "Layers", start=1, end=48), "2.5", "'2.5' is not an integer for 'layers'"),
        (Slider("f", "F", start=0.0, end=1.0, step=0.01), "0.333", "is not a step of 0.01"),
        (Switch("s", "Scale"), "yes", "'yes' is not true or false for 'scale'"),
        (Clicks("seed", "Resample"), "-1", "'resample' cannot be clicked -1 times"),
        (Choice("c", "Card", {"24": 24, "40": 40}), "81", "'81' is not one of 24, 40 for 'card'"),
        (Number("x", "x", end=10.0), "11", "'11' is outside -inf to 10 for 'x'"),
        (Number("x", "x"), "x" * 500, "is not a number for 'x'"),
    ],
)
def test_a_value_a_control_cannot_hold_is_named(control, text, named):
    with pytest.raises(BadLink) as refused:
        control.parse(text)
    assert named in str(refused.value)
    assert len(str(refused.value)) < 120


def test_a_control_inside_a_grid_field_sets_its_own_place():
    from typing import NamedTuple

    class State(NamedTuple):
        grid: tuple = ((1.0, 2.0), (3.0, 4.0))

    box = Number("grid", "b x2", at=(1, 0))
    assert box.get(State()) == 3.0
    assert box.put(State(), math.pi).grid == ((1.0, 2.0), (math.pi, 4.0))


def test_keys_are_names_slugified():
    assert slug("Your x₁") == "your-x1"
    assert Slider("t", "Context length T").key == "context-length-t"


def test_a_choice_is_drawn_one_of_the_known_ways():
    with pytest.raises(ValueError, match="one of buttons, labelled, radio, menu, slider"):
        Choice("c", "C", ["a"], style="dial")
