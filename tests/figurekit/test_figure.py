"""figurekit.figure: a figure answers each change with what changed, follows links, and keeps
its last drawing when it cannot draw a state."""

import types
from typing import NamedTuple

import pytest

from figurekit.controls import Action, Choice, Slider
from figurekit.drawing import html, message_html
from figurekit.figure import Figure
from figures import masking


class State(NamedTuple):
    n: int = 2
    preset: str = "small"


PRESETS = {"small": 2, "large": 8}


def draw(state: State):
    if state.n == 5:
        raise ValueError("Five cannot be drawn.")
    return {
        "bars": {"data": {"x": list(range(state.n)), "label": ["a"] * state.n}},
        "title": {"text": f"n = {state.n}"},
        "range": {"end": 10},
        "readout": html(f"<p>{state.n}</p>"),
    }


def toy() -> Figure:
    mod = types.ModuleType("toy")
    mod.State, mod.DEFAULT, mod.draw = State, State(), draw
    mod.CONTROLS = (
        Slider("n", "N", start=1, end=9),
        Choice("preset", "Preset", list(PRESETS), style="buttons"),
    )
    mod.ACTIONS = (Action("One more", lambda s: s._replace(n=s.n + 1)),)
    mod.react = lambda s, key: s._replace(n=PRESETS[s.preset]) if key == "preset" else s
    return Figure("toy", mod)


def test_the_first_drawing_has_every_handle_and_control():
    drawing = toy().draw()
    assert set(drawing) == {"control:n", "control:preset", "bars", "title", "range", "readout",
                            "message"}  # fmt: skip
    assert drawing["message"] == html("")


def test_a_change_sends_only_what_changed():
    figure = toy()
    figure.draw()
    changed = figure.change("n", 3)
    assert changed["title"] == {"text": "n = 3"}
    assert "range" not in changed and "message" not in changed
    assert changed["control:n"] == {"value": 3}
    assert figure.change("n", 3) == {}


def test_only_the_columns_that_changed_are_sent():
    figure = toy()
    figure.draw()
    figure.change("n", 3)
    mod = figure.mod
    mod.draw = lambda s: {"bars": {"data": {"x": [0, 1, 2], "label": ["b"] * 3}}}
    assert figure.change("n", 4) == {
        "control:n": {"value": 4},
        "bars": {"data": {"label": ["b", "b", "b"]}},
    }


def test_a_preset_moves_the_other_controls_and_an_action_moves_the_state():
    figure = toy()
    figure.draw()
    changed = figure.change("preset", "large")
    assert changed["control:n"] == {"value": 8} and figure.state == State(8, "large")
    assert figure.act("one-more")["control:n"] == {"value": 9}


def test_a_state_that_cannot_be_drawn_keeps_the_last_drawing_and_says_why():
    figure = toy()
    figure.draw()
    changed = figure.change("n", 5)
    assert changed == {
        "control:n": {"value": 5},
        "message": html(message_html("Five cannot be drawn.")),
    }
    assert figure.refused == "Five cannot be drawn." and figure.shown == State(2)
    assert figure.change("n", 6)["message"] == html("")


def test_links_round_trip_and_a_bad_one_gives_the_defaults_and_a_note():
    figure = toy()
    figure.draw()
    figure.change("n", 7)
    assert figure.link() == {"n": "7"}
    other = toy()
    other.draw()
    assert other.follow({"n": "7"})[1] == "" and other.state == State(7)
    for params, named in [
        ({"m": "1"}, "no control 'm' on this figure"),
        ({"n": "10"}, "'10' is outside 1 to 9 for 'n'"),
        ({"n": "5"}, "the figure cannot show it: five cannot be drawn"),
    ]:
        _, note = other.follow(params)
        assert note.startswith("This link's view could not be restored (") and named in note
        assert other.state == State() and other.link() == {}


def test_two_controls_with_one_key_are_refused():
    mod = types.ModuleType("twice")
    mod.State, mod.DEFAULT, mod.draw = State, State(), draw
    mod.CONTROLS = (Slider("n", "T", start=1, end=9), Slider("n", "t", start=1, end=9))
    with pytest.raises(ValueError, match="both link as 't'; rename one"):
        Figure("twice", mod)


def test_a_typed_row_that_cannot_be_drawn_leaves_the_last_good_one():
    figure = Figure("masking", masking)
    figure.draw()
    changed = figure.change("scores-to-softmax", "1, x")
    assert "bars" not in changed and "&#x27;x&#x27; is not a number" in changed["message"]["object"]
    assert figure.shown.row_text == masking.DEFAULT.row_text
