"""The two-normalisations figure: both charts from the core, one token lit in both."""

import re

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from attention.basics import query_scores, row_sums, softmax, sum_normalise
from attention.fixtures import TOKENS, book_inputs
from figures import section33_normalisations as fig
from formatting import num, vec
from tests.figurekit.test_pointing import check_pointing, pane_html
from tests.figures.probe import driven, messages, readouts, widgets
from tests.strategies import examples


def test_default_is_journey_with_the_books_two_normalisations():
    """Section 3.3.1 step 2: divide by the sum [0.1455, 0.2278, 0.2249, 0.1285, 0.1077,
    0.1656]; softmax [0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581]."""
    shown = readouts(driven(fig))
    assert shown["by-sum"] == "[0.1455, 0.2278, 0.2249, 0.1285, 0.1077, 0.1656]"
    assert shown["softmax"] == "[0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581]"
    assert shown["sum"] == num(row_sums(query_scores(book_inputs(), 1)))


def _bar_width(node) -> float:
    (rect,) = [n for n in node.walk() if n.tag == "rect"]
    return float(rect.attrs["width"])


def test_each_token_is_one_key_in_both_charts_for_every_query():
    X = book_inputs()
    view = driven(fig)
    for q, token in enumerate(TOKENS):
        widgets(view)["Query token"].value = token
        p = check_pointing(pane_html(view))
        s = query_scores(X, q)
        by_sum, soft = sum_normalise(s), softmax(s)
        assert p.out.attrs["data-showing"] == f"t{q}"  # drawn pointing at the query itself
        for j, name in enumerate(TOKENS):
            bars = p.by_key(f"t{j}")
            assert [b.attrs["data-token"] for b in bars] == [name, name]
            assert all(b.attrs["data-lights"] == b.attrs["data-marks"] == f"t{j}" for b in bars)
            values = [re.search(r"\d\.\d{4}$", b.text()).group() for b in bars]
            assert values == [num(by_sum[j]), num(soft[j])]
            why = p.explanation(f"t{j}")
            assert f"{num(s[j])} ÷ {num(row_sums(s))}" in why
            assert num(by_sum[j]) in why and num(soft[j]) in why
        # One scale for both charts: bar lengths are proportional to the weights.
        widths = np.array([_bar_width(b) for b in p.pointables])
        weights = np.concatenate([by_sum, soft])
        np.testing.assert_allclose(widths, 100 * weights / weights.max(), atol=1e-3)
        assert messages(view) == []


@settings(max_examples=examples(25), deadline=None)
@given(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=6))
def test_any_sequence_of_queries_ends_in_the_last_ones_numbers(tokens):
    view = driven(fig)
    for token in tokens:
        widgets(view)["Query token"].value = token
    s = query_scores(book_inputs(), TOKENS.index(tokens[-1]))
    assert readouts(view)["softmax"] == vec(softmax(s))
    assert readouts(view)["by-sum"] == vec(sum_normalise(s))


@given(query=st.sampled_from(TOKENS))
def test_picture_and_readouts_are_functions_of_the_query_alone(query):
    # No Panel: the readout is the core's two normalisations; the picture points at the query.
    s = query_scores(book_inputs(), TOKENS.index(query))
    assert fig.readout_rows(fig.State(query)) == [
        ("sum", f"sum of the scores of {query}", num(row_sums(s))),
        ("by-sum", "divided by the sum", vec(sum_normalise(s))),
        ("softmax", "softmax", vec(softmax(s))),
    ]
    p = check_pointing(fig.picture(fig.State(query)))
    assert p.out.attrs["data-showing"] == f"t{TOKENS.index(query)}"
