"""The tests to copy for a new figure: ``tests/figures/test_my_figure.py``.

They check ``readouts`` against the core, that the view shows what ``readouts`` returns, and
every value of the control. ``tests/figures/test_figure_template.py`` runs them on
``docs/figure_template.py``, registered as ``figures.my_figure``.
"""

from attention.basics import query_scores, softmax
from attention.fixtures import TOKENS, book_inputs
from figures import my_figure
from formatting import vec
from tests.figures.probe import driven, messages, readouts, widgets


def shown(state: my_figure.State) -> dict[str, str]:
    """What the view should show for ``state``: the pure readouts, by key."""
    return {key: text for key, _, text in my_figure.readouts(state)}


def test_readouts_are_the_cores_numbers():
    """Post 1 section 03: journey's weights, to four decimals."""
    X = book_inputs()
    want = vec(softmax(query_scores(X, TOKENS.index("journey"))))
    assert shown(my_figure.State("journey"))["weights"] == want


def test_the_figure_shows_its_readouts_at_every_value_of_the_control():
    view = driven(my_figure)
    assert readouts(view) == shown(my_figure.State(widgets(view)["Query token"].value))
    for token in TOKENS:
        widgets(view)["Query token"].value = token
        assert readouts(view) == shown(my_figure.State(token))
        assert messages(view) == []
