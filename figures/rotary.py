"""Rotary position embeddings: one pair of a query and a key, turned by their positions (post 3).

The query and key are one head's width (128, as in Llama 2 7B and Llama 3 8B), drawn once from
a seeded normal generator. The left plot shows pair i of both: the query turned by m theta_i,
the key by n theta_i (solid), and both turned again by s theta_i (dashed). The readout compares
the whole score q_m . k_n with the score at m + s, n + s, to the last printed digit. The right
plot shows every pair's wavelength (tokens per full turn) for the chosen base, the other base
muted, and the model's context length dashed.
"""

import math
from typing import NamedTuple

import numpy as np

from attention.models import LLAMA2_7B, LLAMA3_8B, by_name
from attention.rotary import (
    angle_between,
    example_query_key,
    frequencies,
    full_turns_within,
    pair,
    rotate,
    shifted_scores,
    wavelengths,
)
from figurekit.controls import Choice, Slider
from figurekit.drawing import TOKEN_COLORS, Drawing, html, readout_html
from formatting import error_text, integer, num, sci

TITLE = "Rotary embeddings: a score that sees only the offset"
CAPTION = (
    "Drag m and n: the angle between the query's and the key's arrows follows m − n alone. "
    "Drag “Move both by s”: both arrows turn together, the angle holds, and the score moves only "
    "in its last digits, by float64 rounding that grows with the position. Pick another pair: "
    "pair 1 turns a radian per token, the last pair hardly turns across the context; switch to "
    "Llama 3's base and the slow pairs slow down further."
)

assert LLAMA2_7B.head_dim == LLAMA3_8B.head_dim, "the figure shows one head width for both bases"
D = LLAMA3_8B.head_dim  # 128: one head of Llama 2 7B or Llama 3 8B
PAIRS = D // 2
SEED = 0
Q, K = example_query_key(D, SEED)
MAX_POSITION = LLAMA3_8B.context - 1  # the longer of the two contexts, positions from 0
MODELS = (LLAMA2_7B, LLAMA3_8B)
# "Llama 2 (base 10,000)" -> "Llama 2 7B": the model whose base and context the figure uses.
BASE_OPTIONS = {f"{m.name.rsplit(' ', 1)[0]} (base {integer(m.rope_base)})": m.name for m in MODELS}
Q_COLOR, K_COLOR = TOKEN_COLORS[0], TOKEN_COLORS[5]


# Readouts that print float64 rounding itself: their last digits depend on the maths library
# that computed them, so the build's CPython and the reader's browser may print different ones.
ROUNDING = frozenset({"score", "shifted", "difference", "norm"})


class State(NamedTuple):
    """The controls: query position m, key position n, shift s, pair i, the model's base."""

    m: int = 5
    n: int = 2
    s: int = 1000
    i: int = 1
    model: str = LLAMA2_7B.name


DEFAULT = State()
CONTROLS = (
    Slider("m", "Query position m", start=0, end=MAX_POSITION),
    Slider("n", "Key position n", start=0, end=MAX_POSITION),
    Slider("s", "Move both by s", start=0, end=MAX_POSITION),
    Slider("i", "Pair i", start=1, end=PAIRS),
    Choice("model", "Base of the frequencies", BASE_OPTIONS),
)


def difference_text(x: float) -> str:
    """A difference that is rounding alone: '0 (exact)', or its size in scientific notation."""
    return error_text(x) if x == 0.0 else sci(x, 1)


def rate_text(theta: float) -> str:
    """Radians per token: 1.0000, 0.0422, 1.3e-5."""
    return num(theta, 4) if theta >= 0.01 else sci(theta, 1)


def length_text(w: float) -> str:
    """Tokens per turn: 6.3, 562.3, 54,410."""
    return num(w, 1) if w < 1000 else integer(round(w))


class Picture(NamedTuple):
    """What the figure shows for a state, computed once per draw."""

    base: float
    context: int
    q_m: np.ndarray  # (D,) the query turned by m
    k_n: np.ndarray  # (D,) the key turned by n
    q_ms: np.ndarray  # (D,) ... by m + s
    k_ns: np.ndarray  # (D,) ... by n + s
    score: float  # q_m . k_n
    shifted: float  # q_{m+s} . k_{n+s}


def picture(state: State) -> Picture:
    """The rotated vectors and both scores for ``state`` (ValueError for a pair out of range)."""
    model = by_name(state.model)
    base = model.rope_base
    pair(Q, state.i)  # checks the pair index
    score, shifted = shifted_scores(Q, K, state.m, state.n, [0, state.s], base)
    return Picture(
        base,
        model.context,
        rotate(Q, state.m, base),
        rotate(K, state.n, base),
        rotate(Q, state.m + state.s, base),
        rotate(K, state.n + state.s, base),
        float(score),
        float(shifted),
    )


def readouts(state: State) -> list[tuple[str, str, str]]:
    """The readout rows: offset, pair i's rate and angle, both scores, their difference."""
    p = picture(state)
    theta = frequencies(D, p.base)[state.i - 1]
    angle = angle_between(pair(p.q_m, state.i), pair(p.k_n, state.i))
    turns = full_turns_within(D, p.context, p.base)
    return [
        ("offset", "offset m − n", integer(state.m - state.n)),
        ("theta", f"pair {state.i}: θ, radians per token", rate_text(theta)),
        (
            "wavelength",
            f"pair {state.i}: tokens per full turn",
            length_text(wavelengths(D, p.base)[state.i - 1]),
        ),
        (
            "angle",
            f"pair {state.i}: angle from k at n to q at m",
            f"{num(math.degrees(angle), 1)}°",
        ),
        ("score", f"score q_m · k_n (all {D} coordinates)", num(p.score, 15)),
        ("shifted", "score at m + s and n + s", num(p.shifted, 15)),
        (
            "difference",
            "their difference (0 in exact arithmetic)",
            difference_text(p.shifted - p.score),
        ),
        (
            "norm",
            "‖q turned by m‖ − ‖q‖ (rotations keep length)",
            difference_text(float(np.linalg.norm(p.q_m) - np.linalg.norm(Q))),
        ),
        ("turns", f"pairs turning fully within {integer(p.context)} tokens", f"{turns} of {PAIRS}"),
    ]


# The arrows show each pair's direction, which is all the angle needs, each at a length of its
# own: a pair of a random vector can be nearly zero long, and arrows of one length would lay
# their heads and labels over each other whenever two point the same way.
RADII = (1.0, 0.55, 0.8, 0.35)  # q at m, k at n, q at m + s, k at n + s
ARC_RADIUS = 0.2


def _circle(radius: float, points: int = 73) -> dict:
    t = np.linspace(0.0, 2.0 * np.pi, points)
    return {"x": radius * np.cos(t), "y": radius * np.sin(t)}


def _direction(v: np.ndarray) -> np.ndarray:
    """``v`` scaled to length 1 (a zero vector stays zero)."""
    length = float(np.linalg.norm(v))
    return v / length if length > 0.0 else v


def _arrows(state: State, p: Picture) -> dict:
    """Four arrows from the origin along pair i's directions: q at m, k at n (solid), q at m + s,
    k at n + s (dashed); the pair's own coordinates beside them, for the data table."""
    pairs = [pair(v, state.i) for v in (p.q_m, p.k_n, p.q_ms, p.k_ns)]
    tips = [r * _direction(v) for r, v in zip(RADII, pairs, strict=True)]
    return {
        "x0": [0.0] * 4,
        "y0": [0.0] * 4,
        "x1": [float(t[0]) for t in tips],
        "y1": [float(t[1]) for t in tips],
        "px": [float(v[0]) for v in pairs],
        "py": [float(v[1]) for v in pairs],
        "color": [Q_COLOR, K_COLOR, Q_COLOR, K_COLOR],
        "dash": ["solid", "solid", "dashed", "dashed"],
        "text": ["q at m", "k at n", "q at m+s", "k at n+s"],
    }


def _arc(state: State, p: Picture) -> dict:
    """The angle from k at n to q at m, as an arc near the origin."""
    a_k = math.atan2(*pair(p.k_n, state.i)[::-1])
    delta = angle_between(pair(p.q_m, state.i), pair(p.k_n, state.i))
    start, end = (a_k, a_k + delta) if delta >= 0 else (a_k + delta, a_k)
    return {"x": [0.0], "y": [0.0], "r": [ARC_RADIUS], "start": [start], "end": [end]}


def draw(state: State) -> Drawing:
    """The pair's plane (circles, arrows, the angle's arc), every pair's wavelength at both
    bases, the pair chosen, the context line, and the readout."""
    p = picture(state)
    rows = readouts(state)
    pairs = list(range(1, PAIRS + 1))
    other_base = next(m.rope_base for m in MODELS if m.rope_base != p.base)
    return {
        "q_circle": {"data": _circle(RADII[0])},
        "k_circle": {"data": _circle(RADII[1])},
        "arrows": {"data": _arrows(state, p)},
        "arc": {"data": _arc(state, p)},
        "chosen": {"data": {"i": pairs, "w": wavelengths(D, p.base).tolist()}},
        "other": {"data": {"i": pairs, "w": wavelengths(D, other_base).tolist()}},
        "here": {"data": {"i": [state.i], "w": [float(wavelengths(D, p.base)[state.i - 1])]}},
        "context": {"location": p.context},
        "readout": html(readout_html(rows)),
    }
