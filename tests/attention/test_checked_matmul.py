"""checked_matmul: every matrix product of the core refuses overflow the same way.

Finite inputs can multiply past float64's largest value; each path must raise ValueError,
never return inf or NaN and never emit a RuntimeWarning on the way.
"""

import warnings

import numpy as np
import pytest

from attention import heads as hd
from attention import projections as pj
from attention._checks import checked_matmul
from attention.basics import context

BIG = np.finfo(np.float64).max
# Projections and scores stay finite; the context is a weighted average of values at BIG whose
# weights sum to a hair over 1 in float64, so only weights @ values overflows.
X_EDGE = np.array([[1.0, 0.0], [1.0, 1.0]])
W_Q_EDGE = np.array([[1.0], [0.0]])
W_K_EDGE = np.array([[0.0], [0.7]])
W_V_EDGE = np.array([[BIG], [0.0]])


def raises_without_warning(call, match: str = "overflowed float64") -> None:
    """``call()`` raises ValueError matching ``match``; a RuntimeWarning on the way fails."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=match):
            call()


def test_checked_matmul_is_the_plain_product_when_finite():
    a, b = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
    assert np.array_equal(checked_matmul(a, b, "x"), a @ b)
    assert np.array_equal(checked_matmul(a, b[:, 0], "x"), a @ b[:, 0])


def test_checked_matmul_names_the_product_and_the_culprit():
    a = np.full((1, 2), 1e308)
    raises_without_warning(lambda: checked_matmul(a, np.ones((2, 1)), "the scores"), "the scores")
    raises_without_warning(
        lambda: checked_matmul(a, np.ones((2, 1)), "scores", "the embeddings"),
        "the embeddings are too large",
    )


def test_edge_case_overflows_only_in_the_context():
    # The fixture really probes the context product: everything before it is finite.
    Q, K, V = pj.qkv(X_EDGE, W_Q_EDGE, W_K_EDGE, W_V_EDGE)
    assert np.all(np.isfinite(pj.scaled_scores(Q, K))) and np.all(np.isfinite(V))


def test_self_attention_refuses_an_overflowing_context():
    raises_without_warning(lambda: pj.self_attention(X_EDGE, W_Q_EDGE, W_K_EDGE, W_V_EDGE))


def test_basics_context_refuses_huge_weights():
    # Divide-by-sum weights can be huge; their average of the embeddings overflows.
    raises_without_warning(lambda: context(np.array([1e308, 1e308]), np.ones((2, 1))))


@pytest.mark.parametrize("causal", [True, False])
def test_heads_refuse_overflowing_values(causal):
    # The confirmed repro: small W_query, W_key and W_value full of 1e308 gave NaN/inf.
    X = np.ones((3, 2))
    small, huge = np.eye(2) * 0.1, np.full((2, 2), 1e308)
    for call in (
        lambda: hd.causal_attention(X, small, small, huge, causal=causal),
        lambda: hd.multihead_split(X, small, small, huge, num_heads=2, causal=causal),
        lambda: hd.multihead_wrapper(X, [(small, small, huge)], causal=causal),
    ):
        raises_without_warning(call)


def test_heads_refuse_an_overflowing_context():
    for call in (
        lambda: hd.causal_attention(X_EDGE, W_Q_EDGE, W_K_EDGE, W_V_EDGE, causal=False),
        lambda: hd.multihead_split(X_EDGE, W_Q_EDGE, W_K_EDGE, W_V_EDGE, 1, causal=False),
    ):
        raises_without_warning(call, "the context overflowed")


def test_heads_refuse_overflowing_scores_and_out_proj():
    X, W = np.ones((2, 2)), np.full((2, 2), 1e200)
    raises_without_warning(lambda: hd.causal_attention(X, W, W, W), "the scores overflowed")
    ones = np.ones((2, 2))
    raises_without_warning(lambda: hd.multihead_split(X, ones, ones, ones, 2, W_out=W * 1e108))
    at_max = np.full((2, 2), BIG / 4)  # merged is all 2, so merged @ W_out is BIG: finite
    raises_without_warning(
        lambda: hd.multihead_split(X, ones, ones, ones, 2, W_out=at_max, b_out=np.full(2, BIG)),
        "out_proj overflowed",
    )
