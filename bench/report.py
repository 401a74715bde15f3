"""Plain-text tables: medians with min-max over runs, latency percentiles, ratios."""

import statistics
from collections import Counter
from collections.abc import Sequence

from bench.browser import Load


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100) by linear interpolation between order statistics."""
    if not values:
        raise ValueError("percentile of no values")
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def seconds(ms: float | None) -> str:
    return "-" if ms is None else f"{ms / 1000:.2f} s"


def megabytes(n: float | None) -> str:
    return "-" if n is None else f"{n / 1e6:.1f} MB"


def spread(values: Sequence[float | None], unit=seconds) -> str:
    """'median (min-max)' of the values that exist, in ``unit``."""
    present = [v for v in values if v is not None]
    if not present:
        return "-"
    middle = unit(statistics.median(present))
    if len(present) == 1:
        return middle
    return f"{middle} ({unit(min(present)).split()[0]}-{unit(max(present))})"


def median_or_none(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def mark_order(loads: Sequence[Load]) -> list[str]:
    """Mark names in the order they happened in the first load that went live."""
    first = next((load for load in loads if load.state == "live"), loads[0])
    return sorted(first.marks, key=first.marks.get)


def step_rows(loads: Sequence[Load]) -> list[tuple[str, str, str]]:
    """(mark, time since navigation, time since the previous mark), medians (min-max)."""
    names = mark_order(loads)
    rows = []
    for i, name in enumerate(names):
        at = [load.marks.get(name) for load in loads]
        before = names[i - 1] if i else None
        step = [
            load.marks[name] - load.marks[before]
            if before and name in load.marks and before in load.marks
            else None
            for load in loads
        ]
        rows.append((name, spread(at), spread(step) if before else ""))
    return rows


def load_table(title: str, loads: Sequence[Load], warm: Sequence[Load] = ()) -> list[str]:
    """The table for one page's cold loads (and its warm second page, if measured)."""
    lines = [title, f"  {'mark':<44} {'at (median, min-max)':<26} since previous mark"]
    for name, at, step in step_rows(loads):
        lines.append(f"  {name:<44} {at:<26} {step}")
    lines.append(
        f"  {'bytes transferred, raw':<44} {spread([x.raw_bytes for x in loads], megabytes)}"
    )
    lines.append(
        f"  {'bytes, each body gzipped (level 6)':<44} "
        f"{spread([x.gzip_bytes for x in loads], megabytes)}"
    )
    lines.append(f"  {'requests':<44} {spread([x.requests for x in loads], str)}")
    counts = Counter(x.start or "-" for x in loads)
    starts = ", ".join(f"{start} x{n}" for start, n in sorted(counts.items()))
    lines.append(f"  {'Python started from':<44} {starts}")
    if pending := max(x.still_loading for x in loads):
        lines.append(f"  ({pending} response(s) still loading 5 s after live, not counted)")
    if refetched := max(x.refetched_bodies for x in loads):
        lines.append(f"  ({refetched} body(ies) dropped by DevTools, sized from the server's copy)")
    if states := [x.state for x in loads if x.state != "live"]:
        lines.append(f"  NOT LIVE in {len(states)} run(s): {states}")
    if warm:
        target = warm[0].url.rsplit("/", 2)[-2] + "/"
        lines.append(
            f"  {'second page, warm cache -> ' + target + ' figures-live':<44} "
            f"{spread([x.live for x in warm])}"
        )
        lines.append(
            f"  {'second page, warm cache, pre-render visible':<44} "
            f"{spread([x.prerender for x in warm])}"
        )
        lines.append(
            f"  {'second page, warm cache, bytes over network':<44} "
            f"{spread([x.network_bytes for x in warm], megabytes)}"
        )
        largest = ", ".join(f"{name} {megabytes(n)}" for name, n in warm[0].network_files if n)
        lines.append(f"    (largest not served from the cache, run 1: {largest or 'none'})")
    return lines


def latency_table(rows: Sequence[tuple[str, dict]]) -> list[str]:
    """Control-change latency per figure: control used, n, median, p95 (ms)."""
    lines = [f"  {'figure':<24} {'control':<38} {'n':>3} {'median':>8} {'p95':>8}  timeouts"]
    for label, result in rows:
        values = result.get("latencies", [])
        control = result.get("control") or f"none moved the readout (tried {result.get('tried')})"
        if values:
            med, p95 = f"{statistics.median(values):.0f} ms", f"{percentile(values, 95):.0f} ms"
        else:
            med = p95 = "-"
        lines.append(
            f"  {label:<24} {control[:38]:<38} {len(values):>3} {med:>8} {p95:>8}  "
            f"{result.get('timeouts', 0)}"
        )
    return lines


def ratio(a: float | None, b: float | None) -> str:
    return "-" if a is None or b is None or b == 0 else f"{a / b:.2f}"


def mebibytes(n: float | None) -> str:
    return "-" if n is None else f"{n / 1024 / 1024:.0f} MiB"


def milliseconds(ms: float | None) -> str:
    return "-" if ms is None else f"{ms:.0f} ms"


def shift(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def memory_lines(memory: dict, reading=None) -> list[str]:
    """The page's memory at a phone's screen (bench/memory.py): PSS of the tab and of the
    whole browser, live, with its pre-render alone, with a code cell run, and once scrolled
    through (``reading``: every figure drawn on the way, those held at the end counted); and
    the worker's share, the live tab minus the
    pre-render's."""
    lines = ["  memory at a phone's screen (412 x 915 at 2.625), PSS, one load each:"]
    labels = {
        "live": "live",
        "prerender": "pre-render alone (Data Saver: no worker)",
        "cell": "live, one code cell run (its own worker)",
    }
    for key, label in labels.items():
        if key not in memory:
            continue
        m = memory[key]
        cells = "-" if m is None else f"tab {mebibytes(m.tab)}, browser {mebibytes(m.browser)}"
        lines.append(f"    {label:<44} {cells}")
    if reading is not None:
        m, label = reading.memory, "live, scrolled through"
        cells = f"tab {mebibytes(m.tab)}, browser {mebibytes(m.browser)}"
        lines.append(f"    {label:<44} {cells} ({reading.held} figures held at the end)")
    live, alone = memory.get("live"), memory.get("prerender")
    if live and alone:
        lines.append(
            f"    {'the worker (live tab - pre-render tab)':<44} {mebibytes(live.tab - alone.tab)}"
        )
    return lines


def main_thread_lines(loads: Sequence[Load], slowed: Sequence[Load], reading) -> list[str]:
    """The main thread: its blocking (each long task's time over 50 ms, summed) and longest task
    from the navigation to live, unthrottled (the cold loads) and with the CPU slowed; while a
    phone's reader scrolls the live page through; and the layout shift."""
    lines = ["  main thread (Chromium's long tasks; blocking: each one's time over 50 ms, summed):"]
    slowest = "navigation to live, CPU slowed 4x"

    def row(label: str, cells: str) -> None:
        lines.append(f"    {label:<58} {cells}")

    for label, runs in (("navigation to live", loads), (slowest, slowed)):
        row(f"{label}: blocking", spread([x.blocking for x in runs], milliseconds))
        row(f"{label}: longest task", spread([x.longest_task for x in runs], milliseconds))
    row("layout shift, navigation to live (desktop)", spread([x.shift for x in loads], shift))
    if reading is None:
        row("phone (412 x 915), scrolled through once live", "- (not live)")
        return lines
    row("layout shift, navigation to 5 s after live (phone)", shift(reading.shift))
    row("scrolling the live page through (phone): blocking", milliseconds(reading.blocking))
    row("scrolling the live page through (phone): longest task", milliseconds(reading.longest))
    if not reading.every_figure_drawn:
        row("  (NOT every figure drawn within 60 s of the scroll's start)", "")
    if reading.frames_missed:
        missed = reading.frames_missed
        row(f"  (a wait for a frame timed out {missed} times: none drawn; the scroll went on)", "")
    return lines
