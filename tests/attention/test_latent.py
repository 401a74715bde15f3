"""latent: post 3's multi-head latent attention, against PyTorch and DeepSeek-V2's paper."""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import latent
from attention.models import DEEPSEEK_V2
from tests.strategies import examples, ndarrays_of_shape

EPS = np.finfo(np.float64).eps


def random_layer(rng, T=5, d=6, heads=2, hd=3, d_v=4, d_c=3, d_out=5):
    """X and a LatentWeights of the given sizes, near unit scale."""

    def draw(rows, cols):
        return rng.standard_normal((rows, cols)) / math.sqrt(rows)

    X = rng.standard_normal((T, d))
    W = latent.LatentWeights(
        W_q=draw(d, heads * hd),
        W_dkv=draw(d, d_c),
        W_uk=draw(d_c, heads * hd),
        W_uv=draw(d_c, heads * d_v),
        W_o=draw(heads * d_v, d_out),
    )
    return X, W


def t(a):
    return torch.from_numpy(np.asarray(a))


def torch_rebuilt(X, W, heads, causal=True):
    """Keys and values rebuilt from the latent, then torch's scaled_dot_product_attention."""
    T = X.shape[0]
    C = t(X) @ t(W.W_dkv)
    Q, K, V = t(X) @ t(W.W_q), C @ t(W.W_uk), C @ t(W.W_uv)
    split = [m.view(T, heads, -1).transpose(0, 1) for m in (Q, K, V)]  # (H, T, w)
    context = F.scaled_dot_product_attention(*split, is_causal=causal)  # (H, T, d_v)
    return (context.transpose(0, 1).reshape(T, -1) @ t(W.W_o)).numpy()


def torch_absorbed(X, W, heads, causal=True):
    """The absorbed form in torch: folded queries attend over the latent C, which is also the
    value; torch's attention is told to scale by the never-built keys' width."""
    T, d = X.shape
    d_c, d_out = W.W_dkv.shape[1], W.W_o.shape[1]
    hd = W.W_q.shape[1] // heads
    W_q = t(W.W_q).view(d, heads, hd).transpose(0, 1)  # (H, d, hd)
    W_uk = t(W.W_uk).view(d_c, heads, hd).transpose(0, 1)  # (H, d_c, hd)
    W_uv = t(W.W_uv).view(d_c, heads, -1).transpose(0, 1)  # (H, d_c, d_v)
    W_o = t(W.W_o).view(heads, -1, d_out)  # (H, d_v, d_out)
    C = t(X) @ t(W.W_dkv)  # (T, d_c)
    queries = t(X) @ (W_q @ W_uk.transpose(1, 2))  # (H, T, d_c)
    latent_c = C.expand(heads, T, d_c)
    mixed = F.scaled_dot_product_attention(
        queries, latent_c, latent_c, is_causal=causal, scale=1 / math.sqrt(hd)
    )
    return (mixed @ (W_uv @ W_o)).sum(0).numpy()


# --- equations 9-11 ----------------------------------------------------------------------------


def test_latent_kv_is_three_matmuls_as_torch_computes_them():
    X, W = random_layer(np.random.default_rng(1), T=6, d=8, heads=4, hd=2, d_v=3, d_c=5)
    C, K, V = latent.latent_kv(X, W.W_dkv, W.W_uk, W.W_uv, heads=4)
    C_t = t(X) @ t(W.W_dkv)
    assert C.shape == (6, 5) and K.shape == (6, 8) and V.shape == (6, 12)
    np.testing.assert_allclose(C, C_t.numpy(), rtol=0, atol=1e-14)
    np.testing.assert_allclose(K, (C_t @ t(W.W_uk)).numpy(), rtol=0, atol=1e-14)
    np.testing.assert_allclose(V, (C_t @ t(W.W_uv)).numpy(), rtol=0, atol=1e-14)


def test_keys_have_at_most_the_latents_rank():
    # A (T, H head_dim) key matrix rebuilt from d_c numbers per token has rank <= d_c.
    X, W = random_layer(np.random.default_rng(2), T=8, d=8, heads=4, hd=2, d_c=3)
    _, K, V = latent.latent_kv(X, W.W_dkv, W.W_uk, W.W_uv, 4)
    assert np.linalg.matrix_rank(K) == np.linalg.matrix_rank(V) == 3 < K.shape[1]


@pytest.mark.parametrize("causal", [True, False])
def test_rebuilt_route_matches_torch_attention(causal):
    X, W = random_layer(np.random.default_rng(3))
    ours = latent.attention_rebuilt(X, W, heads=2, causal=causal)
    np.testing.assert_allclose(ours, torch_rebuilt(X, W, 2, causal), rtol=0, atol=1e-13)


@pytest.mark.parametrize("causal", [True, False])
def test_absorbed_route_matches_torch_attention_over_the_latent(causal):
    X, W = random_layer(np.random.default_rng(4))
    ours = latent.attention_absorbed(X, W, heads=2, causal=causal)
    np.testing.assert_allclose(ours, torch_absorbed(X, W, 2, causal), rtol=0, atol=1e-13)


def test_torch_agrees_that_the_two_routes_are_one_function():
    # The oracle alone, without the numpy core: absorbing W_uk and W_uv changes nothing.
    X, W = random_layer(np.random.default_rng(5), d_c=7)
    np.testing.assert_allclose(torch_rebuilt(X, W, 2), torch_absorbed(X, W, 2), rtol=0, atol=1e-13)


def test_the_fold_is_q_dot_wuk_c_equals_wuk_transpose_q_dot_c():
    # Head 0's score of token 2 against token 1, both ways, with the absorbed matrix.
    X, W = random_layer(np.random.default_rng(6))
    C, K, _ = latent.latent_kv(X, W.W_dkv, W.W_uk, W.W_uv, 2)
    hd = W.W_q.shape[1] // 2
    q = X[2] @ W.W_q[:, :hd]
    folded = latent.absorb(W, 2).W_qc[0]  # (d, d_c)
    assert math.isclose(q @ K[1, :hd], (X[2] @ folded) @ C[1], rel_tol=1e-13)
    assert math.isclose(q @ K[1, :hd], (W.W_uk[:, :hd] @ q) @ C[1], rel_tol=1e-13)


def test_absorbed_matrices_have_one_block_per_head():
    _, W = random_layer(np.random.default_rng(7), d=6, heads=3, hd=2, d_v=4, d_c=5, d_out=7)
    folded = latent.absorb(W, 3)
    assert folded.W_qc.shape == (3, 6, 5)
    assert folded.W_co.shape == (3, 5, 7)
    np.testing.assert_allclose(folded.W_co[1], W.W_uv[:, 4:8] @ W.W_o[4:8], rtol=0, atol=1e-15)


def test_scaling_by_the_latent_width_instead_would_be_wrong():
    # The absorbed scores still divide by sqrt(head_dim), the width of the keys never built.
    X, W = random_layer(np.random.default_rng(8), hd=3, d_c=6)
    right = latent.attention_absorbed(X, W, 2)
    T = X.shape[0]
    queries = torch.from_numpy(X) @ torch.from_numpy(latent.absorb(W, 2).W_qc)
    C = torch.from_numpy(X @ W.W_dkv).expand(2, T, 6)
    mixed = F.scaled_dot_product_attention(queries, C, C, is_causal=True)  # 1/sqrt(d_c)
    wrong = (mixed @ torch.from_numpy(latent.absorb(W, 2).W_co)).sum(0).numpy()
    assert np.max(np.abs(right - wrong)) > 1e-3


@settings(max_examples=examples(80), deadline=None)
@given(
    T=st.integers(1, 6),
    d=st.integers(1, 6),
    heads=st.integers(1, 3),
    hd=st.integers(1, 3),
    d_v=st.integers(1, 3),
    d_c=st.integers(1, 6),
    causal=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_absorbed_equals_rebuilt_to_rounding_for_any_sizes(T, d, heads, hd, d_v, d_c, causal, seed):
    X, W = random_layer(np.random.default_rng(seed), T, d, heads, hd, d_v, d_c, d_out=3)
    rebuilt = latent.attention_rebuilt(X, W, heads, causal)
    absorbed = latent.attention_absorbed(X, W, heads, causal)
    scale = max(1.0, float(np.max(np.abs(rebuilt))))
    assert latent.absorption_gap(X, W, heads, causal) == float(np.max(np.abs(rebuilt - absorbed)))
    assert np.max(np.abs(rebuilt - absorbed)) <= 1e3 * EPS * scale


@settings(max_examples=examples(30), deadline=None)
@given(X=ndarrays_of_shape((4, 3)), seed=st.integers(0, 1000))
def test_absorbed_equals_rebuilt_for_any_inputs(X, seed):
    _, W = random_layer(np.random.default_rng(seed), T=4, d=3)
    rebuilt = latent.attention_rebuilt(X, W, 2)
    assert np.allclose(latent.attention_absorbed(X, W, 2), rebuilt, rtol=1e-12, atol=1e-12)


def test_the_tiny_examples_gaps_are_rounding_at_every_latent_width():
    gaps = latent.tiny_gaps(0)
    assert len(gaps) == len(latent.LATENT_WIDTHS)
    for d_c, gap in zip(latent.LATENT_WIDTHS, gaps, strict=True):
        X, W = latent.tiny_weights(d_c, 0)
        out = torch_rebuilt(X, W, latent.TINY_HEADS)
        assert X.shape == (latent.TINY_T, latent.TINY_D) and W.W_dkv.shape == (8, d_c)
        assert gap == latent.absorption_gap(X, W, latent.TINY_HEADS)
        assert 0 <= gap <= 64 * EPS * np.max(np.abs(out))


def test_a_new_seed_draws_a_new_example_and_the_same_seed_the_same():
    X0, _ = latent.tiny_weights(4, 0)
    X0b, _ = latent.tiny_weights(4, 0)
    X1, _ = latent.tiny_weights(4, 1)
    assert np.array_equal(X0, X0b) and not np.array_equal(X0, X1)
    assert latent.tiny_gaps(3) == latent.tiny_gaps(3)


# --- the cache: Table 1 ------------------------------------------------------------------------


def test_deepseek_v2_caches_nine_halves_of_a_head_per_layer():
    # Table 1: MLA caches (d_c + d_h^R) l elements, "≈ 9/2 d_h l" with d_c = 4 d_h, d_h^R = d_h/2.
    ds = DEEPSEEK_V2
    assert ds.kv_latent == 4 * ds.head_dim and 2 * ds.rope_head_dim == ds.head_dim
    per_layer = latent.cache_elements_per_token(
        "mla", ds.head_dim, kv_latent=ds.kv_latent, rope_head_dim=ds.rope_head_dim
    )
    assert per_layer == 9 * ds.head_dim / 2
    over_layers = latent.cache_elements_per_token(
        "mla", ds.head_dim, ds.layers, kv_latent=ds.kv_latent, rope_head_dim=ds.rope_head_dim
    )
    assert over_layers == per_layer * ds.layers


def test_mla_equals_gqa_with_two_and_a_quarter_groups():
    # Section 2.1.4: "equal to GQA with only 2.25 groups".
    assert latent.equivalent_groups(DEEPSEEK_V2) == 2.25
    mla = latent.cache_comparison()[3]
    per_group = latent.cache_elements_per_token("gqa", DEEPSEEK_V2.head_dim, groups=1)
    assert mla.per_layer == latent.equivalent_groups() * per_group


def _cached_numel_per_token(kind, T=5, d=16, heads=4, hd=2, groups=2, d_c=3, d_r=2):
    """What a torch layer would keep for T tokens, divided by T: keys and values, or the
    latent and the shared rotary key (its rotation does not change its size)."""
    x = torch.randn(T, d, dtype=torch.float64)
    kv_heads = {"mha": heads, "gqa": groups, "mqa": 1}.get(kind)
    if kv_heads is not None:
        K = x @ torch.randn(d, kv_heads * hd, dtype=torch.float64)
        V = x @ torch.randn(d, kv_heads * hd, dtype=torch.float64)
        return (K.numel() + V.numel()) // T
    C = x @ torch.randn(d, d_c, dtype=torch.float64)
    k_rope = x @ torch.randn(d, d_r, dtype=torch.float64)
    return (C.numel() + k_rope.numel()) // T


@pytest.mark.parametrize(
    "kind, sizes",
    [
        ("mha", {"heads": 4}),
        ("gqa", {"groups": 2, "heads": 4}),
        ("mqa", {}),
        ("mla", {"kv_latent": 3, "rope_head_dim": 2}),
    ],
)
def test_table_1_counts_what_a_layer_keeps(kind, sizes):
    assert latent.cache_elements_per_token(kind, 2, **sizes) == _cached_numel_per_token(kind)
    assert latent.cache_elements_per_token(kind, 2, 7, **sizes) == 7 * _cached_numel_per_token(kind)


def test_one_group_is_mqa_and_as_many_groups_as_heads_is_mha():
    hd, H = DEEPSEEK_V2.head_dim, DEEPSEEK_V2.heads
    mqa = latent.cache_elements_per_token("mqa", hd)
    assert latent.cache_elements_per_token("gqa", hd, groups=1, heads=H) == mqa
    mha = latent.cache_elements_per_token("mha", hd, heads=H)
    assert latent.cache_elements_per_token("gqa", hd, groups=H, heads=H) == mha


def test_the_comparison_at_deepseek_v2s_sizes():
    ds = DEEPSEEK_V2
    rows = latent.cache_comparison()
    assert [r.kind for r in rows] == list(latent.KINDS)
    assert rows[1].label == f"GQA ({latent.GQA_GROUPS} groups)"
    for row in rows:
        sizes = {
            "mha": {"heads": ds.heads},
            "gqa": {"groups": latent.GQA_GROUPS},
            "mqa": {},
            "mla": {"kv_latent": ds.kv_latent, "rope_head_dim": ds.rope_head_dim},
        }[row.kind]
        assert row.per_layer == latent.cache_elements_per_token(row.kind, ds.head_dim, **sizes)
        assert row.per_token == latent.cache_elements_per_token(
            row.kind, ds.head_dim, ds.layers, **sizes
        )
        assert row.token_bytes == row.per_token * ds.bytes_per_value
        assert row.context_bytes == row.token_bytes * ds.context
        assert row.of_mha == row.per_token / rows[0].per_token
    assert rows[0].of_mha == 1.0
    assert rows[2].per_layer < rows[3].per_layer < rows[1].per_layer < rows[0].per_layer


def test_the_comparisons_controls_move_only_their_own_rows():
    base = latent.cache_comparison()
    wide = latent.cache_comparison(kv_latent=1024, groups=16, context=4096)
    assert wide[3].per_layer == 1024 + DEEPSEEK_V2.rope_head_dim
    assert wide[1].per_layer == 2 * base[1].per_layer
    assert wide[0].per_layer == base[0].per_layer and wide[2].per_layer == base[2].per_layer
    assert wide[0].context_bytes == base[0].token_bytes * 4096


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"kind": "mla2", "head_dim": 4}, "kind must be one of mha, gqa, mqa, mla"),
        ({"kind": "mha", "head_dim": 4}, "mha needs heads"),
        ({"kind": "gqa", "head_dim": 4}, "gqa needs groups"),
        ({"kind": "mla", "head_dim": 4, "kv_latent": 8}, "mla needs rope_head_dim"),
        ({"kind": "mqa", "head_dim": 4, "groups": 2}, "mqa does not use groups"),
        ({"kind": "mha", "head_dim": 4, "heads": 4, "kv_latent": 2}, "does not use kv_latent"),
        ({"kind": "gqa", "head_dim": 4, "groups": 3, "heads": 8}, "3 groups cannot split 8"),
        ({"kind": "mha", "head_dim": 0, "heads": 4}, "head_dim must be at least 1"),
        ({"kind": "mha", "head_dim": 4, "heads": 2.5}, "heads must be an integer"),
        ({"kind": "mqa", "head_dim": 4, "layers": 0}, "layers must be at least 1"),
    ],
)
def test_bad_cache_questions_say_how_to_ask(kwargs, message):
    with pytest.raises(ValueError, match=message):
        latent.cache_elements_per_token(**kwargs)


def test_bad_comparison_controls_are_refused():
    with pytest.raises(ValueError, match="cannot split 128"):
        latent.cache_comparison(groups=3)
    with pytest.raises(ValueError, match="kv_latent must be at least 1"):
        latent.cache_comparison(kv_latent=0)
    with pytest.raises(ValueError, match="context must be an integer"):
        latent.cache_comparison(context=1.5)


def test_mismatched_matrices_name_the_mismatch():
    X, W = random_layer(np.random.default_rng(9))
    with pytest.raises(ValueError, match="W_dkv has 6 rows but X has d = 5"):
        latent.latent_kv(X[:, :5], W.W_dkv, W.W_uk, W.W_uv, 2)
    with pytest.raises(ValueError, match="W_uk has 2 rows but the latent has d_c = 3"):
        latent.latent_kv(X, W.W_dkv, W.W_uk[:2], W.W_uv, 2)
    with pytest.raises(ValueError, match="cannot be split into 4 heads"):
        latent.latent_kv(X, W.W_dkv, W.W_uk, W.W_uv, 4)
    with pytest.raises(ValueError, match="W_q and W_uk need one width"):
        latent.attention_rebuilt(X, W._replace(W_q=W.W_q[:, :4]), 2)
    with pytest.raises(ValueError, match="W_o has 7 rows but the values are 8 wide"):
        latent.attention_absorbed(X, W._replace(W_o=np.ones((7, 5))), 2)
    with pytest.raises(ValueError, match="five matrices"):
        latent.absorb(W[:4], 2)
    with pytest.raises(ValueError, match="X contains NaN"):
        latent.attention_rebuilt(np.full_like(X, np.nan), W, 2)
    with pytest.raises(ValueError, match="seed must be a whole number"):
        latent.tiny_weights(4, -1)
