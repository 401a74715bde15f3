"""Local and global layers together: the cache of Gemma 2 and Gemma 3 against the context
(post 3).

The line plot gives one sequence's cache at every length, for the model's own mix of
sliding-window and full layers and for the same model with every layer full; the strip shows
which layer is which; the readouts count both at the chosen length (attention.interleaved).
"""

from typing import NamedTuple

from attention.interleaved import (
    GLOBAL,
    LOCAL,
    cache_bytes,
    global_share,
    layer_counts,
    layer_kinds,
)
from attention.models import GEMMA3_12B, INTERLEAVED, Model, by_name
from figurekit.controls import Choice, Switch
from figurekit.drawing import ACCENT, MUTED, Drawing, html, readout_html
from formatting import bytes_text, integer, percent

TITLE = "Local and global layers"
CAPTION = (
    "Pick a model and move the length: its sliding-window layers stop growing at the window, "
    "its full layers do not, so the full layers' share of the cache grows with the context. "
    "Switch every layer to full attention to see what the mix saves."
)
# Lengths: powers of two from 1 Ki to 128 Ki tokens.
LENGTHS: tuple[int, ...] = tuple(2**k for k in range(10, 18))
COLORS = {LOCAL: MUTED, GLOBAL: ACCENT}


class State(NamedTuple):
    """The model, the tokens in the sequence, and whether every layer is made global."""

    model: str = GEMMA3_12B.name
    tokens: int = 2**15
    every_layer_global: bool = False


DEFAULT = State()
CONTROLS = (
    Choice("model", "Model", [m.name for m in INTERLEAVED], style="menu"),
    Choice("tokens", "Tokens T", {integer(n): n for n in LENGTHS}, style="slider"),
    Switch("every_layer_global", "Every layer global"),
)


def model(state: State) -> Model:
    """The model the menu chose."""
    return by_name(state.model, INTERLEAVED)


def readouts(state: State) -> list[tuple[str, str, str]]:
    """The layers and the two caches at the chosen length, one sequence, 16-bit numbers."""
    m, T = model(state), state.tokens
    n_local, n_global = layer_counts(m)
    mixed = cache_bytes(m, T)
    full = cache_bytes(m, T, every_layer_global=True)
    shown = full if state.every_layer_global else mixed
    past = f"; {integer(T)} is past it" if T > m.context else ""
    return [
        (
            "layers",
            "layers",
            f"{integer(n_local)} local (window {integer(m.window)}) + {integer(n_global)} global",
        ),
        ("context", "trained context", f"{integer(m.context)} tokens{past}"),
        ("shown", "cache, one sequence, as shown", bytes_text(shown)),
        ("mixed", "with its local layers", bytes_text(mixed)),
        ("full", "with every layer global", bytes_text(full)),
        ("saved", "the mix keeps", f"{percent(mixed / full)} of it"),
        ("global-share", "of the mix, in global layers", percent(global_share(m, T))),
    ]


def line_columns(state: State) -> dict:
    """The cache in GiB at every length: the model's mix and every layer global."""
    m = model(state)
    return {
        "tokens": list(LENGTHS),
        "mixed": [cache_bytes(m, n) / 2**30 for n in LENGTHS],
        "full": [cache_bytes(m, n, every_layer_global=True) / 2**30 for n in LENGTHS],
    }


def point_columns(state: State) -> dict:
    """The chosen length on the line of the model as shown."""
    m = model(state)
    n_bytes = cache_bytes(m, state.tokens, state.every_layer_global)
    return {"tokens": [state.tokens], "gib": [n_bytes / 2**30]}


def strip_columns(state: State) -> dict:
    """One cell per layer, first to last, coloured by its kind as shown."""
    kinds = layer_kinds(model(state))
    if state.every_layer_global:
        kinds = (GLOBAL,) * len(kinds)
    return {
        "layer": list(range(1, len(kinds) + 1)),  # counted from 1, as the series counts
        "kind": list(kinds),
        "color": [COLORS[kind] for kind in kinds],
    }


def draw(state: State) -> Drawing:
    """The caches against the length, the layer strip, and the readout."""
    m = model(state)
    return {
        "lines": {"data": line_columns(state)},
        "point": {"data": point_columns(state)},
        "lines.title": {"text": f"cache of one sequence: {m.name}"},
        "context": {"location": m.context},
        "strip": {"data": strip_columns(state)},
        "strip.x_range": {"end": m.layers + 0.5},
        "readout": html(readout_html(readouts(state))),
    }
