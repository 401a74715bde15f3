"""A redeploy, as GitHub Pages does it, against a reader's browser that kept the old files.

The host serves every file for ten minutes from the browser's cache under a fixed name. Two
builds of the site are made here, A and B, B with one line of one figure's Python changed;
the server answers from A, then, as after a deploy, from B. Because every file a page loads
is named by its content (sitebuild/hashed.py), a page never combines the two: reloaded, or
opened next, it is all B; left open on A, a file of A that is gone says so and offers a reload.
"""

import base64
import hashlib
import json
import posixpath
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sitebuild import cache as runtime_cache
from sitebuild import snapshot
from sitebuild.serve import serve_in_thread, switch_root
from tests.site.conftest import BASE, LIVE_TIMEOUT_MS, Visit

ROOT = Path(__file__).resolve().parents[2]
POST1 = "attention-without-weights/"
SECTION33 = "section-3-3/"
CHANGED = ROOT / "figures" / "three_steps.py"  # on post 1, not on section 3.3
MARK = " (build B)"
HASHED = re.compile(r"(static|vendor|runtime)/(snapshots/)?[0-9a-f]{12}/")
# What the tree copy for build B leaves out: the environment, caches, build output.
NOT_COPIED = shutil.ignore_patterns(
    ".git", ".venv", ".cache", "site", "node_modules", "__pycache__", "*.egg-info", ".*_cache"
)
BUILD_B = "import build, sys; from pathlib import Path; build.build(Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]))"  # noqa: E501
# The figure module's caption as the worker's Python has it (on a page that shows it).
WORKER_CAPTION = """() => {
  const imp = figuresLive.__dict__.get("__builtins__").get("__import__");
  return imp("importlib").import_module("figures.three_steps").CAPTION;
}"""
# The project's installed RECORD as the worker has it: the sha256 of every file of the wheel,
# the changed figure's too, even on a page that never imports that figure (and so ships none
# of its code: sitebuild/bundle.py).
WORKER_RECORD = """() => {
  const imp = figuresLive.__dict__.get("__builtins__").get("__import__");
  const metadata = imp("importlib").import_module("importlib.metadata");
  return metadata.distribution("attention-explained").read_text("RECORD");
}"""


def record_hash(data: bytes) -> str:
    """A file's hash as a wheel's RECORD writes it."""
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"sha256={digest}"


CHANGED_IN_B = record_hash((CHANGED.read_text() + f"\nCAPTION += {MARK!r}\n").encode())


@pytest.fixture(scope="module")
def site_b(tmp_path_factory) -> Path:
    """Build B: the same tree with one line added to one figure module, built in a process of
    its own run from the copy, so that its Python is the copy's (snapshots of unchanged
    inputs come from the shared cache)."""
    tree = tmp_path_factory.mktemp("tree-b") / "tree"
    shutil.copytree(ROOT, tree, ignore=NOT_COPIED)
    module = tree / CHANGED.relative_to(ROOT)
    module.write_text(module.read_text() + f"\nCAPTION += {MARK!r}\n")
    out = tmp_path_factory.mktemp("site-b")
    cache = runtime_cache.default_cache_dir()
    command = [sys.executable, "-c", BUILD_B, str(out), BASE, str(cache)]
    done = subprocess.run(command, cwd=tree, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return out


@pytest.fixture(scope="module")
def host(site):
    """A server of its own, which the tests switch between the builds."""
    server = serve_in_thread(site, BASE)
    yield server, f"http://127.0.0.1:{server.server_address[1]}{BASE}"
    server.shutdown()


def caption(v) -> str:
    return v.page.locator('[data-figure="three-steps"] .fig-caption').inner_text()


def assert_live_on_b(v, page, shows_the_figure: bool = True) -> None:
    page.wait_for_function(
        "() => document.documentElement.dataset.figures === 'live'", timeout=LIVE_TIMEOUT_MS
    )
    assert page.evaluate("document.documentElement.dataset.start") == "snapshot"
    (worker,) = page.workers
    if shows_the_figure:
        assert worker.evaluate(WORKER_CAPTION).endswith(MARK)
    record = worker.evaluate(WORKER_RECORD)
    assert f"figures/three_steps.py,{CHANGED_IN_B}," in record


def test_build_b_differs_from_a_in_that_figure_only(site, site_b):
    """What the redeploy below is about: the figure's Python and what depends on it."""
    assert MARK not in (site / POST1 / "index.html").read_text()
    assert MARK in (site_b / POST1 / "index.html").read_text()
    a, b = hashed_files(site), hashed_files(site_b)
    assert not [rel for rel in a ^ b if not rel.startswith("runtime/")]  # scripts, CSS, fonts
    assert [rel.rsplit("/", 1)[1] for rel in a - b if rel.endswith(".whl")] == [
        "attention_explained-0.1.0-py3-none-any.whl"
    ]
    assert any(rel.endswith("pyodide.asm.wasm") for rel in a & b)  # Pyodide's core stays


def hashed_files(out: Path) -> set[str]:
    return {
        p.relative_to(out).as_posix()
        for top in ("static", "vendor", "runtime")
        for p in (out / top).rglob("*")
        if p.is_file()
    }


def test_a_reload_and_the_next_page_after_a_redeploy_are_all_the_new_build(
    browser, host, site, site_b
):
    server, url = host
    switch_root(server, site)
    v = Visit(browser, url + POST1)
    try:
        v.wait_for("live")
        assert MARK.strip() not in caption(v)
        switch_root(server, site_b)  # the deploy; the browser keeps A's files, fresh for 600 s
        v.page.reload()
        assert_live_on_b(v, v.page)
        assert caption(v).endswith(MARK.strip())
        second = v.context.new_page()
        second.goto(url + SECTION33)
        assert_live_on_b(v, second, shows_the_figure=False)
        assert not [e for e in v.errors if "sha256" in e or "cut short" in e], v.errors
    finally:
        v.close()


def test_a_page_left_open_whose_next_file_is_gone_offers_a_reload(browser, host, site, site_b):
    """Post 1 of A is open; its saved state is still on its way when B is deployed, so the
    host answers 404 for it. The page says so and offers a reload, which brings B."""
    server, url = host
    switch_root(server, site)
    held = []
    heap = f"**/snapshots/*/{snapshot.HEAP.format(0)}"
    v = Visit(browser, "about:blank")
    try:
        v.context.route(heap, lambda route: held.append(route))
        v.page.goto(url + POST1)
        for _ in range(600):
            if held:
                break
            v.page.wait_for_timeout(100)
        switch_root(server, site_b)
        held[0].continue_()  # to B now, which answers 404
        v.context.unroute(heap)
        v.wait_for("outdated")
        status = v.page.locator('[data-figure="three-steps"] .fig-status')
        assert "updated since this page was loaded" in status.inner_text()
        status.locator("button").click()
        assert_live_on_b(v, v.page)
    finally:
        v.close()


def test_a_worker_script_gone_from_the_server_offers_a_reload(browser, host, site):
    server, url = host
    switch_root(server, site)
    v = Visit(browser, "about:blank")
    try:
        v.context.route("**/worker.js", lambda route: route.fulfill(status=404, body="gone"))
        v.page.goto(url + SECTION33)
        v.wait_for("outdated")
        buttons = v.page.locator("figure[data-figure] .fig-status button")
        assert buttons.first.inner_text() == "Reload"
    finally:
        v.close()


def test_no_page_names_a_file_without_its_hash(site):
    """Every runtime/, static/ and vendor/ file sits in a hashed folder, and every page, its
    config and the lock name files only there, and only files that exist."""
    assert not [rel for rel in hashed_files(site) if not HASHED.match(rel)]
    named = []
    for html in site.rglob("index.html"):
        text = html.read_text()
        named += re.findall(rf'(?:src|href)="{BASE}((?:static|vendor|runtime)/[^"]*)"', text)
        config = re.search(r'id="page-config">(.*?)</script>', text, re.S)
        if config:
            named += [u[len(BASE) :] for u in strings(json.loads(config.group(1)))]
    assert named
    for rel in named:
        assert HASHED.match(rel) and (site / rel).exists(), rel
    (lock,) = (site / "runtime").glob("*/pyodide-lock.json")
    (core,) = {p.parent for p in (site / "runtime").glob("*/pyodide.asm.wasm")}
    for entry in json.loads(lock.read_text())["packages"].values():
        index = core.relative_to(site).as_posix()
        wheel = posixpath.normpath(posixpath.join(index, entry["file_name"]))
        assert HASHED.match(wheel) and (site / wheel).is_file(), entry["file_name"]


def strings(value) -> list[str]:
    """The site URLs anywhere in a page config."""
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    prefixes = tuple(f"{BASE}{top}/" for top in ("static", "vendor", "runtime"))
    return [value] if isinstance(value, str) and value.startswith(prefixes) else []
