"""The watch mode end to end: `build.py serve` on a copy of the sources, edited while a page
is open; each edit is served, the page reloads by itself, and a broken edit shows its error
while the build before stays served."""

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.dom import wait_until
from sitebuild import cache as runtime_cache
from sitebuild.serve import LIVE
from sitebuild.wheels import project_spec

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
# The build's own files and folders, and the project's packages as pyproject.toml lists them.
COPIED = [
    *["build.py", "pyproject.toml", "README.md", "glossary.toml"],
    *["pages", "templates", "static", "sitebuild", *project_spec(ROOT)[2]],
]
PAGE = "attention-without-weights/"
FIRST_BUILD_S = 300  # the whole site, the first time
EDIT_S = 60  # generous: speed is measured, not tested


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def served_when(check: Callable[[], object], timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if result := check():
            return result
        time.sleep(0.1)
    raise AssertionError(f"not within {timeout} s: {what}")


class Served:
    """`build.py serve` running in a copy of the sources, its terminal output kept."""

    def __init__(self, tree: Path):
        self.tree, self.port = tree, free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.log = tree / "terminal.txt"
        env = {**os.environ, runtime_cache.CACHE_ENV: str(runtime_cache.default_cache_dir())}
        with self.log.open("w") as log:
            self.process = subprocess.Popen(
                [sys.executable, "build.py", "serve", "--port", str(self.port)],
                cwd=tree, env=env, stdout=log, stderr=subprocess.STDOUT,
            )  # fmt: skip

    def terminal(self) -> str:
        return self.log.read_text()

    def get(self, path: str) -> str:
        try:
            with urllib.request.urlopen(self.url + path, timeout=10) as response:
                return response.read().decode()
        except OSError:
            return ""

    def state(self) -> dict:
        return json.loads(self.get(LIVE + "state") or "{}")

    def edit(self, rel: str, old: str, new: str) -> None:
        path = self.tree / rel
        text = path.read_text()
        assert old in text, (rel, old)
        path.write_text(text.replace(old, new, 1))


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    tree = tmp_path_factory.mktemp("tree")
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, tree / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(source, tree / name)
    server = Served(tree)
    try:
        served_when(lambda: server.state().get("build", "0") != "0", FIRST_BUILD_S, "first build")
        yield server
    finally:
        server.process.terminate()
        server.process.wait(30)


@pytest.fixture(scope="module")
def opened(served, browser):
    context = browser.new_context()
    page = context.new_page()
    page.goto(served.url + PAGE)
    yield page
    context.close()


def reloaded_with(page, text: str) -> None:
    """The page reloaded by itself (a mark left on the old one is gone) and shows ``text``."""
    wait_until(
        page,
        # Between the old page and the new one's first parse there is no body yet.
        "text => !window.__beforeEdit && (document.body?.textContent ?? '').includes(text)",
        arg=text,
        timeout=EDIT_S * 1000,
    )
    page.evaluate("window.__beforeEdit = true")


def test_an_edit_to_a_template_is_served_and_the_page_reloads(served, opened):
    opened.evaluate("window.__beforeEdit = true")
    served.edit("templates/post1.html", "Take a sentence", "Watched-template take a sentence")
    served_when(lambda: "Watched-template" in served.get(PAGE), EDIT_S, "the template's edit")
    reloaded_with(opened, "Watched-template")


def test_an_edit_to_a_figure_module_is_served_and_the_page_reloads(served, opened):
    opened.evaluate("window.__beforeEdit = true")
    served.edit("figures/depth.py", 'TITLE = "How far', 'TITLE = "Watched-figure how far')
    served_when(lambda: "Watched-figure" in served.get(PAGE), EDIT_S, "the figure's edit")
    reloaded_with(opened, "Watched-figure")


def test_a_broken_figure_shows_its_error_and_the_last_build_stays(served, opened):
    served.edit("figures/depth.py", "TITLE = ", "TITLE = = ")
    line = next(
        n
        for n, text in enumerate((served.tree / "figures/depth.py").read_text().splitlines(), 1)
        if text.startswith("TITLE = = ")
    )
    place = f"figures/depth.py:{line}: SyntaxError"
    served_when(lambda: place in served.terminal(), EDIT_S, "the error in the terminal")
    banner = opened.locator("[data-live-error]")
    banner.wait_for(timeout=EDIT_S * 1000)
    assert place in banner.text_content()
    assert served.state()["error"].startswith(place)
    assert "Watched-figure" in served.get(PAGE)  # the last good build

    served.edit("figures/depth.py", "TITLE = = ", "TITLE = ")
    served_when(lambda: served.state().get("error", "") is None, EDIT_S, "the error cleared")
    banner.wait_for(state="detached", timeout=EDIT_S * 1000)
    assert re.search(r"rebuilt in [\d.]+ s", served.terminal().split(place)[-1])


def test_nothing_of_the_watch_mode_is_in_the_built_files(served):
    pages = list((served.tree / "site").rglob("*.html"))
    assert pages
    for page in pages:
        text = page.read_text()
        assert LIVE not in text and "reload.js" not in text, page
    assert LIVE in served.get(PAGE)  # only what the server sends has it
