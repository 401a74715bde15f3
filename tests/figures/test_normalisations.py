"""The normalisation figure in CPython: the book's row, both broken presets, every combination."""

import itertools

import numpy as np
import panel as pn
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention.basics import improper_weights, query_scores, row_sums, softmax, sum_normalise
from attention.fixtures import PRESETS, TOKENS, preset_inputs, preset_query
from figures import normalisations
from formatting import num, vec
from layoutkit.document import view_of
from tests.figures.probe import driven, messages, readouts, widgets
from tests.strategies import examples


def choose(view, preset: str, token: str | None = None) -> None:
    controls = widgets(view)
    controls["Tensor"].value = preset  # the button labelled PRESETS[preset]
    if token is not None:
        controls["Query token"].value = token


def expected(preset: str, token: str) -> dict:
    s = query_scores(preset_inputs(preset), TOKENS.index(token))
    by_sum, soft = sum_normalise(s), softmax(s)
    picked = TOKENS.index(token) == preset_query(preset)
    return {
        "query": token + (" (the tensor's pick)" if picked else ""),
        "scores": vec(s),
        "denominator": num(row_sums(s)),
        "by_sum": vec(by_sum),
        "by_sum_total": num(row_sums(by_sum), 3),
        "softmax": vec(soft),
        "softmax_total": num(row_sums(soft), 3),
    }


def test_default_is_the_books_journey_row():
    """Post 1 section 04: 'Divide each score by the sum ... [0.1455, 0.2278, 0.2249, 0.1285,
    0.1077, 0.1656]'."""
    view = driven(normalisations)
    shown = readouts(view)
    assert shown["by_sum"] == "[0.1455, 0.2278, 0.2249, 0.1285, 0.1077, 0.1656]"
    assert shown["softmax"] == "[0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581]"
    assert messages(view) == []


def test_negative_preset():
    """Post 1 section 04: 'the score of Your against it becomes -0.2046. Divide by the row sum of
    3.7978 and the weight for one is -0.0539 ... Softmax on the same six scores returns 0.0669
    ... still sums to 1.000'."""
    view = driven(normalisations)
    choose(view, "negative")
    assert widgets(view)["Query token"].value == "Your"  # the preset picks its query
    shown = readouts(view)
    assert shown == expected("negative", "Your")
    assert shown["scores"].split(", ")[4] == "-0.2046"
    assert shown["denominator"] == "3.7978"
    assert shown["by_sum"].split(", ")[4] == "-0.0539"
    assert shown["softmax"].split(", ")[4] == "0.0669"
    assert shown["by_sum_total"] == "1.000"
    (flag,) = messages(view)
    assert "one -0.0539" in flag


def test_near_zero_preset():
    """Post 1 section 04: 'a denominator of 0.0100 producing a weight of 90'."""
    view = driven(normalisations)
    choose(view, "near-zero")
    assert widgets(view)["Query token"].value == "one"
    shown = readouts(view)
    assert shown["denominator"] == "0.0100"
    assert shown["by_sum"].split(", ")[4] == "90.0000"
    assert shown["by_sum_total"] == "1.000"
    assert "one 90.0000" in messages(view)[0]


def test_flagged_bars_are_red_and_softmax_never_is():
    view = view_of("normalisations")  # the layout's models, as the page shows them
    choose(view, "negative")
    source = view.select(pn.pane.Bokeh)[0].object.renderers[0].data_source
    assert source.data["color"][4] == normalisations.FLAG
    assert source.data["color"].count(normalisations.FLAG) == 1
    assert normalisations.FLAG not in source.data["soft_color"]


@pytest.mark.parametrize(("preset", "token"), list(itertools.product(PRESETS, TOKENS)))
def test_every_preset_and_query(preset, token):
    view = driven(normalisations)
    choose(view, preset, token)
    assert readouts(view) == expected(preset, token)
    s = query_scores(preset_inputs(preset), TOKENS.index(token))
    assert bool(messages(view)) == bool(improper_weights(sum_normalise(s)).any())


@settings(max_examples=examples(30), deadline=None)
@given(
    moves=st.lists(st.tuples(st.sampled_from(list(PRESETS)), st.sampled_from(TOKENS)), max_size=6)
)
def test_any_sequence_of_choices_ends_on_the_cores_numbers(moves):
    view = driven(normalisations)
    for preset, token in moves:
        choose(view, preset, token)
    preset, token = moves[-1] if moves else ("book", "journey")
    assert readouts(view) == expected(preset, token)


def test_the_presets_pick_their_queries():
    view = driven(normalisations)
    for name in PRESETS:
        choose(view, name)
        query = TOKENS[preset_query(name)]
        assert widgets(view)["Query token"].value == query
        assert readouts(view)["query"] == f"{query} (the tensor's pick)"  # said, not silent
    assert "also picks the query" in normalisations.CAPTION
    assert np.all(np.isfinite(preset_inputs("near-zero")))


@pytest.mark.parametrize(
    ("preset", "token"), [("negative", None), ("near-zero", None), ("negative", "one")]
)
def test_each_change_draws_once(monkeypatch, preset, token):
    # A preset also sets its query; that must not draw (and send to the page) a second time.
    # Every draw reads its readouts once, and nothing else does.
    calls = []
    readouts_of = normalisations.readouts

    def counted(state):
        calls.append(state)
        return readouts_of(state)

    view = driven(normalisations)
    monkeypatch.setattr(normalisations, "readouts", counted)
    choose(view, preset, token)
    drawn = [normalisations.State(preset, TOKENS[preset_query(preset)])]
    if token is not None:
        drawn.append(normalisations.State(preset, token))
    assert calls == drawn  # the preset with its own query, then the token
    assert readouts(view) == expected(preset, token or TOKENS[preset_query(preset)])


def test_the_caption_names_the_buttons_the_reader_sees():
    for label in (PRESETS["negative"], PRESETS["near-zero"]):
        assert f"“{label}”" in normalisations.CAPTION


# --- the readouts and the message as functions of the controls, without Panel ---------------


@pytest.mark.parametrize(("preset", "token"), list(itertools.product(PRESETS, TOKENS)))
def test_the_readouts_and_message_are_the_cores_numbers(preset, token):
    state = normalisations.State(preset, token)
    shown = normalisations.readouts(state)
    assert {key: text for key, _, text in shown} == expected(preset, token)
    assert shown[1][1] == f"scores ω for {token}"
    by_sum = sum_normalise(query_scores(preset_inputs(preset), TOKENS.index(token)))
    bad = improper_weights(by_sum)
    text = normalisations.message(state)
    assert bool(text) == bool(bad.any())
    for j in np.flatnonzero(bad):
        assert f"{TOKENS[j]} {num(by_sum[j])}" in text


def test_the_negative_presets_message_names_the_negative_weight():
    text = normalisations.message(normalisations.State("negative", "Your"))
    assert text.startswith(
        "Dividing by the sum (3.7978) gives weights outside 0 to 1: one -0.0539."
    )
