"""attention.fixtures: the book's tensor and the presets of post 1 section 04."""

import numpy as np
import pytest

from attention.basics import query_scores, scores, softmax, sum_normalise
from attention.fixtures import (
    GPT2_CONTEXT,
    GPT2_EMBED,
    PRESETS,
    TOKENS,
    book_inputs,
    preset_inputs,
    preset_query,
)

ONE, YOUR = TOKENS.index("one"), TOKENS.index("Your")


def assert_printed(actual, printed, decimals=4):
    """``actual`` rounds to exactly the numbers a document printed."""
    np.testing.assert_array_equal(np.round(np.asarray(actual), decimals), np.asarray(printed))


def test_book_tensor():
    """3.3 page: 'inputs = torch.tensor([[0.43, 0.15, 0.89], # Your ...'."""
    printed = [
        [0.43, 0.15, 0.89],
        [0.55, 0.87, 0.66],
        [0.57, 0.85, 0.64],
        [0.22, 0.58, 0.33],
        [0.77, 0.25, 0.10],
        [0.05, 0.80, 0.55],
    ]
    X = book_inputs()
    assert X.dtype == np.float64
    np.testing.assert_array_equal(X, printed)
    assert TOKENS == ("Your", "journey", "starts", "with", "one", "step")


def test_book_inputs_is_a_fresh_copy():
    book_inputs()[0, 0] = 99.0
    assert book_inputs()[0, 0] == 0.43


def test_gpt2_sizes():
    """Post 1 section 05: 'embedding size of 768 ... a context length of 1,024 tokens'."""
    assert (GPT2_CONTEXT, GPT2_EMBED) == (1024, 768)


def test_every_book_score_is_positive():
    """Post 1 section 04: 'all eighteen coordinates ... positive, so all 36 dot products are'."""
    X = book_inputs()
    assert X.size == 18 and np.all(X > 0)
    omega = scores(X)
    assert omega.size == 36 and np.all(omega > 0)


@pytest.mark.parametrize("name", list(PRESETS))
def test_presets_are_fresh_six_by_three_tensors(name):
    X = preset_inputs(name)
    assert X.shape == (6, 3) and X.dtype == np.float64
    X[:] = 0.0
    assert np.any(preset_inputs(name) != 0.0)
    assert 0 <= preset_query(name) < 6
    assert isinstance(PRESETS[name], str) and PRESETS[name]


def test_preset_names():
    assert set(PRESETS) == {"book", "negative", "near-zero"}
    np.testing.assert_array_equal(preset_inputs("book"), book_inputs())
    assert TOKENS[preset_query("book")] == "journey"  # the book's query


@pytest.mark.parametrize("name", ["Book", "", "nearzero"])
def test_unknown_preset(name):
    with pytest.raises(ValueError, match="unknown preset"):
        preset_inputs(name)
    with pytest.raises(ValueError, match="unknown preset"):
        preset_query(name)


def test_negative_preset_flips_one_coordinate():
    """Post 1 section 04: 'Flip the first coordinate of one from 0.77 to -0.77'."""
    X, book = preset_inputs("negative"), book_inputs()
    changed = np.argwhere(X != book)
    np.testing.assert_array_equal(changed, [[ONE, 0]])
    assert X[ONE, 0] == -0.77


def test_negative_preset_numbers():
    """Post 1 section 04: 'the score of Your against it becomes -0.2046. Divide by the row sum of
    3.7978 and the weight for one is -0.0539 ... Softmax on the same six scores returns 0.0669'."""
    q = preset_query("negative")
    assert TOKENS[q] == "Your"
    omega = query_scores(preset_inputs("negative"), q)
    assert_printed(omega[ONE], -0.2046)
    assert_printed(np.sum(omega), 3.7978)
    by_sum = sum_normalise(omega)
    assert_printed(by_sum[ONE], -0.0539)
    assert_printed(softmax(omega)[ONE], 0.0669)
    # 'The column containing the bad weight still sums to 1.000'
    assert_printed(np.sum(by_sum), 1.000, decimals=3)
    assert np.all(softmax(omega) > 0)


def test_near_zero_preset_numbers():
    """Post 1 section 04: 'a denominator of 0.0100 producing a weight of 90'."""
    q = preset_query("near-zero")
    omega = query_scores(preset_inputs("near-zero"), q)
    assert_printed(np.sum(omega), 0.0100)
    by_sum = sum_normalise(omega)
    assert_printed(np.max(by_sum), 90.0000)
    assert np.argmax(by_sum) == q  # the weight of 90 sits on the query's own token
    assert np.all(np.delete(by_sum, q) < 0)
    assert np.sum(by_sum) == pytest.approx(1.0, abs=1e-9)  # still 'sums to 1'
    assert np.all(softmax(omega) > 0) and np.max(softmax(omega)) < 1


def test_near_zero_preset_stays_close_to_the_book():
    """The design comment: one turned away from the rest, and one nudge to step."""
    X, book = preset_inputs("near-zero"), book_inputs()
    changed = {tuple(ix) for ix in np.argwhere(X != book)}
    assert changed <= {(ONE, 0), (ONE, 1), (ONE, 2), (TOKENS.index("step"), 0)}
    assert np.max(np.abs(np.round(X, 2) - X)) < 1e-15  # two decimals, like the book
