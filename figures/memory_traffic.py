"""Why FlashAttention is fast: what one head's attention moves through the GPU's memory (post 3).

For the reader's length T, head width d and on-chip SRAM, the line plot counts the numbers
Algorithm 0 (standard attention) and Algorithm 1 (FlashAttention) read from HBM and write to
it at every length; the bars split the chosen length's traffic into what each moves and why;
the readouts give the blocks, the passes and the least time at the HBM bandwidth of the
paper's Figure 1 (attention.hbm).
"""

from typing import NamedTuple

from attention.hbm import (
    BYTES_PER_NUMBER,
    EXAMPLE_D,
    EXAMPLE_T,
    HBM_BANDWIDTH,
    SM_SRAM_BYTES,
    block_sizes,
    flash_once,
    flash_traffic,
    key_blocks,
    score_traffic,
    seconds,
    sram_numbers,
    standard_traffic,
)
from figurekit.controls import Choice
from figurekit.drawing import ACCENT, INK, MUTED, Drawing, html, readouts_tabled
from formatting import bytes_text, decimal_text, duration_text, integer, num

TITLE = "Trips to the GPU's memory"
CAPTION = (
    "Move the length, the head width and the on-chip memory: standard attention writes the "
    "T × T scores to HBM and reads them back, FlashAttention reads Q and O once for each block "
    "of keys that fits on the chip. The gap grows with the length until the passes, too, grow "
    "as T squared."
)
# Lengths: powers of two from 256 to 128 Ki tokens.
LENGTHS: tuple[int, ...] = tuple(2**k for k in range(8, 18))
WIDTHS = (32, 64, 128, 256)
# On-chip memory in KiB, up to the A100's 192 per streaming multiprocessor.
SRAM_KIB = (16, 32, 48, 64, 96, 128, 192)


class State(NamedTuple):
    """One head's length and width, and the SRAM a block must fit in, in KiB."""

    tokens: int = EXAMPLE_T
    width: int = EXAMPLE_D
    sram_kib: int = SM_SRAM_BYTES // 1024


DEFAULT = State()
CONTROLS = (
    Choice("tokens", "Tokens T", {integer(n): n for n in LENGTHS}, style="slider"),
    Choice("width", "Head width d", {str(d): d for d in WIDTHS}, style="labelled"),
    Choice("sram_kib", "On-chip SRAM M, KiB", {str(k): k for k in SRAM_KIB}, style="slider"),
)


def numbers(state: State) -> int:
    """M: the numbers the SRAM holds, 16 bits each."""
    return sram_numbers(state.sram_kib * 1024)


ALGORITHMS = {"standard": "standard", "flash": "FlashAttention"}
AT = f"at {decimal_text(HBM_BANDWIDTH, 'B/s')}, at least"
TABLE = ("read", "written", "in all", AT)


def _moved(count: int) -> str:
    return bytes_text(count * BYTES_PER_NUMBER)


def _ratio(x: float) -> str:
    return f"{num(x, 1 if x >= 1 else 2)}×"


def readouts(state: State) -> list[tuple[str, str, str]]:
    """The counts behind the plots for the chosen T, d and SRAM; bytes at 16 bits a number."""
    T, d, M = state.tokens, state.width, numbers(state)
    B_r, B_c = block_sizes(d, M)
    standard, flash = standard_traffic(T, d), flash_traffic(T, d, M)
    rows = []
    for name, traffic in (("standard", standard), ("flash", flash)):
        label = ALGORITHMS[name]
        rows += [
            (f"{name}-reads", f"{label}: read", _moved(sum(traffic.reads.values()))),
            (f"{name}-writes", f"{label}: written", _moved(sum(traffic.writes.values()))),
            (f"{name}-total", f"{label}: in all", _moved(traffic.total)),
            (f"{name}-time", f"{label}: {AT}", duration_text(seconds(traffic.total))),
        ]
    return [
        ("sram", "M, numbers the SRAM holds", integer(M)),
        ("blocks", "blocks: B_r queries × B_c keys", f"{integer(B_r)} × {integer(B_c)}"),
        ("passes", "key blocks T_c: passes over Q and O", integer(key_blocks(T, d, M))),
        *rows,
        ("scores", "of standard's, S and P", _moved(score_traffic(T))),
        ("ratio", "standard ÷ FlashAttention", _ratio(standard.total / flash.total)),
    ]


def readout(state: State) -> str:
    """The two algorithms' traffic as a table, then the rest as a list."""
    keys = ("reads", "writes", "total", "time")
    rows = [(label, [f"{name}-{k}" for k in keys]) for name, label in ALGORITHMS.items()]
    return readouts_tabled(readouts(state), "one head's HBM traffic", TABLE, rows)


def line_columns(state: State) -> dict:
    """Bytes moved at every length, both algorithms, at the chosen d and SRAM."""
    M = numbers(state)
    return {
        "tokens": list(LENGTHS),
        "standard": [standard_traffic(n, state.width).total * BYTES_PER_NUMBER for n in LENGTHS],
        "flash": [flash_traffic(n, state.width, M).total * BYTES_PER_NUMBER for n in LENGTHS],
    }


def point_columns(state: State) -> dict:
    """The chosen length on both lines."""
    T, d = state.tokens, state.width
    moved = [standard_traffic(T, d).total, flash_traffic(T, d, numbers(state)).total]
    return {"tokens": [T] * 2, "bytes": [n * BYTES_PER_NUMBER for n in moved]}


PARTS = (
    "standard: Q, K, V and O",
    "standard: S and P",
    "Flash: K, V; O, ℓ, m set",
    "Flash: passes over Q, O, ℓ, m",
)


def part_columns(state: State) -> dict:
    """What each algorithm moves, in MiB: the inputs and output against the score matrices
    (standard), the one reading of K and V against the passes over the queries (Flash)."""
    T, d, M = state.tokens, state.width, numbers(state)
    standard, flash = standard_traffic(T, d), flash_traffic(T, d, M)
    scores, once = score_traffic(T), flash_once(T, d)
    counts = [standard.total - scores, scores, once, flash.total - once]
    return {
        "part": list(PARTS),
        "mib": [c * BYTES_PER_NUMBER / 2**20 for c in counts],
        "text": [f" {_moved(c)}" for c in counts],
        "color": [MUTED, ACCENT, MUTED, INK],
    }


def draw(state: State) -> Drawing:
    """Traffic against the length, the chosen length's parts, and the readout."""
    parts = part_columns(state)
    return {
        "lines": {"data": line_columns(state)},
        "point": {"data": point_columns(state)},
        "lines.title": {
            "text": f"HBM traffic, one head: d = {state.width}, SRAM {state.sram_kib} KiB"
        },
        "parts": {"data": parts},
        "parts.x_range": {"end": 1.6 * max(parts["mib"])},  # room for the labels
        "readout": html(readout(state)),
    }
