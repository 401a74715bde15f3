"""Driving headless Chromium: cold loads, a warm second page, control latency, throttling.

Every load happens in a fresh browser context (an empty cache). Times are read from the
page's own performance marks, so they do not depend on how often Python polls the page.
"""

import gzip
import hashlib
import json
import re
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from harness.visit import instrument, show_figure

INPAGE_JS = (Path(__file__).parent / "inpage.js").read_text()
VIEWPORT = {"width": 1280, "height": 900}
LIVE_TIMEOUT_MS = 180_000
# The throttled run: 50 Mbit/s down, 40 ms latency (upload is not what a page load waits on).
THROTTLE = {
    "offline": False,
    "latency": 40,
    "downloadThroughput": 50e6 / 8,
    "uploadThroughput": 50e6 / 8,
}
# The slow run: a phone on a 10 Mbit/s connection, 100 ms away.
SLOW = {**THROTTLE, "latency": 100, "downloadThroughput": 10e6 / 8, "uploadThroughput": 10e6 / 8}
LOCAL = "http://127.0.0.1:"
STEP_MARKS = ("loading-step-1", "loading-step-2", "loading-step-3", "figures-built")


@dataclass
class Load:
    """What one page load measured (times in ms from navigation start, bytes in bytes)."""

    url: str
    state: str
    marks: dict[str, float]
    start: str = ""  # how the worker started Python: "snapshot" or "ordinary"
    raw_bytes: int = 0
    gzip_bytes: int = 0
    requests: int = 0
    outside: list[str] = field(default_factory=list)
    refetched_bodies: int = 0
    still_loading: int = 0
    network_bytes: int = 0
    network_files: list[tuple[str, int]] = field(default_factory=list)
    transfer: dict[str, float] = field(default_factory=dict)
    # The main thread, navigation to live: long tasks' time over 50 ms summed, the longest task.
    blocking: float | None = None
    longest_task: float | None = None
    shift: float | None = None  # the layout shift, navigation to live

    @property
    def prerender(self) -> float | None:
        return self.marks.get("prerender-visible")

    @property
    def live(self) -> float | None:
        return self.marks.get("figures-live")


_GZIP_CACHE: dict[bytes, int] = {}


def gzip_size(body: bytes) -> int:
    """Size of ``body`` gzipped at level 6 (what a static host would send), memoised."""
    key = hashlib.sha1(body).digest()
    if key not in _GZIP_CACHE:
        _GZIP_CACHE[key] = len(gzip.compress(body, compresslevel=6))
    return _GZIP_CACHE[key]


class Recorder:
    """Every request and response of a browser context, with wall-clock transfer times."""

    def __init__(self, context):
        self.responses: list = []
        self.urls: list[str] = []
        self.started: dict = {}
        self.seconds: dict[str, float] = {}
        self.blocked: list[str] = []
        self.finished: set = set()
        self.failed: set = set()
        context.on("request", self._request)
        context.on("response", lambda response: self.responses.append(response))
        context.on("requestfinished", self._finished)
        context.on("requestfailed", lambda request: self.failed.add(request))

    def _request(self, request) -> None:
        self.urls.append(request.url)
        self.started[request] = time.perf_counter()

    def _finished(self, request) -> None:
        self.finished.add(request)
        if request in self.started:
            self.seconds[request.url] = time.perf_counter() - self.started[request]

    def reset(self) -> None:
        self.responses.clear()
        self.urls.clear()

    def completed(self, page, wait_ms: int = 5000) -> tuple[list, int]:
        """(responses whose body has fully arrived, how many are still loading).

        Waits up to ``wait_ms`` for stragglers: asking DevTools for the body or sizes of an
        unfinished request blocks until it finishes, which may be never.
        """
        waited = 0
        while waited < wait_ms and self._pending():
            page.wait_for_timeout(100)  # lets Playwright deliver the finishing events
            waited += 100
        done = [r for r in self.responses if r.request in self.finished]
        return done, len(self._pending())

    def _pending(self) -> list:
        return [r for r in self.responses if r.request not in self.finished | self.failed]


def refetch(url: str) -> bytes:
    """The same body again from the local server (no proxy), for a body the browser dropped."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(url, timeout=60) as reply:
        return reply.read()


def from_cache(response) -> bool:
    """Whether the HTTP cache answered (DevTools then reports a negative body size)."""
    try:
        return response.request.sizes()["responseBodySize"] < 0
    except Exception:
        return False


def body_sizes(responses: list) -> tuple[int, int, int]:
    """(raw bytes, gzip bytes, bodies re-fetched) over ``responses``.

    Chromium evicts very large bodies (the panel wheel) from what DevTools keeps; those
    are fetched again from the local server, which serves the same bytes.
    """
    raw = zipped = refetched = 0
    for response in responses:
        if 300 <= response.status < 400:  # a revalidation (304) or redirect carries no body
            continue
        if from_cache(response):  # fetched earlier in the same load: counted then
            continue
        try:
            body = response.body()
        except Exception:
            body = refetch(response.url)
            refetched += 1
        raw += len(body)
        zipped += gzip_size(body)
    return raw, zipped, refetched


def file_name(url: str) -> str:
    """The last part of a URL's path ('section-3-3/' for a page)."""
    path = urllib.parse.urlsplit(url).path
    last = path.rstrip("/").rsplit("/", 1)[-1]
    return last + "/" if path.endswith("/") else last


def network_sizes(responses: list) -> list[tuple[str, int]]:
    """(file name, body bytes that came over the network), largest first; a response served
    from the HTTP cache counts 0 (DevTools reports no positive body size for it)."""
    sizes = [(file_name(r.url), max(0, r.request.sizes()["responseBodySize"])) for r in responses]
    return sorted(sizes, key=lambda pair: -pair[1])


def read_marks(page) -> dict[str, float]:
    """Every performance mark of the page: name -> ms since its navigation started."""
    return page.evaluate(
        "Object.fromEntries(performance.getEntriesByType('mark').map(m => [m.name, m.startTime]))"
    )


# Resolves when the page's figures are live or failed, or with 'timeout'. Passed to
# page.evaluate as a function: the site's CSP forbids eval, which wait_for_function uses.
SETTLED_JS = """(timeoutMs) => new Promise((resolve) => {
  const html = document.documentElement;
  const state = () => html.dataset.figures;
  if (["live", "failed"].includes(state())) return resolve(state());
  const observer = new MutationObserver(() => {
    if (["live", "failed"].includes(state())) { observer.disconnect(); resolve(state()); }
  });
  observer.observe(html, { attributes: true, attributeFilter: ["data-figures"] });
  setTimeout(() => { observer.disconnect(); resolve("timeout"); }, timeoutMs);
})"""


def wait_until_settled(page, timeout_ms: int = LIVE_TIMEOUT_MS) -> str:
    """Wait until the page's figures are live (or failed); return that state, or 'timeout'."""
    return page.evaluate(SETTLED_JS, timeout_ms)


def is_outside(url: str) -> bool:
    """Whether a request would leave the machine (blob: and data: URLs never do)."""
    return not url.startswith((LOCAL, "blob:", "data:"))


PAGE_CONFIG = re.compile(
    r'(<script type="application/json" id="page-config">)(.*?)(</script>)', re.S
)


def without_snapshot(route) -> None:
    """Serve a page as a ``--no-snapshots`` build would: its config names no snapshot, so its
    worker starts Python the ordinary way (the fallback path's start)."""
    response = route.fetch()
    body = response.text()

    def drop(m: re.Match) -> str:
        config = json.loads(m[2])
        config.pop("snapshot", None)
        return m[1] + json.dumps(config).replace("</", "<\\/") + m[3]

    route.fulfill(response=response, body=PAGE_CONFIG.sub(drop, body, count=1))


def new_page(
    browser,
    throttle: dict | None = None,
    block_outside: bool = False,
    snapshot: bool = True,
    cpu_slowdown: float = 1,
):
    """A fresh context (cold cache) and page, instrumented; optionally network-throttled
    (``throttle``: DevTools' network conditions, THROTTLE or SLOW) or with its CPU slowed
    ``cpu_slowdown`` times (DevTools' CPU throttling).

    With ``block_outside`` every request leaving 127.0.0.1 is aborted by a route and kept in
    ``recorder.blocked``. Routing disables Chromium's HTTP cache, so timed loads go without
    it; the host-resolver rule in CHROMIUM_ARGS fails such requests anyway. Without
    ``snapshot``, the pages are served as if built without one (``without_snapshot``).
    """
    context = browser.new_context(viewport=VIEWPORT)
    if not snapshot:
        context.route(lambda url: url.startswith(LOCAL) and url.endswith("/"), without_snapshot)
    instrument(context)  # the harness's probe: worker messages counted, shadow roots walked
    context.add_init_script(INPAGE_JS)
    recorder = Recorder(context)
    if block_outside:

        def abort(route) -> None:
            recorder.blocked.append(route.request.url)
            route.abort()

        context.route(is_outside, abort)
    page = context.new_page()
    if throttle:
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.emulateNetworkConditions", throttle)
    if cpu_slowdown != 1:
        cdp = context.new_cdp_session(page)
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": cpu_slowdown})
    return context, page, recorder


def measure_load(page, recorder: Recorder, url: str) -> Load:
    """Navigate to ``url``, wait for live, and collect marks and bytes."""
    recorder.reset()
    page.goto(url)
    state = wait_until_settled(page)
    main_thread = page.evaluate("() => window.__bench.toLive()")
    responses, pending = recorder.completed(page)
    raw, zipped, refetched = body_sizes(responses)
    network = network_sizes(responses)
    return Load(
        blocking=main_thread["blocking"],
        longest_task=main_thread["longest"],
        shift=main_thread["shift"],
        url=url,
        state=state,
        start=page.evaluate("() => document.documentElement.dataset.start || ''"),
        marks=read_marks(page),
        raw_bytes=raw,
        gzip_bytes=zipped,
        requests=len(recorder.urls),
        outside=[u for u in recorder.urls if is_outside(u)],
        refetched_bodies=refetched,
        still_loading=pending,
        network_bytes=sum(n for _, n in network),
        network_files=network[:3],
        transfer=largest_transfers(responses, recorder),
    )


def download_seconds(response, recorder: Recorder) -> float | None:
    """How long the body took to arrive: the browser's timing, else the wall clock."""
    timing = response.request.timing
    if timing.get("responseEnd", -1) > 0 and timing.get("responseStart", -1) > 0:
        return (timing["responseEnd"] - timing["responseStart"]) / 1000
    return recorder.seconds.get(response.url)


def is_worker_url(url: str) -> bool:
    """Requests for the Python runtime (made by the worker): Pyodide's files and wheels."""
    return "/runtime/" in url or "/pyodide/" in url or url.endswith(".whl")


def largest_transfers(responses: list, recorder: Recorder) -> dict[str, float]:
    """Effective Mbit/s of the largest page and worker downloads (the throttling check)."""
    out = {}
    for side in ("page", "worker"):
        sized = [
            (int(r.headers.get("content-length") or 0), r)
            for r in responses
            if is_worker_url(r.url) == (side == "worker") and r.status == 200
        ]
        if not sized:
            continue
        size, response = max(sized, key=lambda pair: pair[0])
        took = download_seconds(response, recorder)
        if took:
            out[side] = size * 8 / 1e6 / took
            out[f"{side}-file"] = file_name(response.url)
            out[f"{side}-mb"] = size / 1e6
    return out


def control_latency(page, figure_id: str | None, n: int) -> dict:
    """Time n changes of the first control of the figure that moves its readout (scrolled to
    first: a figure of the site is drawn as the reader nears it)."""
    if figure_id:
        show_figure(page, figure_id)
    return page.evaluate("([id, n]) => window.__bench.latency(id, n)", [figure_id, n])


def cell_latency(page, n: int) -> dict:
    """Time n runs of the page's first code cell, from Run to its output."""
    return page.evaluate("(n) => window.__bench.cellRun(n)", n)


def scenario_latency(page, figure_id: str, setup: list, change: dict, n: int) -> dict:
    """Time n changes of a named control after moving others to fixed values."""
    show_figure(page, figure_id)
    return page.evaluate(
        "([id, setup, change, n]) => window.__bench.scenario(id, setup, change, n)",
        [figure_id, setup, change, n],
    )
