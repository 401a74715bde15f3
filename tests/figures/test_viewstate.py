"""Links to a figure's view in CPython: every figure's view goes into URL parameters and
comes back with the readouts ``readouts(State(...))`` gives; a bad link gives the defaults and
a one-line note naming what was wrong."""

import panel as pn
import pytest

import figures
from attention.fixtures import PRESETS, TOKENS, book_inputs, preset_query
from figures import cost, depth, dropout, heads, normalisations, three_steps, viewstate
from layoutkit.document import view_of
from tests.figures.probe import messages, readouts


def tracked(module) -> viewstate.View:
    return viewstate.track(figures.figure_id(module), view_of(figures.figure_id(module)))


def expected(module, state) -> dict[str, str]:
    return {key: text for key, _, text in module.readouts(state)}


def round_trip(module, change) -> viewstate.View:
    """Change a figure's controls, encode its view, and apply that to a fresh copy."""
    source = tracked(module)
    change(source.controls)
    params = source.encode()
    assert params, "the change made no difference to the view"
    copy = tracked(module)
    assert copy.apply(params) == ""
    assert copy.encode() == params
    assert readouts(copy.layout) == readouts(source.layout)
    return copy


def test_every_figure_has_controls_with_their_own_keys():
    for figure_id in figures.REGISTRY:
        view = viewstate.track(figure_id, view_of(figure_id))
        assert view.controls, f"{figure_id} has nothing to link"
        assert view.encode() == {}, f"{figure_id} differs from its defaults when built"
        for key, control in view.controls.items():
            assert key == viewstate.slug(control.widget.name)
            assert control.text(control.default), f"{figure_id}.{key} has no text"


def test_slider_round_trip_gives_cpythons_readouts():
    def change(c):
        c["context-length-t"].set(4096)
        c["bytes-per-score"].set(4)

    view = round_trip(cost, change)
    assert view.encode() == {"context-length-t": "4096", "bytes-per-score": "4"}
    assert readouts(view.layout) == expected(cost, cost.State(4096, 4, cost.CARD_GIB))


def test_float_slider_reads_as_its_number():
    view = tracked(depth)
    assert view.apply({"factor-per-step": "0.35", "layers": "12"}) == ""
    assert view.encode() == {"layers": "12", "factor-per-step": "0.35"}
    assert readouts(view.layout) == expected(depth, depth.State(100, 12, 0.35))


def test_number_boxes_round_trip():
    def change(c):
        c["with-x2"].set(1.5)
        c["query-token"].set("step")

    view = round_trip(three_steps, change)
    assert view.encode() == {"query-token": "step", "with-x2": "1.5"}
    X = book_inputs()
    X[TOKENS.index("with"), 1] = 1.5
    values = tuple(tuple(float(v) for v in row) for row in X)
    assert readouts(view.layout) == expected(three_steps, three_steps.State("step", values))


def test_a_preset_round_trips_with_the_query_the_reader_set_after_it():
    def change(c):
        c["tensor"].set("negative")  # also picks the preset's own query...
        c["query-token"].set("journey")  # ...which the reader sets back: the default

    view = round_trip(normalisations, change)
    assert view.encode() == {"tensor": viewstate.slug(PRESETS["negative"])}
    assert TOKENS[preset_query("negative")] != "journey"
    want = expected(normalisations, normalisations.State("negative", "journey"))
    assert readouts(view.layout) == want


def test_a_resample_is_part_of_the_view():
    view = tracked(dropout)
    assert view.apply({"resample": "2", "dropout-rate-p": "0.25"}) == ""
    state = dropout.State(p=0.25, seed=dropout.RUN_SEED + 2)
    assert readouts(view.layout) == expected(dropout, state)


def test_a_state_the_figure_draws_with_a_message_is_a_view_like_any_other():
    view = tracked(heads)
    assert view.apply({"d_out": "3"}) == ""  # 3 does not split into 2 heads: the figure says so
    assert messages(view.layout)
    assert readouts(view.layout) == expected(heads, heads.State(d_out=3))


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
    view = tracked(module)
    defaults = readouts(view.layout)
    for control in view.controls.values():  # away from the defaults first
        if isinstance(control.widget, pn.widgets.Select):
            control.set(control.widget.values[0])
    note = view.apply({**params, **{k: v for k, v in view.encode().items() if k not in params}})
    assert note.startswith("This link's view could not be restored (")
    assert note.endswith("); showing the defaults.")
    assert named in note
    assert "\n" not in note and len(note) < 200
    assert view.encode() == {}
    assert readouts(view.layout) == defaults
    assert messages(view.layout) == []


def test_no_control_is_set_when_one_value_is_bad():
    view = tracked(cost)
    assert view.apply({"context-length-t": "4096", "card-memory": "nope"})
    assert view.encode() == {}


def test_reset_returns_to_the_defaults():
    view = tracked(cost)
    defaults = readouts(view.layout)
    view.apply({"context-length-t": "1047576", "card-memory": "24"})
    assert readouts(view.layout) != defaults
    view.reset()
    assert view.encode() == {}
    assert readouts(view.layout) == defaults


def test_choices_read_as_labels_or_numbers_and_match_loosely():
    view = tracked(normalisations)
    assert view.controls["query-token"].text("Your") == "your"
    assert view.apply({"query-token": "Your"}) == ""  # as the token is written, too
    assert view.encode() == {"query-token": "your"}


def test_two_controls_with_one_key_are_refused_at_build_time():
    layout = pn.Column(pn.widgets.IntSlider(name="T"), pn.widgets.IntSlider(name="t"))
    with pytest.raises(ValueError, match="both link as 't'; rename one"):
        viewstate.View("example", layout)


def test_an_unknown_figure_says_which_are_tracked():
    tracked(cost)
    with pytest.raises(ValueError, match="no figure 'nope' on this page"):
        viewstate.view("nope")
