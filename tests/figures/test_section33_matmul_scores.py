"""The six-scores matmul figure: scores from the core, each cell's products and sum."""

from hypothesis import given, settings
from hypothesis import strategies as st

from attention.basics import dot_terms, query_scores
from attention.fixtures import TOKENS, book_inputs
from figures import section33_matmul_scores as fig
from formatting import num, vec
from tests.figurekit.test_pointing import check_pointing, pane_html
from tests.figures.probe import driven, messages, readouts, widgets
from tests.strategies import examples


def test_default_is_journey_with_the_book_scores_and_worked_example():
    """Section 3.3.1: scores [0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865], and
    0.55·0.43 + 0.87·0.15 + 0.66·0.89 = 0.2365 + 0.1305 + 0.5874 = 0.9544."""
    view = driven(fig)
    assert readouts(view)["scores"] == "[0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865]"
    p = check_pointing(pane_html(view))
    assert p.out.attrs["data-showing"] == "s0"
    shown = " ".join(p.out.text().split())
    assert "0.2365 + 0.1305 + 0.5874 = 0.9544" in shown
    for factor in ("0.55", "0.43", "0.87", "0.15", "0.66", "0.89"):
        assert factor in shown
    assert messages(view) == []


def test_every_cell_explains_its_own_dot_product_for_every_query():
    X = book_inputs()
    view = driven(fig)
    for q, token in enumerate(TOKENS):
        widgets(view)["Query token"].value = token
        p = check_pointing(pane_html(view))
        s = query_scores(X, q)
        assert readouts(view)["scores"] == vec(s)
        for j in range(len(TOKENS)):
            (cell,) = p.by_key(f"s{j}")
            assert cell.text() == num(s[j])
            assert cell.attrs["data-token"] == TOKENS[j]
            assert set(cell.attrs["data-lights"].split()) == {"q", f"c{j}"}
            terms, total = dot_terms(X[q], X[j])
            line = " + ".join(num(t) for t in terms) + f" = {num(total)}"
            assert line in p.explanation(f"s{j}")
        # The query row and column j are what cell j lights: 3 query cells, header + 3 entries.
        lit = {n.text() for n in p.lit()}
        assert lit >= {num(v, 2) for v in X[q]}
        assert TOKENS[0] in lit


@settings(max_examples=examples(25), deadline=None)
@given(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=6))
def test_any_sequence_of_queries_ends_in_the_last_ones_numbers(tokens):
    view = driven(fig)
    for token in tokens:
        widgets(view)["Query token"].value = token
    want = query_scores(book_inputs(), TOKENS.index(tokens[-1]))
    assert readouts(view)["scores"] == vec(want)
    check_pointing(pane_html(view))


@given(query=st.sampled_from(TOKENS))
def test_picture_and_readouts_are_functions_of_the_query_alone(query):
    # No Panel: the readout is the core's score row; the picture explains the first score.
    X, q = book_inputs(), TOKENS.index(query)
    assert fig.readout_rows(fig.State(query)) == [
        ("scores", f"ω for {query}", vec(query_scores(X, q)))
    ]
    p = check_pointing(fig.picture(fig.State(query)))
    assert p.out.attrs["data-showing"] == "s0"
    assert num(dot_terms(X[q], X[0])[1]) in p.out.text()
