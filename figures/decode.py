"""Decoding is reading: the bytes each generated token costs, and the speed they allow (post 3).

A real model on a cited card (an H100 SXM, its datasheet's memory bandwidth): each decode step
reads every weight once for the whole batch and every sequence's key/value cache, and bytes
over bandwidth bounds the step's time. The line plot gives the tokens per second that bound
allows at every context length, for the model's own key/value heads and for a key/value head
per query head; the bars split one step's bytes into weights and cache. The readouts print
the counts behind them (attention.decode).
"""

from typing import NamedTuple

from attention.decode import (
    EXAMPLE_BATCH,
    EXAMPLE_TOKENS,
    H100_SXM_BANDWIDTH,
    as_multi_head,
    cache_read,
    cache_share,
    parameters,
    step_bytes,
    tokens_per_second,
    weight_bytes,
)
from attention.kv_cache import kv_cache_bytes
from attention.models import LLAMA2_7B, LLAMA2_70B, LLAMA3_8B, MISTRAL_7B, by_name
from figurekit.controls import Choice, Switch
from figurekit.drawing import ACCENT, MUTED, Drawing, html, readout_html
from formatting import bytes_text, integer, num, percent

TITLE = "Decoding is reading"
CAPTION = (
    "Pick a model and move the context and the batch: each new token reads every weight and "
    "every sequence's cache, so the tokens per second fall as the cache grows. Batches share "
    "the weights' reading; switch to a key/value head per query head to see what grouped-query "
    "attention saves at every step."
)
DECODERS = (LLAMA2_7B, MISTRAL_7B, LLAMA3_8B, LLAMA2_70B)
# Context lengths: powers of two from one token to 128 Ki tokens; batches up to 256.
LENGTHS: tuple[int, ...] = tuple(2**k for k in range(18))
BATCHES: tuple[int, ...] = tuple(2**k for k in range(9))
CARD = "H100 SXM"


class State(NamedTuple):
    """The model, the tokens already in each sequence, the batch, and whether every query head
    has its own key/value head."""

    model: str = MISTRAL_7B.name
    tokens: int = EXAMPLE_TOKENS
    batch: int = EXAMPLE_BATCH
    multi_head: bool = False


DEFAULT = State()
CONTROLS = (
    Choice("model", "Model", [m.name for m in DECODERS], style="menu"),
    Choice("tokens", "Tokens in each sequence", {integer(n): n for n in LENGTHS}, style="slider"),
    Choice("batch", "Sequences in the batch", {integer(n): n for n in BATCHES}, style="slider"),
    Switch("multi_head", "A key/value head per query head"),
)


def shown_model(state: State):
    """The model as the figure computes it: as released, or with G = H."""
    model = by_name(state.model)
    return as_multi_head(model) if state.multi_head else model


def readouts(state: State) -> list[tuple[str, str, str]]:
    """The counts behind the plots, for the model as shown."""
    model = shown_model(state)
    read = cache_read(model, state.tokens)
    cache = kv_cache_bytes(model, read, state.batch)
    total = step_bytes(model, state.tokens, state.batch)
    rate = tokens_per_second(model, state.tokens, state.batch)
    seconds = total / H100_SXM_BANDWIDTH
    other = as_multi_head(model) if not state.multi_head else by_name(state.model)
    other_rate = tokens_per_second(other, state.tokens, state.batch)
    heads = "one per query head" if state.multi_head else "as released"
    return [
        ("kv-heads", "key/value heads G", f"{integer(model.kv_heads)} ({heads})"),
        ("parameters", "weights", integer(parameters(model))),
        (
            "weight-bytes",
            f"weights, {model.bytes_per_value} bytes each",
            bytes_text(weight_bytes(model)),
        ),
        (
            "cache-tokens",
            "tokens of cache each step reads",
            f"{integer(read)} of {integer(state.tokens)}",
        ),
        ("cache-bytes", f"cache read, {integer(state.batch)} sequences", bytes_text(cache)),
        ("step-bytes", "bytes read per step", bytes_text(total)),
        ("cache-share", "of which cache", percent(cache_share(model, state.tokens, state.batch))),
        (
            "step-time",
            f"a step on an {CARD}, at least",
            f"{num(seconds * 1e3, 2)} ms",
        ),
        ("rate", "tokens per second, at most", integer(round(rate))),
        ("rate-each", "per sequence", num(rate / state.batch, 1)),
        ("other-rate", f"with G = {integer(other.kv_heads)} instead", integer(round(other_rate))),
    ]


def rate_columns(state: State) -> dict:
    """The bound on tokens per second at every length: the model as released and with a
    key/value head per query head, at the chosen batch."""
    model = by_name(state.model)
    mha = as_multi_head(model)
    return {
        "tokens": list(LENGTHS),
        "released": [tokens_per_second(model, n, state.batch) for n in LENGTHS],
        "multi_head": [tokens_per_second(mha, n, state.batch) for n in LENGTHS],
    }


def point_columns(state: State) -> dict:
    """The chosen length on the line of the model as shown."""
    rate = tokens_per_second(shown_model(state), state.tokens, state.batch)
    return {"tokens": [state.tokens], "rate": [rate]}


def bytes_columns(state: State) -> dict:
    """One step's bytes, in GiB: the weights, and the cache of the whole batch."""
    model = shown_model(state)
    cache = kv_cache_bytes(model, cache_read(model, state.tokens), state.batch)
    parts = [weight_bytes(model), cache]
    return {
        "part": ["weights", "cache"],
        "gib": [b / 2**30 for b in parts],
        "text": [f" {bytes_text(b)}" for b in parts],
        "color": [MUTED, ACCENT],
    }


def draw(state: State) -> Drawing:
    """The bound against the length, one step's bytes, and the readout."""
    columns = bytes_columns(state)
    return {
        "rates": {"data": rate_columns(state)},
        "point": {"data": point_columns(state)},
        "rates.title": {"text": f"tokens/s at most: {state.model}, batch {integer(state.batch)}"},
        "bytes": {"data": columns},
        "bytes.x_range": {"end": 1.6 * max(columns["gib"])},  # room for the labels
        "readout": html(readout_html(readouts(state))),
    }
