"""A small GPT that writes text, with the key/value cache and without it (post 3, 11).

Chapter 4 of the book builds GPT-2's architecture around chapter 3's attention: token and
position embeddings added; ``layers`` blocks, each a layer norm, causal multi-head attention
and a residual, then a layer norm, a feed-forward of width 4d with GELU and a residual; a
final layer norm; a linear output head over the vocabulary (``Config``; the book's 124M model
is ``BOOK_124M``). Here it is at a size a browser runs in float64, its weights drawn, seeded,
from the distributions PyTorch's defaults draw an untrained model's from (an embedding from
N(0, 1), a linear layer's weights and biases from U(-1/sqrt(fan_in), 1/sqrt(fan_in)), a layer
norm's scale 1 and shift 0). Untrained, it writes nonsense, as the book's does before chapter
5 trains it; what matters here is that it writes the same nonsense with the cache and without.

Greedy generation (``write``) feeds the model its sequence and appends the most likely next
token, again and again. Without the cache each step runs the whole sequence through every
layer; with it, the first step runs the prompt and keeps every layer's keys and values
(``Cache``), and each later step runs the newest token alone, attending to the kept keys.

Characters stand in for GPT-2's tokenizer: the vocabulary is the 95 printable ASCII
characters (``VOCAB``), so a token is a character.

Shapes: ids (T,); x (T, d); a layer's cached K and V (heads, T, d / heads); logits (T, vocab).
"""

import math
import numbers
from collections.abc import Iterator
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from attention._checks import check_positive_int

VOCAB = "".join(chr(code) for code in range(32, 127))
EPS = 1e-5  # the layer norm's, as chapter 4's LayerNorm has it
SEED = 123  # the number the book passes to torch.manual_seed; numpy draws its own numbers from it
# The post's example: the book's sentence as a prompt, and how many tokens to write after it.
EXAMPLE_PROMPT = "Your journey starts with one step"
EXAMPLE_TOKENS = 32


class Config(NamedTuple):
    """A GPT's size: chapter 4's GPT_CONFIG_124M keys, as vocab_size, context_length,
    emb_dim, n_heads and n_layers."""

    vocab: int = len(VOCAB)
    context: int = 256
    width: int = 64
    heads: int = 4
    layers: int = 4


BOOK_124M = Config(vocab=50_257, context=1_024, width=768, heads=12, layers=12)
SMALL = Config()

# The book repository's bonus material on the cache measured its 124M model writing 200 tokens
# after a 4-token prompt ("Hello, I am" in GPT-2's tokenizer) on a Mac Mini M4's CPU: tokens
# per second without and with the cache. Its scripts divide all 204 tokens, the prompt's too,
# by the time, which leaves the ratio of the two as it is; and its cached loop runs one pass
# more than ``write`` does (on the last token), which moves its counted ratio by under 0.1%.
BONUS_SOURCE = "https://github.com/rasbt/LLMs-from-scratch/blob/d11c2ea/ch04/03_kv-cache/README.md"
BONUS_TOKENS_PER_SECOND = {"without": 27, "with": 144}
BONUS_PROMPT_TOKENS = 4
BONUS_NEW_TOKENS = 200


class Block(NamedTuple):
    """One transformer block's weights; matrices multiply rows on the right, (d_in, d_out)."""

    norm1: tuple[np.ndarray, np.ndarray]  # scale, shift: (d,), (d,)
    W_query: np.ndarray  # (d, d)
    W_key: np.ndarray  # (d, d)
    W_value: np.ndarray  # (d, d)
    W_out: np.ndarray  # (d, d)
    b_out: np.ndarray  # (d,)
    norm2: tuple[np.ndarray, np.ndarray]
    W_up: np.ndarray  # (d, 4d)
    b_up: np.ndarray  # (4d,)
    W_down: np.ndarray  # (4d, d)
    b_down: np.ndarray  # (d,)


class Weights(NamedTuple):
    """A GPT's weights: embeddings, blocks, the final norm and the output head."""

    config: Config
    tok_emb: np.ndarray  # (vocab, d)
    pos_emb: np.ndarray  # (context, d)
    blocks: tuple[Block, ...]
    final_norm: tuple[np.ndarray, np.ndarray]
    W_head: np.ndarray  # (d, vocab), no bias


def check_config(config: Config) -> Config:
    """``config`` with every size a positive int; ValueError saying which is not."""
    if not isinstance(config, Config):
        raise ValueError(f"config must be an attention.gpt.Config, got {type(config).__name__}")
    for name, value in config._asdict().items():
        check_positive_int(value, name)
    if config.width % config.heads:
        raise ValueError(
            f"width {config.width} does not split into {config.heads} heads; pick a width "
            "that is a multiple of the heads"
        )
    return config


def _linear(rng: np.random.Generator, d_in: int, d_out: int) -> tuple[np.ndarray, np.ndarray]:
    bound = 1 / math.sqrt(d_in)
    return rng.uniform(-bound, bound, (d_in, d_out)), rng.uniform(-bound, bound, d_out)


def _norm(d: int) -> tuple[np.ndarray, np.ndarray]:
    return np.ones(d), np.zeros(d)


def init(config: Config = SMALL, seed: int = SEED) -> Weights:
    """Untrained weights for ``config``, drawn from numpy's generator seeded with ``seed``.
    Cached: the same config and seed give the same (read-only) arrays, however they are
    passed."""
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return _init(check_config(config), int(seed))


@lru_cache(maxsize=4)
def _init(config: Config, seed: int) -> Weights:
    V, T, d = config.vocab, config.context, config.width
    rng = np.random.default_rng(seed)
    tok_emb, pos_emb = rng.standard_normal((V, d)), rng.standard_normal((T, d))
    blocks = []
    for _ in range(config.layers):
        (W_q, _), (W_k, _), (W_v, _) = (_linear(rng, d, d) for _ in range(3))  # no qkv bias
        W_out, b_out = _linear(rng, d, d)
        W_up, b_up = _linear(rng, d, 4 * d)
        W_down, b_down = _linear(rng, 4 * d, d)
        blocks.append(
            Block(_norm(d), W_q, W_k, W_v, W_out, b_out, _norm(d), W_up, b_up, W_down, b_down)
        )
    W_head, _ = _linear(rng, d, V)
    weights = Weights(config, tok_emb, pos_emb, tuple(blocks), _norm(d), W_head)
    for array in _arrays(weights):
        array.flags.writeable = False
    return weights


def _arrays(weights: Weights) -> Iterator[np.ndarray]:
    yield from (weights.tok_emb, weights.pos_emb, *weights.final_norm, weights.W_head)
    for block in weights.blocks:
        for part in block:
            yield from part if isinstance(part, tuple) else (part,)


def parameters(config: Config) -> int:
    """How many numbers the weights hold (chapter 4 counts the 124M model's so)."""
    V, T, d, L = check_config(config).vocab, config.context, config.width, config.layers
    per_block = 4 * d * d + d + 2 * (4 * d * d) + 4 * d + d + 2 * 2 * d
    return V * d + T * d + L * per_block + 2 * d + d * V


def encode(text: str) -> np.ndarray:
    """The token ids of ``text``, one per character. -> (T,)"""
    if not isinstance(text, str) or not text:
        raise ValueError("the prompt must be some text: at least one character")
    if bad := sorted({c for c in text if c not in VOCAB}):
        raise ValueError(
            f"the vocabulary is the printable ASCII characters; {''.join(bad)!r} is not in it"
        )
    return np.array([VOCAB.index(c) for c in text])


def decode(ids) -> str:
    """The text of token ids. (T,) -> str"""
    return "".join(VOCAB[i] for i in check_ids(ids, SMALL).tolist())


def layer_norm(x: np.ndarray, scale: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """Each row to mean 0 and variance 1 (the biased variance), then scaled and shifted.
    (T, d) -> (T, d)"""
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return scale * (x - mean) / np.sqrt(var + EPS) + shift


def gelu(x: np.ndarray) -> np.ndarray:
    """GELU in the tanh form chapter 4 uses (GPT-2's). (...) -> (...)"""
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


def softmax(scores: np.ndarray) -> np.ndarray:
    """Along the last axis, the row's largest score subtracted first. (..., n) -> (..., n)"""
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


class Cache:
    """Every layer's keys and values so far, (heads, t, d_head) each, and how many tokens."""

    def __init__(self, layers: int) -> None:
        self.keys: list[np.ndarray | None] = [None] * layers
        self.values: list[np.ndarray | None] = [None] * layers
        self.length = 0

    def extend(self, layer: int, K: np.ndarray, V: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Append a step's new keys and values to layer ``layer``'s; all of them so far."""
        if self.keys[layer] is not None:
            K = np.concatenate([self.keys[layer], K], axis=1)
            V = np.concatenate([self.values[layer], V], axis=1)
        self.keys[layer], self.values[layer] = K, V
        return K, V

    def bytes(self) -> int:
        """What the cache holds, in bytes."""
        return sum(a.nbytes for a in (*self.keys, *self.values) if a is not None)


def split_heads(x: np.ndarray, heads: int) -> np.ndarray:
    """(T, d) -> (heads, T, d / heads)"""
    T, d = x.shape
    return x.reshape(T, heads, d // heads).transpose(1, 0, 2)


def attention(
    x: np.ndarray, block: Block, heads: int, start: int, cache: Cache | None, layer: int
) -> np.ndarray:
    """Causal multi-head attention of the new rows ``x``, at positions start, start+1, ...;
    with a cache, over every key it holds too. (T_new, d) -> (T_new, d)"""
    T_new, d = x.shape
    Q = split_heads(x @ block.W_query, heads)
    K = split_heads(x @ block.W_key, heads)
    V = split_heads(x @ block.W_value, heads)
    if cache is not None:
        K, V = cache.extend(layer, K, V)
    scores = Q @ K.transpose(0, 2, 1) / math.sqrt(d // heads)  # (heads, T_new, T)
    queries = start + np.arange(T_new)[:, None]
    scores = np.where(np.arange(K.shape[1])[None, :] > queries, -np.inf, scores)
    context = softmax(scores) @ V  # (heads, T_new, d_head)
    return context.transpose(1, 0, 2).reshape(T_new, d) @ block.W_out + block.b_out


def forward(weights: Weights, ids: np.ndarray, cache: Cache | None = None) -> np.ndarray:
    """The logits of every new token: ``ids`` follow the cache's tokens (none without one).
    (T_new,) -> (T_new, vocab)"""
    config = weights.config
    ids = check_ids(ids, config)
    kept = (config.heads, config.width // config.heads)  # a cached K's (heads, _, d_head)
    if cache is not None and (
        len(cache.keys) != config.layers
        or any(K is not None and K.shape[::2] != kept for K in cache.keys)
    ):
        raise ValueError(
            "this cache was filled for another model; give each run a fresh "
            "Cache(weights.config.layers)"
        )
    start = cache.length if cache is not None else 0
    if start + len(ids) > config.context:
        raise ValueError(
            f"the model has {config.context} positions and this would need {start + len(ids)}; "
            "write fewer tokens or use a shorter prompt"
        )
    x = weights.tok_emb[ids] + weights.pos_emb[start : start + len(ids)]
    for layer, block in enumerate(weights.blocks):
        x = x + attention(layer_norm(x, *block.norm1), block, config.heads, start, cache, layer)
        hidden = gelu(layer_norm(x, *block.norm2) @ block.W_up + block.b_up)
        x = x + hidden @ block.W_down + block.b_down
    if cache is not None:
        cache.length += len(ids)
    return layer_norm(x, *weights.final_norm) @ weights.W_head


def check_ids(ids, config: Config) -> np.ndarray:
    """``ids`` as token ids of ``config``'s vocabulary; ValueError saying what to change.
    (T,) -> (T,)"""
    arr = np.asarray(ids)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(
            f"token ids must be a non-empty 1-D sequence, got shape {arr.shape}; "
            "gpt.encode turns text into one"
        )
    if not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"token ids must be integers, got {arr.dtype} values")
    if (bad := arr[(arr < 0) | (arr >= config.vocab)]).size:
        raise ValueError(
            f"token ids run from 0 to {config.vocab - 1} (the vocabulary's size less one); "
            f"got {int(bad[0])}"
        )
    return arr


def write(weights: Weights, prompt, n: int, cached: bool) -> Iterator[int]:
    """The ``n`` tokens greedy decoding appends to ``prompt``, each as soon as it is chosen.
    The call is checked before the first token: ids, ``n``, and room in the context (the last
    token written is never run, so the model needs prompt + n - 1 positions)."""
    config = weights.config
    prompt, n = check_ids(prompt, config), check_positive_int(n, "n")
    if not isinstance(cached, bool):
        raise ValueError(f"cached must be True or False, got {cached!r}")
    if (need := len(prompt) + n - 1) > config.context:
        raise ValueError(
            f"writing {n} tokens after a {len(prompt)}-token prompt needs {need} positions and "
            f"the model has {config.context}; write fewer tokens or use a shorter prompt"
        )
    return _write(weights, prompt.tolist(), n, cached)


def _write(weights: Weights, ids: list[int], n: int, cached: bool) -> Iterator[int]:
    cache = Cache(weights.config.layers) if cached else None
    step = ids  # what the next pass runs: the prompt first; then, with the cache, one token
    for _ in range(n):
        token = int(np.argmax(forward(weights, np.array(step), cache)[-1]))
        ids = [*ids, token]
        step = [token] if cached else ids
        yield token


def generate(weights: Weights, prompt: np.ndarray, n: int, cached: bool) -> list[int]:
    """``write``'s tokens as a list."""
    return list(write(weights, prompt, n, cached))


def step_multiplies(config: Config, new: int, total: int) -> int:
    """Multiplications in the matrix products of a forward pass that runs ``new`` tokens, the
    last ``new`` of ``total`` (queries against every key up to ``total``, masked ones
    included, as the uncached pass computes them): per layer 12 new d^2 for the projections
    and the feed-forward and 2 new total d for the scores and the weighted sum; new d vocab
    for the logits. The norms, GELU and the 1/sqrt(d_head) scaling are left out."""
    d, L, V = check_config(config).width, config.layers, config.vocab
    new, total = check_positive_int(new, "new"), check_positive_int(total, "total")
    if new > total:
        raise ValueError(
            f"a pass runs the last `new` of `total` tokens; got new {new} > total {total}"
        )
    return L * (12 * new * d * d + 2 * new * total * d) + new * d * V


def work_per_token(config: Config, prompt: int, n: int, cached: bool) -> list[int]:
    """Multiplications for each of the ``n`` tokens written after a ``prompt``-token prompt."""
    prompt, n = check_positive_int(prompt, "prompt"), check_positive_int(n, "n")
    lengths = [prompt + k for k in range(n)]  # tokens the model has when it writes each one
    if cached:
        return [step_multiplies(config, prompt if k == 0 else 1, t) for k, t in enumerate(lengths)]
    return [step_multiplies(config, t, t) for t in lengths]


def total_work(config: Config, prompt: int, n: int, cached: bool) -> int:
    """All the multiplications of writing ``n`` tokens after a ``prompt``-token prompt."""
    return sum(work_per_token(config, prompt, n, cached))


def cache_bytes(config: Config, tokens: int) -> int:
    """What the cache holds after ``tokens`` tokens: K and V of every layer, float64."""
    tokens = check_positive_int(tokens, "tokens")
    return 2 * check_config(config).layers * config.width * tokens * 8
