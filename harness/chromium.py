"""The system Chromium (Debian's, never `playwright install`), headless and kept off the
network, and a count of the Python workers the pages it opens start."""

from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

CHROMIUM = "/usr/bin/chromium"
# Keep the browser itself off the network: only the local server may be reached.
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-domain-reliability",
    "--no-pings",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
]

# Python workers started (each a Pyodide start: the figures' or a page's cells'), counted by
# whether it was the first in its browser context ("cold": an empty HTTP cache, the heap
# downloaded and unpacked again) or a later one ("warm": a reload, a retry, a fallback).
STARTS: Counter = Counter()


def count_starts(context) -> None:
    """Count the Python workers of every page opened in ``context`` into STARTS."""
    seen = {"any": False}

    def on_worker(worker) -> None:
        if "/worker.js" not in worker.url:
            return
        STARTS["warm" if seen["any"] else "cold"] += 1
        seen["any"] = True

    context.on("page", lambda page: page.on("worker", on_worker))


class Browser:
    """A Playwright browser whose every new context has its Python workers counted."""

    def __init__(self, browser):
        self._browser = browser

    def new_context(self, **options):
        context = self._browser.new_context(**options)
        count_starts(context)
        return context

    def __getattr__(self, name):
        return getattr(self._browser, name)


@contextmanager
def launch(extra: Sequence[str] = ()) -> Iterator[Browser]:
    """The system Chromium, headless (with the switches ``extra`` too), for the block."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=[*ARGS, *extra])
        try:
            yield Browser(browser)
        finally:
            browser.close()
