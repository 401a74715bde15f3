"""The magnitude figure in CPython: scaling one token, dot against cosine, a zero vector."""

import panel as pn
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention.analysis import (
    attends_to_itself,
    cosine_scores,
    entropy_bits,
    largest_per_row,
    max_entropy_bits,
    mean_entropy_bits,
    norms,
    rows_won_by,
    scale_token,
)
from attention.basics import scores, softmax
from attention.fixtures import TOKENS, book_inputs
from figures import magnitude
from formatting import num, vec
from layoutkit.document import view_of
from tests.figures.probe import driven, messages, readouts, widgets
from tests.strategies import examples

TOKEN, SCALE, SIMILARITY = "Token to scale", "Scale factor", "Similarity"
# The token and the similarity, each over all its options (the tests pick the factors).
CONTROLS = {
    "token": st.sampled_from(TOKENS),
    "similarity": st.sampled_from([magnitude.DOT, magnitude.COSINE]),
}


def set_controls(view, token: str, factor: float, similarity: str) -> None:
    controls = widgets(view)
    controls[TOKEN].value = token
    controls[SCALE].value = factor
    controls[SIMILARITY].value = similarity


def expected(token: str, factor: float, similarity: str) -> dict:
    j = TOKENS.index(token)
    X = scale_token(book_inputs(), j, factor)
    omega = scores(X) if similarity == magnitude.DOT else cosine_scores(X)
    weights = softmax(omega)
    return {
        "norm": num(norms(X)[j]),
        "self_weight": num(weights[j, j], 3),
        "column_wins": f"{rows_won_by(weights, j)} of 6",
        "largest": ", ".join(TOKENS[k] for k in largest_per_row(weights)),
        "self_top": f"{int(attends_to_itself(weights).sum())} of 6",
        "entropy": vec(entropy_bits(weights), 4),
        "mean_entropy": num(mean_entropy_bits(weights)),
        "ceiling": num(max_entropy_bits(6)),
    }


def heat(view) -> dict:
    return view.select(pn.pane.Bokeh)[0].object.renderers[0].data_source.data


def test_default_is_the_untouched_tensor():
    """Post 1 section 06: 'the shortest vector at norm 0.7026', mean row entropy 2.5413, and
    the largest weight going to journey or starts in five rows, to Your itself in row 1."""
    view = driven(magnitude)
    shown = readouts(view)
    assert shown == expected("with", 1.0, magnitude.DOT)
    assert shown["norm"] == "0.7026"
    assert shown["mean_entropy"] == "2.5413"
    assert shown["largest"] == "Your, journey, journey, journey, starts, journey"
    assert messages(view) == []


def test_with_times_three_takes_every_row():
    """'scale it by three, and its column becomes the largest weight in all six rows,
    including a weight of 0.687 on itself'."""
    view = view_of("magnitude")  # the layout's models, as the page shows them
    set_controls(view, "with", 3.0, magnitude.DOT)
    shown = readouts(view)
    assert shown["self_weight"] == "0.687"
    assert shown["column_wins"] == "6 of 6"
    data = heat(view)
    bold_columns = [k % 6 for k, style in enumerate(data["font_style"]) if style == "bold"]
    assert bold_columns == [TOKENS.index("with")] * 6  # each row's bold cell is in that column
    box = next(a for a in view.select(pn.pane.Bokeh)[0].object.center if hasattr(a, "left"))
    assert (box.left, box.right) == (3, 4)


def test_cosine_flattens_and_looks_at_itself():
    """'the mean row entropy rises from 2.5413 bits to 2.5673 against the same 2.5850 ceiling'
    and 'cosine makes every token attend hardest to itself'."""
    view = driven(magnitude)
    set_controls(view, "with", 1.0, magnitude.COSINE)
    shown = readouts(view)
    assert shown["mean_entropy"] == "2.5673"
    assert shown["ceiling"] == "2.5850"
    assert shown["self_top"] == "6 of 6"
    assert shown["largest"] == ", ".join(TOKENS)
    set_controls(view, "with", 3.0, magnitude.COSINE)
    assert readouts(view)["mean_entropy"] == "2.5673"  # length no longer matters


def test_a_zero_vector_is_explained_under_cosine_and_recovers():
    view = driven(magnitude)
    set_controls(view, "step", 0.0, magnitude.COSINE)
    (text,) = messages(view)
    assert "'step'" in text and "zero vector" in text
    widgets(view)[SIMILARITY].value = magnitude.DOT
    assert messages(view) == []
    assert readouts(view) == expected("step", 0.0, magnitude.DOT)


@pytest.mark.parametrize("token", TOKENS)
@pytest.mark.parametrize("factor", [0.0, 0.1, magnitude.MAX_SCALE])
@pytest.mark.parametrize("similarity", [magnitude.DOT, magnitude.COSINE])
def test_extremes(token, factor, similarity):
    view = driven(magnitude)
    set_controls(view, token, factor, similarity)
    if factor == 0.0 and similarity == magnitude.COSINE:
        assert "zero vector" in messages(view)[0]
    else:
        assert messages(view) == []
        assert readouts(view) == expected(token, factor, similarity)


@settings(max_examples=examples(50), deadline=None)
@given(**CONTROLS, factor=st.integers(1, 100).map(lambda k: k / 10))
def test_random_settings_give_the_cores_numbers(token, factor, similarity):
    view = driven(magnitude)
    set_controls(view, token, factor, similarity)
    assert readouts(view) == expected(token, factor, similarity)
    assert messages(view) == []


# --- the readouts as a function of the controls, without Panel -----------------------------


@settings(max_examples=examples(50), deadline=None)
@given(**CONTROLS, factor=st.integers(0, 100).map(lambda k: k / 10))
def test_the_readouts_are_the_cores_numbers_or_refused(token, factor, similarity):
    state = magnitude.State(token, factor, similarity)
    if factor == 0.0 and similarity == magnitude.COSINE:
        with pytest.raises(ValueError, match="zero vector") as refused:
            magnitude.readouts(state)
        assert magnitude.explain(refused.value).endswith(
            "Pick a scale above 0, or the dot product."
        )
        return
    shown = magnitude.readouts(state)
    assert {key: text for key, _, text in shown} == expected(token, factor, similarity)
    assert shown[0][1] == f"length of {token}"


def test_the_view_shows_what_the_function_says():
    view = driven(magnitude)
    set_controls(view, "Your", 4.2, magnitude.COSINE)
    state = magnitude.State("Your", 4.2, magnitude.COSINE)
    assert readouts(view) == {key: text for key, _, text in magnitude.readouts(state)}
