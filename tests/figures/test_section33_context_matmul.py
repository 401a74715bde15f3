"""The final-matmul figure: context vectors from the core, each row rebuilt from its parts."""

from hypothesis import given, settings
from hypothesis import strategies as st

from attention.basics import attend, contributions
from attention.fixtures import TOKENS, book_inputs
from figures import section33_context_matmul as fig
from formatting import num, vec
from tests.figurekit.test_pointing import check_pointing, pane_html
from tests.figures.probe import driven, messages, readouts, widgets
from tests.strategies import examples


def test_default_rebuilds_journey_the_books_z2():
    """Section 3.3.2: the journey row of all_context_vecs is [0.4419, 0.6515, 0.5683]."""
    view = driven(fig)
    assert readouts(view)["context"] == "[0.4419, 0.6515, 0.5683]"
    p = check_pointing(pane_html(view))
    assert p.out.attrs["data-showing"] == "z1"
    assert "[0.4419, 0.6515, 0.5683]" in " ".join(p.out.text().split())


def test_every_row_is_rebuilt_from_its_weighted_inputs():
    X = book_inputs()
    _, alpha, Z = attend(X)
    p = check_pointing(pane_html(driven(fig)))
    for i, token in enumerate(TOKENS):
        (row,) = p.by_key(f"z{i}")
        assert row.tag == "tr" and row.attrs["data-token"] == token
        assert set(row.attrs["data-lights"].split()) == {f"a{i}", "x"}
        cells = [n.text() for n in row.walk() if n.tag == "td"]
        assert cells == [num(v) for v in Z[i]]
        why = p.explanation(f"z{i}")
        for j, part in enumerate(contributions(alpha[i], X)):
            term = f"{num(alpha[i, j])}×{vec(X[j], 2)}={vec(part)}"
            assert term.replace(" ", "") in why.replace(" ", "")
        assert f"sum={vec(Z[i])}".replace(" ", "") in why.replace(" ", "")


def test_book_context_matrix_rows():
    """Section 3.3.2 prints all six context vectors."""
    p = check_pointing(pane_html(driven(fig)))
    rows = [[n.text() for n in p.by_key(f"z{i}")[0].walk() if n.tag == "td"] for i in range(6)]
    assert rows == [
        ["0.4421", "0.5931", "0.5790"],
        ["0.4419", "0.6515", "0.5683"],
        ["0.4431", "0.6496", "0.5671"],
        ["0.4304", "0.6298", "0.5510"],
        ["0.4671", "0.5910", "0.5266"],
        ["0.4177", "0.6503", "0.5645"],
    ]


@settings(max_examples=examples(25), deadline=None)
@given(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=6))
def test_choosing_rows_shows_the_chosen_one(tokens):
    view = driven(fig)
    for token in tokens:
        widgets(view)["Row to rebuild"].value = token
    i = TOKENS.index(tokens[-1])
    _, _, Z = attend(book_inputs())
    assert readouts(view)["context"] == vec(Z[i])
    p = check_pointing(pane_html(view))
    assert p.out.attrs["data-showing"] == f"z{i}"
    assert messages(view) == []


@given(row=st.sampled_from(TOKENS))
def test_picture_and_readouts_are_functions_of_the_row_alone(row):
    # No Panel: the readout is the core's context vector; the picture rebuilds that row first.
    i = TOKENS.index(row)
    _, _, Z = attend(book_inputs())
    assert fig.readout_rows(fig.State(row)) == [("context", f"z for {row}", vec(Z[i]))]
    p = check_pointing(fig.picture(fig.State(row)))
    assert p.out.attrs["data-showing"] == f"z{i}"
