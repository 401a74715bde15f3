"""Every engine's cold start: each page with figures, and the baseline, in Chromium, Firefox
and WebKitGTK.

A cold load is a fresh browser (its own profile, an empty cache), as a reader's first visit.
Its time is the page's own mark, ``figures-live`` (the baseline sets it at the end of Panel's
render handler, as in the Chromium tables), and which start the page took. Its bytes are what
the server sent for it, gzipped as the host sends them, counted at the server: no engine's page
lists what its workers download, and the workers download nearly all of it.
"""

import functools
import statistics
import threading
from dataclasses import dataclass
from pathlib import Path

from bench import report
from harness import engines

ENGINES = ("chromium", *engines.ENGINES)
TIMEOUT_S = 300
# Until the page's figures are live (its mark) or have failed; then the mark's time and the start.
SETTLED = """() => {
  const [live] = performance.getEntriesByName("figures-live");
  const state = document.documentElement.dataset.figures;
  if (!live && !["failed", "outdated"].includes(state)) return null;
  return { live: live ? live.startTime : null, state: state || "live",
           start: document.documentElement.dataset.start || "",
           marks: performance.getEntriesByType("mark").map((m) => [m.name, m.startTime]) };
}"""


@dataclass
class EngineLoad:
    engine: str
    live: float | None  # ms from navigation to every figure live
    state: str
    start: str  # "snapshot", "ordinary", or "" (the baseline)
    gzip_bytes: int  # what the server sent
    marks: dict[str, float]  # the page's performance marks: the steps of its start


class Counter:
    """The bytes a server writes (headers and bodies), counted from ``reset()``."""

    def __init__(self, server) -> None:
        self.sent, self.lock = 0, threading.Lock()
        handler = server.RequestHandlerClass  # a partial of the handler class (make_server)
        counter = self

        class Counting(handler.func):
            def setup(self) -> None:
                super().setup()
                self.wfile = _Counted(self.wfile, counter)

        server.RequestHandlerClass = functools.partial(Counting, *handler.args, **handler.keywords)

    def add(self, n: int) -> None:
        with self.lock:
            self.sent += n

    def reset(self) -> int:
        with self.lock:
            sent, self.sent = self.sent, 0
            return sent


class _Counted:
    def __init__(self, raw, counter: Counter) -> None:
        self.raw, self.counter = raw, counter

    def write(self, data) -> int:
        self.counter.add(len(data))
        return self.raw.write(data)

    def __getattr__(self, name):
        return getattr(self.raw, name)


def cold_load(name: str, url: str, counter: Counter, launch) -> EngineLoad:
    """One cold load of ``url`` in a fresh instance of engine ``name`` (``launch(name)``)."""
    engine = launch(name)
    try:
        counter.reset()
        tab = engine.open(url)
        got = tab.wait(SETTLED, timeout_s=TIMEOUT_S)
        sent = counter.reset()
        marks = dict(got["marks"])
        return EngineLoad(name, got["live"], got["state"], got["start"], sent, marks)
    finally:
        engine.close()


def launcher(chromium_browser, cache: Path):
    """``launch(name)``: a fresh browser of engine ``name``; Chromium's a fresh context of
    ``chromium_browser``, the Playwright browser the rest of the benchmark runs."""

    def launch(name: str) -> engines.Engine:
        if name == "chromium":
            return engines.Chromium(chromium_browser)
        return engines.launch(name, cache)

    return launch


def engine_runs(urls: dict[str, str], runs: int, counter: Counter, launch, log) -> dict:
    """label -> engine -> the cold loads of the page at that URL (``runs`` of each), each
    engine started by ``launch(name)``."""
    out: dict[str, dict[str, list[EngineLoad]]] = {}
    for label, url in urls.items():
        for name in ENGINES:
            loads = out.setdefault(label, {}).setdefault(name, [])
            for k in range(runs):
                loads.append(cold_load(name, url, counter, launch))
                load = loads[-1]
                how = load.start or "baseline"
                at = report.seconds(load.live)
                log(f"{name}: {label} run {k + 1}: {load.state} at {at} ({how})")
    return out


def lines(results: dict, runs: int) -> list[str]:
    """The engines table: per page and engine, the cold live time, the start and the bytes,
    and each engine's live time as a ratio to Chromium's in the same run."""
    out = [
        "",
        f"ENGINES cold loads in each engine, a fresh browser each ({runs} runs, median (min-max))",
        f"  {'page':<28} {'engine':<9} {'live':>22} {'vs chromium':>12} {'start':>9}"
        f" {'bytes, gzip':>12}",
    ]
    for label, by_engine in results.items():
        chromium = report.median_or_none([x.live for x in by_engine.get("chromium", [])])
        for name, loads in by_engine.items():
            live = report.median_or_none([x.live for x in loads])
            starts = sorted({x.start or "-" for x in loads})
            failed = [x.state for x in loads if x.state != "live"]
            cells = [
                report.spread([x.live for x in loads]),
                report.ratio(live, chromium),
                "/".join(starts),
                report.megabytes(statistics.median(x.gzip_bytes for x in loads)),
            ]
            out.append(
                f"  {label:<28} {name:<9} {cells[0]:>22} {cells[1]:>12} {cells[2]:>9}"
                f" {cells[3]:>12}" + (f"  NOT LIVE: {failed}" if failed else "")
            )
    return out


def step_lines(results: dict) -> list[str]:
    """Each engine's start on each page, step by step: the page's marks, medians (min-max)."""
    out = [
        "",
        "ENGINES the start step by step (the page's marks; since navigation, since the last)",
    ]
    for label, by_engine in results.items():
        for name, loads in by_engine.items():
            out.append(f"  {label} in {name}:")
            out += [
                f"    {mark:<34} {at:>22} {step:>22}" for mark, at, step in report.step_rows(loads)
            ]
    return out
