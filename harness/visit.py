"""A page of the site opened as a reader opens it, watched: every request, every error, the
messages between the page and its Python workers (probe.js), and the page's own signals to
wait on (`data-figures` on the root element: static, live, failed, outdated)."""

from collections.abc import Callable
from pathlib import Path

from harness.dom import next_frame, wait_until

PROBE = (Path(__file__).with_name("probe.js")).read_text()
# Long enough for the slowest start (the ordinary one, installing the wheels) on a loaded
# 2-core machine; a page that hangs fails at this bound, it is not a speed target.
LIVE_TIMEOUT_MS = 120_000
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}

Route = tuple[str, Callable]


# Whether a figure is drawn: from the pre-render while the figures are not live, and with
# the worker's drawing set on it while they are.
DRAWN = """(id) => {
  const drawn = document.querySelector(`[data-figure="${id}"]`).dataset.drawn;
  const live = document.documentElement.dataset.figures === "live";
  return drawn === "live" || (drawn === "" && !live);
}"""


# Whether every readout of a figure shows text (always, on a page without the probe).
READOUTS_SHOWN = """(id) => typeof harnessProbe === "undefined"
  || Object.values(harnessProbe.readouts(id)).every((text) => text.trim() !== "")"""


def instrument(context) -> None:
    """Install the probe into every page of ``context`` before the page's own scripts."""
    context.add_init_script(PROBE)


def wait_for_figures(page, state: str, timeout_ms: int = LIVE_TIMEOUT_MS) -> None:
    """Wait until the page's figures are in ``state`` (static, live, failed or outdated)."""
    wait_until(
        page,
        "(state) => document.documentElement.dataset.figures === state",
        arg=state,
        timeout=timeout_ms,
    )


def wait_idle(page, timeout_ms: int = LIVE_TIMEOUT_MS) -> None:
    """Wait until the figures' worker has answered every change and view request the page sent
    (and two frames have passed, so that what an answer changed is drawn)."""
    wait_until(page, "() => harnessProbe.idle()", timeout=timeout_ms)
    next_frame(page)


def show_figure(page, figure_id: str) -> None:
    """Scroll figure ``figure_id`` into view, as a reader does, and wait until the page has
    drawn it (a figure is drawn as the reader nears it) and, if the figures are live, set the
    worker's drawing of it on it (its data-drawn is "live" then, static/page/python.js)."""
    page.locator(f'[data-figure="{figure_id}"]').scroll_into_view_if_needed()
    wait_until(page, DRAWN, arg=figure_id, timeout=LIVE_TIMEOUT_MS)
    next_frame(page)  # what the worker's drawing set is drawn (Panel re-renders a pane later)
    # A pane Panel re-renders can take more than a frame on a loaded machine: the readouts
    # are read once every one of them shows its text again.
    wait_until(page, READOUTS_SHOWN, arg=figure_id, timeout=LIVE_TIMEOUT_MS)


def figure_state(page) -> str:
    return page.evaluate("() => document.documentElement.dataset.figures")


def _handing_on(handler: Callable) -> Callable:
    """A route handler of one argument that calls ``handler``: Playwright marks the function it
    is given, which a bound builtin (``list.append``) cannot carry."""
    return lambda route: handler(route)


class Visit:
    """A page opened in a browser context of its own, with every request and error kept.

    ``routes`` (glob, handler) and ``init_scripts`` are in place before the first request, so
    that a page meant to start differently starts so the first time, not after a reload.
    ``block`` aborts the requests matching its glob(s). With ``goto=False`` the page is not
    opened yet: the test adds routes to ``context`` first, then calls ``open()``."""

    def __init__(
        self,
        browser,
        url: str,
        block: str | list[str] | None = None,
        *,
        routes: list[Route] = (),
        init_scripts: list[str] = (),
        goto: bool = True,
        **context_options,
    ):
        self.context = browser.new_context(**{"viewport": DESKTOP, **context_options})
        instrument(self.context)
        for script in init_scripts:
            self.context.add_init_script(script)
        self.page = self.context.new_page()
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.context.on("request", lambda r: self.requests.append(r.url))
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        for pattern in [block] if isinstance(block, str) else block or []:
            self.context.route(pattern, lambda route: route.abort())
        for pattern, handler in routes:
            self.context.route(pattern, _handing_on(handler))
        self.url = url
        if goto:
            self.page.goto(url)

    def open(self) -> None:
        self.page.goto(self.url)

    def wait_for(self, state: str) -> None:
        wait_for_figures(self.page, state)

    def wait_idle(self) -> None:
        wait_idle(self.page)

    @property
    def figures(self) -> str:
        """The page's figures' state now: static, live, failed or outdated."""
        return figure_state(self.page)

    def settled(self) -> str:
        """The figures' state once their start has ended: live, failed or outdated."""
        wait_until(
            self.page,
            "(ended) => ended.includes(document.documentElement.dataset.figures)",
            arg=["live", "failed", "outdated"],
            timeout=LIVE_TIMEOUT_MS,
        )
        return self.figures

    @property
    def start(self) -> str:
        """How the figures' worker started Python: "snapshot" or "ordinary"."""
        return self.page.evaluate("() => document.documentElement.dataset.start")

    def show(self, figure_id: str) -> None:
        show_figure(self.page, figure_id)

    def show_every_figure(self) -> None:
        """Scroll to each figure not drawn yet, top to bottom, until it is drawn; then back to
        the top."""
        ids = self.page.locator("figure[data-figure]:not([data-drawn])").evaluate_all(
            "(figures) => figures.map((f) => f.dataset.figure)"
        )
        for figure_id in ids:
            self.show(figure_id)
        self.page.evaluate("() => scrollTo(0, 0)")

    def figure(self, figure_id: str):
        return self.page.locator(f'[data-figure="{figure_id}"]')

    def readout_locator(self, figure_id: str, key: str):
        return self.page.locator(f'[data-figure="{figure_id}"] [data-readout="{key}"]')

    def readout(self, figure_id: str, key: str) -> str:
        return self.readout_locator(figure_id, key).inner_text()

    def readouts(self, figure_id: str) -> dict[str, str]:
        """The figure's readouts, by key, as the page shows them (through shadow roots)."""
        return self.page.evaluate("(id) => harnessProbe.readouts(id)", figure_id)

    def status(self, figure_id: str):
        return self.page.locator(f'[data-figure="{figure_id}"] .fig-status')

    def article_text(self) -> str:
        """The post's text, whitespace collapsed. Not innerText: it leaves out the blocks
        off screen, which are not laid out until the reader nears them (site.css)."""
        return " ".join(self.page.locator("article").text_content().split())

    def close(self) -> None:
        self.context.close()


def until(page, check: Callable[[], object], timeout_ms: int = 20_000, what: str = ""):
    """``check()``'s first truthy answer, asked again while Playwright delivers the page's
    events (a route held, a console message): for what the test itself holds, which the page
    has no signal for. Fails after ``timeout_ms``."""
    waited = 0
    while not (answer := check()):
        if waited >= timeout_ms:
            raise AssertionError(f"not within {timeout_ms} ms: {what or check}")
        page.wait_for_timeout(50)
        waited += 50
    return answer
