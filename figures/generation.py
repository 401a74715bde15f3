"""A GPT writing in the reader's browser, with the key/value cache and without (post 3).

The model is attention.gpt's small GPT (chapter 4's architecture, untrained, seeded). What the
figure shows from the state alone is the work: the multiplications each way costs for the
reader's prompt and N, counted. Pressing "Write and time" has the reader's own browser write
the N tokens twice, with the cache and without, and time each token: the two texts, whether
they are the same, and the tokens per second of each. Those times belong to the reader's
machine, so the page never shows them before the reader asks (``measure``).
"""

import time
from collections.abc import Callable
from html import escape
from itertools import accumulate
from typing import NamedTuple

from attention.gpt import (
    EXAMPLE_PROMPT,
    EXAMPLE_TOKENS,
    SMALL,
    cache_bytes,
    decode,
    encode,
    init,
    parameters,
    total_work,
    work_per_token,
    write,
)
from figurekit.controls import Choice, Measure, Text
from figurekit.drawing import Drawing, html, readouts_tabled
from formatting import bytes_text, duration_text, integer, num, percent

TITLE = "A GPT writing in your browser"
CAPTION = (
    "Type a prompt, pick how many tokens to write, and press Write and time: your browser runs "
    "the small GPT twice, with the key/value cache and without, and times every token. The "
    "text should be the same; the time is not."
)
LENGTHS = (16, 32, 64, 128)
# The longest prompt the figure takes. The model's positions would allow 129 characters before
# N = 128, 21 times the default's work without the cache; 64 makes it 13 times, so the slowest
# timing a reader can ask for stays within a phone's reach.
PROMPT_MAX = 64


class State(NamedTuple):
    """The prompt, and how many tokens the model writes after it."""

    prompt: str = EXAMPLE_PROMPT
    tokens: int = EXAMPLE_TOKENS


DEFAULT = State()
CONTROLS = (
    Text("prompt", "Prompt"),
    Choice("tokens", "Tokens to write N", {str(n): n for n in LENGTHS}, style="slider"),
)
MEASURES = (Measure("Write and time"),)
WAYS = {"cached": "with the cache", "uncached": "without"}
NOT_YET = "not timed"
NOT_WRITTEN = "not written yet"
PRESS = "press Write and time"


class Run(NamedTuple):
    """One generation as the reader's browser ran it: the tokens, and each one's seconds."""

    tokens: list[int]
    seconds: list[float]


def checked(state: State) -> list[int]:
    """The prompt's token ids; ValueError saying what to change."""
    ids = encode(state.prompt).tolist()
    if len(ids) > PROMPT_MAX:
        raise ValueError(
            f"this figure writes after a prompt of at most {PROMPT_MAX} characters, and this "
            f"one has {len(ids)}; shorten it"
        )
    return ids


def explain(err: ValueError) -> str:
    """The core's message as the figure's sentence."""
    text = str(err)
    return text[:1].upper() + text[1:] + "."


def timed(prompt: list[int], n: int, cached: bool, clock: Callable[[], float]) -> Run:
    """Write ``n`` tokens after ``prompt``, timing each with ``clock`` (seconds)."""
    tokens, seconds = [], []
    weights = init(SMALL)
    before = clock()
    for token in write(weights, prompt, n, cached):
        after = clock()
        tokens.append(token)
        seconds.append(after - before)
        before = after
    return Run(tokens, seconds)


def runs(state: State, clock: Callable[[], float] = time.perf_counter) -> dict[str, Run]:
    """Both generations, timed: a few tokens each way first, untimed, so that neither pays
    for the first use of the code (the browser optimises what it has run a few times)."""
    prompt = checked(state)
    for cached in (True, False):
        list(write(init(SMALL), prompt, 8, cached))
    return _check_clock({way: timed(prompt, state.tokens, way == "cached", clock) for way in WAYS})


def _rate(run: Run) -> float:
    return len(run.tokens) / sum(run.seconds)


def _check_clock(measured: dict[str, Run]) -> dict[str, Run]:
    """``measured``, if the clock moved while each way wrote; ValueError otherwise (a browser
    may round its clock to a millisecond, and a short run can fall inside one tick)."""
    if still := [WAYS[way] for way, run in measured.items() if sum(run.seconds) <= 0]:
        raise ValueError(
            f"your browser's clock did not move while the model wrote {' or '.join(still)}; "
            "pick a larger N and press Write and time again"
        )
    return measured


def readouts(state: State, measured: dict | None = None) -> list[tuple[str, str, str]]:
    """The model, the work each way, and once measured the time and the speed each way."""
    prompt, n = checked(state), state.tokens
    rows = [
        (
            "model",
            "the model",
            f"{SMALL.layers} layers, {SMALL.heads} heads, d = {SMALL.width}, "
            f"{integer(parameters(SMALL))} weights",
        ),
        ("prompt", "prompt tokens (characters)", integer(len(prompt))),
    ]
    work = {way: total_work(SMALL, len(prompt), n, way == "cached") for way in WAYS}
    for way in WAYS:
        run = measured[way] if measured else None
        rows += [
            (f"{way}-work", f"{way}: multiplications", integer(work[way])),
            (f"{way}-time", f"{way}: time", duration_text(sum(run.seconds)) if run else NOT_YET),
            (
                f"{way}-rate",
                f"{way}: tokens per second",
                integer(round(_rate(run))) if run else NOT_YET,
            ),
        ]
    speed = _rate(measured["cached"]) / _rate(measured["uncached"]) if measured else None
    first = work_per_token(SMALL, len(prompt), n, cached=True)[0] / work["cached"]
    if measured:
        seconds = measured["cached"].seconds
        first_text = (
            f"{percent(first, 0)} of the work, {percent(seconds[0] / sum(seconds), 0)} of the time"
        )
    else:
        first_text = f"{percent(first, 0)} of the work"
    rows += [
        ("work-ratio", "work without ÷ with", f"{num(work['uncached'] / work['cached'], 1)}×"),
        ("speed-up", "speed with ÷ without", f"{num(speed, 1)}×" if speed else NOT_YET),
        ("prompt-pass", "with the cache, the first token (it runs the prompt)", first_text),
        (
            "cache",
            "the cache at the end, float64",
            bytes_text(cache_bytes(SMALL, len(prompt) + n - 1)),
        ),
        ("same", "the same text both ways", same_text(measured) if measured else NOT_WRITTEN),
    ]
    return rows


def same_text(measured: dict[str, Run]) -> str:
    """'yes, all N tokens', or where the two texts part."""
    a, b = measured["cached"].tokens, measured["uncached"].tokens
    if a == b:
        return f"yes, all {integer(len(a))} tokens"
    first = next(k for k, (x, y) in enumerate(zip(a, b, strict=True)) if x != y)
    return f"no: they part at token {first + 1}"


def readout(state: State, measured: dict[str, Run] | None = None) -> str:
    """The two ways as a table, then the rest as a list."""
    columns = ("multiplications", "time", "tokens per second")
    rows = [
        (label, [f"{way}-{k}" for k in ("work", "time", "rate")]) for way, label in WAYS.items()
    ]
    return readouts_tabled(readouts(state, measured), f"{state.tokens} tokens", columns, rows)


def work_columns(state: State) -> dict:
    """Millions of multiplications so far against tokens written, each way."""
    prompt = len(checked(state))
    cumulative = {
        way: [
            w / 1e6
            for w in accumulate(work_per_token(SMALL, prompt, state.tokens, way == "cached"))
        ]
        for way in WAYS
    }
    return {"token": list(range(1, state.tokens + 1)), **cumulative}


def work_point(work: dict) -> dict:
    """Both totals at N, the last token of ``work_columns``."""
    return {"token": [work["token"][-1]] * 2, "work": [work["uncached"][-1], work["cached"][-1]]}


def time_columns(measured: dict[str, Run] | None) -> dict:
    """Each token's milliseconds, each way; empty until measured."""
    if not measured:
        return {"token": [], "cached": [], "uncached": []}
    n = len(measured["cached"].tokens)
    ms = {way: [1e3 * s for s in measured[way].seconds] for way in WAYS}
    return {"token": list(range(1, n + 1)), **ms}


def time_point(times: dict) -> dict:
    """Both ways' last token of ``time_columns``; empty until measured."""
    if not times["token"]:
        return {"token": [], "ms": []}
    return {"token": [times["token"][-1]] * 2, "ms": [times["uncached"][-1], times["cached"][-1]]}


def text_html(state: State, measured: dict[str, Run] | None) -> str:
    """The prompt and what each way wrote after it."""
    if not measured:
        return (
            f'<p class="generated">Press Write and time and the model writes {state.tokens} '
            "tokens after the prompt here, once with the cache and once without.</p>"
        )
    rows = "".join(
        f'<div><dt>{escape(label)}</dt><dd data-generated="{way}"><span class="prompt">'
        f"{escape(state.prompt)}</span><mark>{escape(decode(measured[way].tokens))}</mark></dd>"
        "</div>"
        for way, label in WAYS.items()
    )
    return f'<dl class="generated">{rows}</dl>'


def drawing(state: State, measured: dict[str, Run] | None) -> Drawing:
    """What the figure shows in ``state``, with a measurement or without."""
    title = "time per token, measured in your browser" if measured else f"time per token: {PRESS}"
    work, times = work_columns(state), time_columns(measured)
    slowest = max(times["cached"] + times["uncached"], default=0)
    return {
        "work": {"data": work},
        "work.point": {"data": work_point(work)},
        "times": {"data": times},
        "times.point": {"data": time_point(times)},
        "times.title": {"text": title},
        "times.x_range": {"end": state.tokens + 1},
        "times.y_range": {"end": 1.1 * slowest if slowest else 1},
        "text": html(text_html(state, measured)),
        "readout": html(readout(state, measured)),
    }


def draw(state: State) -> Drawing:
    """The counted work; the times left for the reader to measure."""
    return drawing(state, None)


def measure(state: State, clock: Callable[[], float] = time.perf_counter) -> Drawing:
    """The reader's browser writes the tokens both ways and times them."""
    return drawing(state, runs(state, clock))
