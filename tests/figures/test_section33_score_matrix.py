"""The 6x6 score-matrix figure: cells from the core, each cell's origin, the switch."""

from attention.basics import attend, dot_terms, row_sums, symmetry_error
from attention.fixtures import TOKENS, book_inputs
from figurekit.pointing import sub
from figures import section33_score_matrix as fig
from formatting import num, vec
from tests.figurekit.test_pointing import check_pointing, pane_html
from tests.figures.probe import driven, messages, readouts, widgets


def _cells(p) -> dict[str, str]:
    return {n.attrs["data-cell"]: n.text() for n in p.pointables}


def test_scores_are_the_books_and_every_cell_writes_out_its_dot_product():
    X = book_inputs()
    omega, _, _ = attend(X)
    view = driven(fig)
    p = check_pointing(pane_html(view))
    cells = _cells(p)
    T = len(TOKENS)
    for i in range(T):
        for j in range(T):
            assert cells[f"{i}-{j}"] == num(omega[i, j])
            terms, total = dot_terms(X[i], X[j])
            why = p.explanation(f"m{i}-{j}")
            assert " + ".join(num(t) for t in terms) + f" = {num(total)}" in why
            if i == j:  # a diagonal cell has no mirror but itself
                assert "mirror" not in why and "dotted with itself" in why
            else:
                assert f"is {num(omega[j, i])}" in why  # its mirror, quoted from the matrix
    # Section 3.3.1: row journey of the matrix is the one query's scores.
    assert [cells[f"1-{j}"] for j in range(T)] == [
        "0.9544", "1.4950", "1.4754", "0.8434", "0.7070", "1.0865"
    ]  # fmt: skip
    # Post 2, section 01: the rows of X X^T sum to 4.4600, 6.5617, 6.4801, 3.6459, 3.1863, 4.6730.
    assert readouts(view)["row-sums"] == "[4.4600, 6.5617, 6.4801, 3.6459, 3.1863, 4.6730]"
    assert readouts(view)["symmetry"] == num(0.0)


def test_the_switch_shows_the_weights_and_their_softmax_origin():
    _, alpha, _ = attend(book_inputs())
    view = driven(fig)
    widgets(view)["Show"].value = fig.MODES[1]
    p = check_pointing(pane_html(view))
    cells = _cells(p)
    for i in range(len(TOKENS)):
        assert [cells[f"{i}-{j}"] for j in range(len(TOKENS))] == [num(a) for a in alpha[i]]
        why = p.explanation(f"m{i}-{i}")
        assert vec(alpha[i]) in why and f"sum to {num(row_sums(alpha[i]))}" in why
        assert "mirror" not in why and "gives itself" in why  # the diagonal
        j = (i + 1) % len(TOKENS)
        assert f"mirror α{sub(f'{j + 1}{i + 1}')} is {num(alpha[j, i])}" in p.explanation(
            f"m{i}-{j}"
        )
        # Pointing at a weight lights its whole row: the row it was normalised with.
        (cell,) = p.by_key(f"m{i}-0")
        assert f"row{i}" in cell.attrs["data-lights"].split()
    # Post 1, section 05: the largest gap between alpha_ij and alpha_ji is 0.087657.
    assert f"{symmetry_error(alpha):.6f}" == "0.087657"
    assert readouts(view)["symmetry"] == num(symmetry_error(alpha))
    assert readouts(view)["row-sums"] == vec(row_sums(alpha))
    assert messages(view) == []


def test_switching_back_restores_the_scores():
    view = driven(fig)
    before = pane_html(view)
    for mode in (*fig.MODES, fig.MODES[0]):
        widgets(view)["Show"].value = mode
        check_pointing(pane_html(view))
    assert pane_html(view) == before


def test_picture_and_readouts_are_functions_of_the_mode_alone():
    # No Panel: scores are symmetric, weights are not, and every weight row sums to 1.
    omega, alpha, _ = attend(book_inputs())
    for mode, M in zip(fig.MODES, (omega, alpha), strict=True):
        shown = {key: value for key, _, value in fig.readout_rows(fig.State(mode))}
        assert shown == {"symmetry": num(symmetry_error(M)), "row-sums": vec(row_sums(M))}
        assert check_pointing(fig.picture(fig.State(mode))).out.attrs["data-showing"] == "m1-2"
    assert float(fig.readout_rows(fig.State(fig.MODES[0]))[0][2]) == 0.0
    assert fig.readout_rows(fig.State(fig.MODES[1]))[1][2] == vec([1.0] * len(TOKENS))
