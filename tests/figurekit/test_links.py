"""Links to a figure's view, on the real figures: every figure's view goes into URL parameters
and comes back with the readouts ``readouts(State(...))`` gives; a bad link gives the defaults
and a one-line note naming what was wrong (figurekit.figure.Figure.link and follow)."""

import pytest

import figures
from attention.fixtures import PRESETS, TOKENS, book_inputs, preset_query
from figurekit.controls import Choice, slug
from figures import cost, depth, dropout, heads, normalisations, three_steps
from tests.figures.probe import Driven, driven, messages, readouts, widgets


def expected(module, state) -> dict[str, str]:
    return {key: text for key, _, text in module.readouts(state)}


def follow(view: Driven, params: dict[str, str]) -> str:
    """Follow a link on a driven figure, as the worker does: its note, '' if it was shown."""
    drawing, note = view.figure.follow(params)
    view.take(drawing)
    return note


def round_trip(module, change) -> Driven:
    """Change a figure's controls, link its view, and follow the link on a fresh copy."""
    source = driven(module)
    change(widgets(source))
    params = source.figure.link()
    assert params, "the change made no difference to the view"
    copy = driven(module)
    assert follow(copy, params) == ""
    assert copy.figure.link() == params
    assert readouts(copy) == readouts(source)
    return copy


def test_every_figure_has_controls_with_their_own_keys():
    for figure_id in figures.REGISTRY:
        view = driven(figures.module(figure_id))
        assert view.figure.controls, f"{figure_id} has nothing to link"
        assert view.figure.link() == {}, f"{figure_id} differs from its defaults when drawn"
        for key, control in view.figure.controls.items():
            assert key == slug(control.name)
            assert control.text(control.get(view.figure.default)), f"{figure_id}.{key} no text"


def test_slider_round_trip_gives_cpythons_readouts():
    def change(c):
        c["Context length T"].value = 4096
        c["Bytes per score"].value = 4

    view = round_trip(cost, change)
    assert view.figure.link() == {"context-length-t": "4096", "bytes-per-score": "4"}
    assert readouts(view) == expected(cost, cost.State(4096, 4, cost.CARD_GIB))


def test_float_slider_reads_as_its_number():
    view = driven(depth)
    assert follow(view, {"factor-per-step": "0.35", "layers": "12"}) == ""
    assert view.figure.link() == {"layers": "12", "factor-per-step": "0.35"}
    assert readouts(view) == expected(depth, depth.State(100, 12, 0.35))


def test_number_boxes_round_trip():
    def change(c):
        c["with x₂"].value = 1.5
        c["Query token"].value = "step"

    view = round_trip(three_steps, change)
    assert view.figure.link() == {"query-token": "step", "with-x2": "1.5"}
    X = book_inputs()
    X[TOKENS.index("with"), 1] = 1.5
    values = tuple(tuple(float(v) for v in row) for row in X)
    assert readouts(view) == expected(three_steps, three_steps.State("step", values))


def test_a_preset_round_trips_with_the_query_the_reader_set_after_it():
    def change(c):
        c["Tensor"].value = "negative"  # also picks the preset's own query...
        c["Query token"].value = "journey"  # ...which the reader sets back: the default

    view = round_trip(normalisations, change)
    assert view.figure.link() == {"tensor": slug(PRESETS["negative"])}
    assert TOKENS[preset_query("negative")] != "journey"
    want = expected(normalisations, normalisations.State("negative", "journey"))
    assert readouts(view) == want


def test_a_resample_is_part_of_the_view():
    view = driven(dropout)
    assert follow(view, {"resample": "2", "dropout-rate-p": "0.25"}) == ""
    state = dropout.State(p=0.25, seed=dropout.RUN_SEED + 2)
    assert readouts(view) == expected(dropout, state)


def test_a_state_the_figure_draws_with_a_message_is_a_view_like_any_other():
    view = driven(heads)
    assert follow(view, {"d_out": "3"}) == ""  # 3 does not split into 2 heads: the figure says so
    assert messages(view)
    assert readouts(view) == expected(heads, heads.State(d_out=3))


@pytest.mark.parametrize(
    "module, params, named",
    [
        (cost, {"foo": "1"}, "no control 'foo' on this figure"),
        (cost, {"context-length-t": "4097"}, "'4097' is not one of its 21 values"),
        (cost, {"card-memory": "81"}, "'81' is not one of 24, 40, 80 for 'card-memory'"),
        (depth, {"layers": "49"}, "'49' is outside 1 to 48 for 'layers'"),
        (depth, {"layers": "2.5"}, "'2.5' is not an integer for 'layers'"),
        (depth, {"factor-per-step": "0.333"}, "'0.333' is not a step of 0.01"),
        (depth, {"sequence-length-t": "ten"}, "'ten' is not an integer"),
        (dropout, {"scale-survivors-by-1-1-p": "yes"}, "'yes' is not true or false"),
        (dropout, {"resample": "-1"}, "cannot be clicked -1 times"),
        (three_steps, {"with-x2": "1e999"}, "the figure cannot show it: every embedding"),
        (three_steps, {"with-x2": ""}, "the figure cannot show it: every embedding number needs"),
        (three_steps, {"with-x2": "x" * 500}, "is not a number for 'with-x2'"),
    ],
)
def test_a_bad_link_gives_the_defaults_and_a_note_naming_the_problem(module, params, named):
    view = driven(module)
    defaults = readouts(view)
    for key, control in view.figure.controls.items():  # away from the defaults first
        if isinstance(control, Choice) and control.style == "menu":
            view.take(view.figure.change(key, control.values[0]))
    moved = {k: v for k, v in view.figure.link().items() if k not in params}
    note = follow(view, {**params, **moved})
    assert note.startswith("This link's view could not be restored (")
    assert note.endswith("); showing the defaults.")
    assert named in note
    assert "\n" not in note and len(note) < 200
    assert view.figure.link() == {}
    assert readouts(view) == defaults
    assert messages(view) == []


def test_no_control_is_set_when_one_value_is_bad():
    view = driven(cost)
    assert follow(view, {"context-length-t": "4096", "card-memory": "nope"})
    assert view.figure.link() == {}


def test_reset_returns_to_the_defaults():
    view = driven(cost)
    defaults = readouts(view)
    follow(view, {"context-length-t": "1047576", "card-memory": "24"})
    assert readouts(view) != defaults
    view.take(view.figure.reset())
    assert view.figure.link() == {}
    assert readouts(view) == defaults


def test_choices_read_as_labels_or_numbers_and_match_loosely():
    view = driven(normalisations)
    assert view.figure.controls["query-token"].text("Your") == "your"
    assert follow(view, {"query-token": "Your"}) == ""  # as the token is written, too
    assert view.figure.link() == {"query-token": "your"}
