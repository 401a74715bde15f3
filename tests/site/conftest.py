"""Fixtures for the site tests: one build under a sub-path, one server, one browser."""

import hashlib
import subprocess
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import build
from sitebuild.serve import serve_in_thread

BASE = "/attention-explained/"
CHROMIUM = "/usr/bin/chromium"
# Keep the browser itself off the network: only the local server may be reached.
CHROMIUM_ARGS = [
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
LIVE_TIMEOUT_MS = 120_000
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
    """The whole site, built once per test session under BASE."""
    out = tmp_path_factory.mktemp("site")
    build.build(out, BASE)
    return out


@pytest.fixture(scope="session")
def server_url(site) -> Iterator[str]:
    server = serve_in_thread(site, BASE)
    yield f"http://127.0.0.1:{server.server_address[1]}{BASE}"
    server.shutdown()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class Visit:
    """A page opened in a fresh browser context, with every request and console error kept."""

    def __init__(self, browser, url: str, block: str | list[str] | None = None):
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.page = self.context.new_page()
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.context.on("request", lambda r: self.requests.append(r.url))
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        for pattern in [block] if isinstance(block, str) else block or []:
            self.context.route(pattern, lambda route: route.abort())
        self.page.goto(url)

    def wait_for(self, state: str) -> None:
        self.page.wait_for_function(
            f"() => document.documentElement.dataset.figures === {state!r}", timeout=LIVE_TIMEOUT_MS
        )

    def readout_locator(self, figure_id: str, key: str):
        return self.page.locator(f'[data-figure="{figure_id}"] [data-readout="{key}"]')

    def readout(self, figure_id: str, key: str) -> str:
        return self.readout_locator(figure_id, key).inner_text()

    def article_text(self) -> str:
        """The post's text, whitespace collapsed. Not innerText: it leaves out the blocks
        off screen, which are not laid out until the reader nears them (site.css)."""
        return " ".join(self.page.locator("article").text_content().split())

    def close(self) -> None:
        self.context.close()


@pytest.fixture(scope="module")
def visit(browser, server_url):
    """Open a page by its path under the site (``visit("attention-without-weights/")``).

    Each module's pages close when the module ends: a live page holds a Python of its own (two
    once a cell has run), and a session's worth of them would not fit in memory."""
    opened: list[Visit] = []

    def open_page(path: str = "", block: str | list[str] | None = None) -> Visit:
        opened.append(Visit(browser, server_url + path, block))
        return opened[-1]

    yield open_page
    for v in opened:
        v.close()


def opened_live(visit, paths) -> dict[str, Visit]:
    """Each page opened and waited for until its figures are live, by path."""
    visits = {path: visit(path) for path in paths}
    for v in visits.values():
        v.wait_for("live")
    return visits


def focus_in_tab_order(control) -> None:
    """Focus `control`, or, when it is disabled (the figures are not live, static/page.js), its
    place in the Tab order: its shadow host, so that Tab goes on from where it is."""
    control.evaluate(
        """el => {
          if (!el.disabled) return el.focus();
          const host = el.getRootNode().host;
          host.tabIndex = -1;
          host.focus();
        }"""
    )
