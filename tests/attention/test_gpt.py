"""gpt: post 3, section 11. The small GPT is chapter 4's architecture (its logits are PyTorch's
for the same weights, and the book's 124M model has the book's parameter count); it writes the
same tokens with the cache and without; the work it counts is the work its products do."""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import gpt
from tests.strategies import examples


@st.composite
def configs(draw):
    """A small config: widths that split into the heads, a context with room for a prompt."""
    heads = draw(st.integers(1, 4))
    return gpt.Config(
        vocab=draw(st.integers(2, 40)),
        context=draw(st.integers(8, 40)),
        width=heads * draw(st.integers(1, 6)),
        heads=heads,
        layers=draw(st.integers(1, 3)),
    )


@st.composite
def models_and_prompts(draw):
    config = draw(configs())
    prompt = draw(
        st.lists(st.integers(0, config.vocab - 1), min_size=1, max_size=config.context // 2)
    )
    n = draw(st.integers(1, config.context - len(prompt)))
    return gpt.init(config, draw(st.integers(0, 2**32 - 1))), np.array(prompt), n


# --- the torch oracle ---------------------------------------------------------------------------


def torch_logits(weights: gpt.Weights, ids: np.ndarray) -> np.ndarray:
    """The whole sequence through the same weights in torch's own ops. (T,) -> (T, vocab)"""
    t = lambda a: torch.tensor(np.asarray(a), dtype=torch.float64)  # noqa: E731
    config, T = weights.config, len(ids)
    d, H = config.width, config.heads
    with torch.no_grad():
        x = F.embedding(torch.tensor(ids), t(weights.tok_emb)) + t(weights.pos_emb)[:T]
        for b in weights.blocks:
            h = F.layer_norm(x, (d,), t(b.norm1[0]), t(b.norm1[1]), eps=1e-5)
            q, k, v = (
                F.linear(h, t(W).T).view(T, H, d // H).transpose(0, 1)
                for W in (b.W_query, b.W_key, b.W_value)
            )
            context = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + F.linear(context.transpose(0, 1).reshape(T, d), t(b.W_out).T, t(b.b_out))
            h = F.layer_norm(x, (d,), t(b.norm2[0]), t(b.norm2[1]), eps=1e-5)
            h = F.gelu(F.linear(h, t(b.W_up).T, t(b.b_up)), approximate="tanh")
            x = x + F.linear(h, t(b.W_down).T, t(b.b_down))
        x = F.layer_norm(x, (d,), t(weights.final_norm[0]), t(weights.final_norm[1]), eps=1e-5)
        return F.linear(x, t(weights.W_head).T).numpy()


@settings(max_examples=examples(40), deadline=None)
@given(models_and_prompts())
def test_the_logits_are_torchs_for_the_same_weights(case):
    weights, prompt, _ = case
    np.testing.assert_allclose(
        gpt.forward(weights, prompt), torch_logits(weights, prompt), rtol=1e-10, atol=1e-10
    )


@settings(max_examples=examples(40), deadline=None)
@given(models_and_prompts())
def test_the_cache_writes_the_same_tokens_from_the_same_logits(case):
    """Each cached step's logits are the last row of the whole sequence's, to rounding, and
    greedy decoding picks the same token from both."""
    weights, prompt, n = case
    cached = gpt.generate(weights, prompt, n, cached=True)
    assert cached == gpt.generate(weights, prompt, n, cached=False)
    cache, new = gpt.Cache(weights.config.layers), prompt
    ids = list(prompt)
    for token in cached:
        step = gpt.forward(weights, np.array(new), cache)[-1]
        np.testing.assert_allclose(step, gpt.forward(weights, np.array(ids))[-1], atol=1e-10)
        ids.append(token)
        new = [token]


def test_the_books_124m_model_has_the_books_parameter_count():
    """Chapter 4 prints 163,009,536 parameters for GPT_CONFIG_124M (its output head is not
    tied to the token embedding; tied, it would be the 124M of the name)."""
    assert gpt.parameters(gpt.BOOK_124M) == 163_009_536
    assert gpt.parameters(gpt.BOOK_124M) - 50_257 * 768 == 124_412_160


@settings(max_examples=examples(20), deadline=None)
@given(configs())
def test_the_parameter_count_is_every_weight_drawn(config):
    weights = gpt.init(config)
    arrays = list(gpt._arrays(weights))
    assert gpt.parameters(config) == sum(a.size for a in arrays)
    assert all(not a.flags.writeable for a in arrays)


def test_the_weights_follow_torchs_default_distributions():
    """Embeddings N(0, 1); a linear layer's weights within +-1/sqrt(fan_in); norms 1 and 0."""
    weights = gpt.init(gpt.Config(width=128, layers=1))
    assert abs(weights.tok_emb.std() - 1) < 0.05 and abs(weights.pos_emb.mean()) < 0.05
    block = weights.blocks[0]
    for W in (block.W_query, block.W_up, block.W_down, weights.W_head):
        bound = 1 / math.sqrt(W.shape[0])
        assert np.abs(W).max() <= bound and np.abs(W).max() > 0.95 * bound
    assert (block.norm1[0] == 1).all() and (block.norm1[1] == 0).all()
    assert gpt.init(gpt.SMALL) is gpt.init(gpt.SMALL)  # drawn once


# --- the work counted -------------------------------------------------------------------------


class Counted(np.ndarray):
    """An array whose matrix products add their multiplications to ``Counted.total``."""

    total = 0

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        plain = lambda a: a.view(np.ndarray) if isinstance(a, Counted) else a  # noqa: E731
        arrays = [plain(a) for a in inputs]
        if "out" in kwargs:
            kwargs["out"] = tuple(plain(a) for a in kwargs["out"])
        if ufunc is np.matmul:
            a, b = arrays
            Counted.total += math.prod(np.broadcast_shapes(a.shape[:-2], b.shape[:-2])) * (
                a.shape[-2] * a.shape[-1] * b.shape[-1]
            )
        return _counted(getattr(ufunc, method)(*arrays, **kwargs))

    def __array_function__(self, func, types, args, kwargs):
        """np.where, np.concatenate and the like keep their results counted."""
        return _counted(super().__array_function__(func, (np.ndarray,), args, kwargs))


def _counted(result):
    return result.view(Counted) if isinstance(result, np.ndarray) else result


def counted(weights: gpt.Weights) -> gpt.Weights:
    view = lambda a: a.view(Counted)  # noqa: E731
    blocks = tuple(
        gpt.Block(*(tuple(map(view, p)) if isinstance(p, tuple) else view(p) for p in block))
        for block in weights.blocks
    )
    return weights._replace(
        tok_emb=view(weights.tok_emb),
        pos_emb=view(weights.pos_emb),
        blocks=blocks,
        final_norm=tuple(map(view, weights.final_norm)),
        W_head=view(weights.W_head),
    )


@settings(max_examples=examples(25), deadline=None)
@given(models_and_prompts(), st.booleans())
def test_the_work_per_token_is_what_the_products_multiply(case, cached):
    weights, prompt, n = case
    steps = []
    Counted.total = 0
    for _ in gpt.write(counted(weights), prompt, n, cached):
        steps.append(Counted.total)
        Counted.total = 0
    assert steps == gpt.work_per_token(weights.config, len(prompt), n, cached)


@settings(max_examples=examples(25), deadline=None)
@given(models_and_prompts())
def test_the_cache_holds_what_cache_bytes_says(case):
    weights, prompt, n = case
    cache = gpt.Cache(weights.config.layers)
    ids = list(prompt)
    gpt.forward(weights, np.array(ids), cache)
    for token in gpt.generate(weights, prompt, n, cached=True)[:-1]:
        gpt.forward(weights, np.array([token]), cache)
    assert cache.length == len(prompt) + n - 1
    assert cache.bytes() == gpt.cache_bytes(weights.config, cache.length)


# --- text and refusals ----------------------------------------------------------------------


def test_a_token_is_a_printable_character():
    text = "Your journey starts with one step"
    assert gpt.decode(gpt.encode(text)) == text
    assert len(gpt.VOCAB) == gpt.SMALL.vocab == 95


@pytest.mark.parametrize(
    ("call", "says"),
    [
        (lambda: gpt.encode(""), "at least one character"),
        (lambda: gpt.encode("naïve"), "'ï' is not in it"),
        (lambda: gpt.check_config(gpt.Config(width=10, heads=4)), "multiple of the heads"),
        (lambda: gpt.check_config(gpt.Config(layers=0)), "layers"),
        (lambda: gpt.forward(gpt.init(), np.zeros(257, dtype=int)), "write fewer tokens"),
        (lambda: gpt.generate(gpt.init(), np.zeros(3, dtype=int), 0, True), "n must be at least 1"),
        (lambda: gpt.forward(gpt.init(), np.array([3, -1])), "from 0 to 94 .* got -1"),
        (lambda: gpt.forward(gpt.init(), np.array([95])), "from 0 to 94 .* got 95"),
        (lambda: gpt.forward(gpt.init(), np.array([], dtype=int)), "non-empty 1-D"),
        (lambda: gpt.forward(gpt.init(), np.array([[1, 2]])), "non-empty 1-D"),
        (lambda: gpt.forward(gpt.init(), np.array([1.0, 2.0])), "must be integers"),
        (lambda: gpt.write(gpt.init(), [1] * 200, 58, True), "needs 257 positions"),
        (lambda: gpt.write(gpt.init(), [1], 3, "no"), "cached must be True or False"),
        (lambda: gpt.init(seed=1.5), "seed must be a non-negative integer"),
        (lambda: gpt.decode([-1]), "got -1"),
        (lambda: gpt.decode([95]), "got 95"),
        (lambda: gpt.forward(gpt.init(), np.array([1]), gpt.Cache(2)), "another model"),
        (lambda: gpt.total_work(gpt.SMALL, 3, 0, True), "n must be at least 1"),
        (lambda: gpt.work_per_token(gpt.SMALL, 0, 4, True), "prompt must be at least 1"),
        (lambda: gpt.step_multiplies(gpt.SMALL, 5, 2), "new 5 > total 2"),
        (lambda: gpt.cache_bytes(gpt.SMALL, -3), "tokens must be at least 1"),
    ],
)
def test_a_call_it_cannot_do_says_how_to_fix_it(call, says):
    """Refused when called: write checks before its first token, not partway through."""
    with pytest.raises(ValueError, match=says):
        call()


def test_a_cache_from_a_model_of_another_width_is_refused():
    weights, cache = gpt.init(), gpt.Cache(gpt.SMALL.layers)
    gpt.forward(gpt.init(gpt.Config(width=32)), np.array([1, 2]), cache)
    with pytest.raises(ValueError, match="another model"):
        gpt.forward(weights, np.array([3]), cache)


def test_writing_to_the_last_position_is_allowed():
    """The last token written is never run, so prompt + n - 1 positions are enough."""
    weights = gpt.init()
    assert len(gpt.generate(weights, [1] * 200, 57, cached=True)) == 57
