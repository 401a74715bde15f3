"""kv_cache: post 3, section 1. Same floats with and without the cache; the cache's bytes."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import kv_cache as kv
from attention.cost import attention_multiplies
from attention.fixtures import book_inputs
from attention.heads import causal_attention
from attention.models import DEEPSEEK_V2, GPT2_SMALL, LLAMA2_7B, MODELS, Model
from attention.torch_rng import weights_section_3_5
from tests.strategies import examples, ndarrays_of_shape

X = book_inputs()
W = weights_section_3_5()


@st.composite
def layers(draw, max_T=9, max_d=5):
    """Tokens (T, d_in) and three projections: (d_in, d_k), (d_in, d_k), (d_in, d_v)."""
    T, d_in, d_k, d_v = (draw(st.integers(1, n)) for n in (max_T, max_d, max_d, max_d))
    return (
        draw(ndarrays_of_shape((T, d_in))),
        draw(ndarrays_of_shape((d_in, d_k), -1.0, 1.0)),
        draw(ndarrays_of_shape((d_in, d_k), -1.0, 1.0)),
        draw(ndarrays_of_shape((d_in, d_v), -1.0, 1.0)),
    )


# --- the torch oracle ---------------------------------------------------------------------------


def torch_generate(X, W_query, W_key, W_value, cache: bool) -> np.ndarray:
    """Generation in torch ops, the usual way: (T, d_v), row t the output at step t."""
    x, Wq, Wk, Wv = (torch.tensor(a, dtype=torch.float64) for a in (X, W_query, W_key, W_value))
    d_k, rows = Wk.shape[1], []
    keys, values = x[:0] @ Wk, x[:0] @ Wv  # empty caches, (0, d_k) and (0, d_v)
    for t in range(1, x.shape[0] + 1):
        if cache:
            keys = torch.cat([keys, x[t - 1 : t] @ Wk])
            values = torch.cat([values, x[t - 1 : t] @ Wv])
            scores = (x[t - 1 : t] @ Wq) @ keys.T
            weights = torch.softmax(scores / d_k**0.5, dim=-1)
            rows.append((weights @ values)[0])
        else:
            prefix = x[:t]
            q, k, v = prefix @ Wq, prefix @ Wk, prefix @ Wv
            scores = (q @ k.T).masked_fill(torch.ones(t, t).triu(1).bool(), -torch.inf)
            rows.append((torch.softmax(scores / d_k**0.5, dim=-1) @ v)[-1])
    return torch.stack(rows).numpy()


def outputs(steps: list[kv.Step]) -> np.ndarray:
    return np.stack([step.output for step in steps])


@pytest.mark.parametrize("cache", [False, True])
def test_the_book_generation_matches_torch(cache):
    generate = kv.generate_with_cache if cache else kv.generate_without_cache
    ours = outputs(generate(X, *W))
    assert np.allclose(ours, torch_generate(X, *W, cache=cache), rtol=0, atol=1e-15)


@settings(max_examples=examples(60), deadline=None)
@given(layers())
def test_both_routes_match_torch_to_float64_rounding(layer):
    expected = torch_generate(*layer, cache=True)
    assert np.allclose(expected, torch_generate(*layer, cache=False), rtol=1e-12, atol=1e-13)
    for generate in (kv.generate_with_cache, kv.generate_without_cache):
        assert np.allclose(outputs(generate(*layer)), expected, rtol=1e-12, atol=1e-13)


def test_the_steps_are_the_causal_layers_rows():
    # Step t's output is row t of section 3.5's causal attention over the whole sentence.
    full = causal_attention(X, *W)
    assert np.allclose(outputs(kv.generate_with_cache(X, *W)), full, rtol=0, atol=1e-15)


# --- the same floats ----------------------------------------------------------------------------


def test_the_book_routes_give_identical_floats():
    without, with_cache = kv.book_generation()
    assert len(without) == len(with_cache) == X.shape[0]
    for a, b in zip(without, with_cache, strict=True):
        assert np.array_equal(a.output, b.output)
    assert kv.largest_difference(list(without), list(with_cache)) == 0.0


@settings(max_examples=examples(300), deadline=None)
@given(layers())
def test_the_routes_give_identical_floats_for_any_layer(layer):
    without, with_cache = kv.generate_without_cache(*layer), kv.generate_with_cache(*layer)
    for a, b in zip(without, with_cache, strict=True):
        assert np.array_equal(a.output, b.output)


@settings(max_examples=examples(100), deadline=None)
@given(st.integers(1, 12), st.integers(1, 9), st.integers(1, 9), st.integers(0, 2**32 - 1))
def test_the_fixed_order_products_do_not_depend_on_the_rows_beside(T, d_in, d_out, seed):
    # The property the identity rests on: row i of a product is the same computed alone.
    rng = np.random.default_rng(seed)
    A, B = rng.normal(size=(T, d_in)), rng.normal(size=(d_in, d_out))
    full = kv.project(A, B)
    assert np.allclose(full, A @ B, rtol=1e-13, atol=1e-13)
    for i in range(T):
        assert np.array_equal(kv.project(A[i : i + 1], B)[0], full[i])
    K = rng.normal(size=(d_out, d_in))
    assert np.array_equal(kv.dot_rows(A, K)[-1], kv.dot_rows(A[-1:], K)[0])


def test_the_cache_is_extended_not_changed():
    K, V = np.zeros((2, 2)), np.ones((2, 2))
    K2, V2 = kv.extend_cache(K, V, X[0], W[1], W[2])
    assert K2.shape == V2.shape == (3, 2)
    assert np.array_equal(K, np.zeros((2, 2))) and np.array_equal(V, np.ones((2, 2)))
    assert np.array_equal(K2[-1], kv.project(X[:1], W[1])[0])


# --- the work -----------------------------------------------------------------------------------


def test_without_a_cache_each_step_is_the_whole_layer_again():
    d_in, d_k, d_v = X.shape[1], W[1].shape[1], W[2].shape[1]
    for step in kv.generate_without_cache(X, *W):
        assert step.work == attention_multiplies(step.t, d_in, d_k, d_v)
        assert step.computed["keys"] == tuple(range(step.t))


def test_with_a_cache_each_step_is_one_row():
    d_in, d_k, d_v = X.shape[1], W[1].shape[1], W[2].shape[1]
    steps = kv.generate_with_cache(X, *W)
    for step in steps:
        assert step.work == {
            "queries": d_in * d_k,
            "keys": d_in * d_k,
            "values": d_in * d_v,
            "scores": step.t * d_k,
            "context": step.t * d_v,
        }
        assert step.computed == dict.fromkeys(("queries", "keys", "values"), (step.t - 1,))
    # Linear per step: equal increments of d_k + d_v.
    per_step = [sum(s.work.values()) for s in steps]
    assert set(np.diff(per_step)) == {d_k + d_v}


@given(st.integers(1, 60), st.integers(1, 8), st.integers(1, 8), st.integers(1, 8))
def test_totals_are_quadratic_and_linear_sums(T, d_in, d_k, d_v):
    # sum_t of the per-step counts in closed form: sum t = T(T+1)/2, sum t^2 = T(T+1)(2T+1)/6.
    s1, s2 = T * (T + 1) // 2, T * (T + 1) * (2 * T + 1) // 6
    without = sum(sum(kv.step_work(t, d_in, d_k, d_v, False).values()) for t in range(1, T + 1))
    with_cache = sum(sum(kv.step_work(t, d_in, d_k, d_v, True).values()) for t in range(1, T + 1))
    assert without == s1 * d_in * (2 * d_k + d_v) + s2 * (d_k + d_v)
    assert with_cache == T * d_in * (2 * d_k + d_v) + s1 * (d_k + d_v)


def test_total_work_adds_every_stage_of_every_step():
    without, with_cache = kv.book_generation()
    assert kv.total_work(list(without)) == sum(
        sum(attention_multiplies(t, 3, 2, 2).values()) for t in range(1, 7)
    )
    assert kv.total_work(list(with_cache)) < kv.total_work(list(without))


# --- bytes --------------------------------------------------------------------------------------

DTYPES = {4: torch.float32, 2: torch.bfloat16}


def torch_cache_bytes(model: Model, tokens: int, batch: int = 1) -> int:
    """Build the cache as a model holds it, (batch, kv_heads, tokens, head_dim) for K and V in
    every layer, on the meta device (no memory), and count its bytes."""
    shape = (batch, model.kv_heads, tokens, model.head_dim)
    dtype = DTYPES[model.bytes_per_value]
    cache = [
        (
            torch.empty(shape, dtype=dtype, device="meta"),
            torch.empty(shape, dtype=dtype, device="meta"),
        )
        for _ in range(model.layers)
    ]
    return sum(t.nelement() * t.element_size() for pair in cache for t in pair)


TINY = Model("tiny", 2, 4, 2, 3, 12, 16, 2, "a test configuration")


@pytest.mark.parametrize("batch", [1, 3])
@pytest.mark.parametrize("tokens", [1, 5, 16])
def test_the_formula_counts_the_tensors_bytes_for_a_tiny_model(tokens, batch):
    assert kv.kv_cache_bytes(TINY, tokens, batch) == torch_cache_bytes(TINY, tokens, batch)


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.name)
def test_the_formula_counts_the_tensors_bytes_for_each_model(model):
    assert kv.kv_cache_bytes(model, 1) == torch_cache_bytes(model, 1)
    assert kv.kv_cache_bytes(model, model.context) == torch_cache_bytes(model, model.context)
    assert kv.kv_cache_bytes(model, model.context, 4) == 4 * kv.kv_cache_bytes(model, model.context)


def test_llama2_7b_holds_half_a_mebibyte_per_token_and_2_gib_at_4096():
    # From the published configuration: 2 x 32 layers x 32 heads x 128 x 2 bytes.
    assert kv.kv_cache_bytes(LLAMA2_7B, 1) == 2 * 32 * 32 * 128 * 2 == 2**19
    assert kv.kv_cache_bytes(LLAMA2_7B, 4096) == 2**31


def test_gpt2_small_caches_1536_floats_a_layer_per_token():
    # 2 x 768 numbers a layer (12 heads of 64), in float32.
    assert kv.kv_values_per_token(GPT2_SMALL) == 2 * 12 * 768
    assert kv.kv_cache_bytes(GPT2_SMALL, 1) == 2 * 12 * 768 * 4


def test_the_cache_is_linear_in_tokens_and_batch():
    for model in MODELS:
        per_token = kv.kv_cache_bytes(model, 1)
        assert kv.kv_cache_bytes(model, 1000, 2) == 2000 * per_token
        assert per_token == kv.kv_values_per_token(model) * model.bytes_per_value


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: kv.kv_cache_bytes(LLAMA2_7B, 0), "tokens must be at least 1"),
        (lambda: kv.kv_cache_bytes(LLAMA2_7B, 2.5), "tokens must be an integer"),
        (lambda: kv.kv_cache_bytes(LLAMA2_7B, 8, 0), "batch must be at least 1"),
        (lambda: kv.kv_cache_bytes(DEEPSEEK_V2, 8), "latent"),
        (lambda: kv.generate_with_cache(X, W[0][:2], W[1], W[2]), "W_query has 2 rows"),
        (lambda: kv.generate_without_cache(X, W[0], W[1][:, :1], W[2]), "one width d_k"),
        (lambda: kv.generate_with_cache(X[0], *W), "X must be 2-D"),
        (lambda: kv.generate_with_cache(X * np.nan, *W), "NaN"),
        (lambda: kv.generate_with_cache(X * 1e200, *W), "overflowed"),
        (lambda: kv.attend(np.ones((3, 2)), np.ones((2, 2)), np.ones((2, 2))), "3 queries"),
        (lambda: kv.largest_difference([], kv.book_generation()[0]), "compare equal runs"),
    ],
)
def test_bad_calls_say_how_to_fix_them(call, words):
    with pytest.raises(ValueError, match=words):
        call()
