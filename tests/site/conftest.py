"""Fixtures for the site tests: one build under a sub-path, one server, one browser, and one
live page per page of the site, shared by every test that only reads or moves the figures.

The shared pages (``live``) are what keeps the suite fast: a Python start is the dearest thing
a browser test does. A test that needs a worker of its own (a start that fails or falls back,
a redeploy, a cold start, a page served differently) opens one with ``visit`` and says why.
"""

import hashlib
import os
import subprocess
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness import chromium
from harness.dom import next_frame, reset_screen
from harness.site import BASE, SITE_ENV, build_site, has_figures
from harness.visit import DESKTOP, Visit, wait_idle
from sitebuild.serve import serve_in_thread

AXE_VERSION = "4.11.0"
AXE_SHA256 = "39bed7d72308f6d620789c169d699bfd7e8da80f65b545821a6b2215c3e83107"
AXE_CACHE = Path(__file__).resolve().parents[2] / ".cache" / "axe"


@pytest.fixture(scope="session")
def axe_source() -> str:
    """axe.min.js from the pinned npm tarball, packed once into the project's cache."""
    tarball = AXE_CACHE / f"axe-core-{AXE_VERSION}.tgz"
    if not tarball.exists():
        AXE_CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["npm", "pack", f"axe-core@{AXE_VERSION}", "--pack-destination", str(AXE_CACHE)],
            check=True,
            capture_output=True,
        )
    assert hashlib.sha256(tarball.read_bytes()).hexdigest() == AXE_SHA256
    with tarfile.open(tarball) as tar:
        return tar.extractfile("package/axe.min.js").read().decode()


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Path:
    """The whole site under BASE, as the deploy builds it, once per run: the build that
    ``./dev test`` made before the session (harness/prepare.py), else one built here."""
    if prepared := os.environ.get(SITE_ENV):
        return Path(prepared)
    out = tmp_path_factory.mktemp("site")
    build_site(out)
    return out


@pytest.fixture(scope="session")
def server_url(site) -> Iterator[str]:
    server = serve_in_thread(site, BASE)
    yield f"http://127.0.0.1:{server.server_address[1]}{BASE}"
    server.shutdown()


@pytest.fixture(scope="session")
def browser():
    with chromium.launch() as launched:
        yield launched


@pytest.fixture(scope="module")
def visit(browser, server_url):
    """Open a page of its own by its path under the site (``visit("attention-without-weights/")``).

    Each module's pages close when the module ends: a live page holds a Python of its own (two
    once a cell has run). Keyword arguments go to ``Visit`` (routes, init scripts, context
    options)."""
    opened: list[Visit] = []

    def open_page(path: str = "", block: str | list[str] | None = None, **options) -> Visit:
        opened.append(Visit(browser, server_url + path, block, **options))
        return opened[-1]

    yield open_page
    for v in opened:
        v.close()


# Back to what a fresh page shows, in place: the figures' own Reset where the reader changed
# something, every disclosure closed, the URL without views, the focus and scroll at the top.
_TIDY = """() => {
  const open = document.querySelectorAll("figure[data-figure] details[open]");
  for (const box of open) box.open = false;
  history.replaceState(history.state, "", location.pathname);
  document.activeElement?.blur();
  scrollTo(0, 0);
}"""
# How many choices the page had stored, all forgotten.
_FORGET = "() => { const stored = localStorage.length; localStorage.clear(); return stored; }"
# What the page was asked to change so far: a new document (a test's reload or a link opened)
# counts afresh, and may show a view of its own, so it counts as a change too.
_CHANGED = """() => [
  performance.timeOrigin, harnessProbe.sent.change || 0, harnessProbe.sent["view-apply"] || 0,
]"""


class LivePages:
    """One page per path for the whole session, live where it has figures, handed to each test
    as a fresh page would be: at a desktop's size, in the light scheme, on screen, its figures
    at their defaults (their own Reset buttons, when a test changed them)."""

    def __init__(self, browser, url: str):
        self.browser, self.url = browser, url
        self.opened: dict[str, Visit] = {}
        self.changes: dict[str, list[int]] = {}

    def __call__(self, path: str) -> Visit:
        v = self.opened.get(path)
        if v is None or v.page.is_closed():
            v = self.opened[path] = Visit(self.browser, self.url + path)
            if has_figures(path):
                v.wait_for("live")
                v.show_every_figure()  # drawn, as for a reader who has read the page once
            else:
                v.page.wait_for_load_state("load")
        else:
            self.tidy(path, v)
        v.page.bring_to_front()  # the page a test works in has the focus, as a reader's tab has
        v.errors.clear()
        self.changes[path] = v.page.evaluate(_CHANGED) if has_figures(path) else []
        return v

    def tidy(self, path: str, v: Visit) -> None:
        page = v.page
        reset_screen(page, DESKTOP)
        page.emulate_media(
            media="screen",
            color_scheme="light",
            reduced_motion="no-preference",
            forced_colors="none",
        )
        if page.evaluate(_FORGET):
            # A choice the page stored (the scheme toggle's) it also holds in memory: forgotten
            # only by a reload, a warm one.
            page.reload()
            page.wait_for_load_state("load")
        if not has_figures(path):
            page.evaluate(_TIDY)
            return
        assert v.settled() == "live", f"{path}: a test left its shared page {v.figures}"
        if page.evaluate(_CHANGED) != self.changes.get(path):
            wait_idle(page)
            for reset in page.locator("figure[data-figure] [data-view=reset]").all():
                reset.click()
            wait_idle(page)
        v.show_every_figure()  # a test that loaded the page again left figures to draw
        page.evaluate(_TIDY)
        next_frame(page)

    def close(self) -> None:
        for v in self.opened.values():
            v.close()


@pytest.fixture(scope="session")
def shared_pages(browser, server_url) -> Iterator[LivePages]:
    pages = LivePages(browser, server_url)
    yield pages
    pages.close()


@pytest.fixture
def live(shared_pages):
    """``live(path)``: the session's shared page at that path, live, at its defaults. A test
    fails if its page logged an error (one caused on purpose is cleared by the test)."""
    handed: dict[str, Visit] = {}

    def get(path: str) -> Visit:
        # Asked again within the test, the page is as the test left it, not tidied.
        if path not in handed:
            handed[path] = shared_pages(path)
        return handed[path]

    yield get
    for v in handed.values():
        assert v.errors == [], f"the page logged errors: {v.errors}"


def opened_live(visit, paths) -> dict[str, Visit]:
    """Each page opened and waited for until its figures are live, by path."""
    visits = {path: visit(path) for path in paths}
    for v in visits.values():
        v.wait_for("live")
        v.show_every_figure()
    return visits
