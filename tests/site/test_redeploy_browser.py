"""A redeploy, as GitHub Pages does it, against a reader's browser that kept the old files.

The host serves every file for ten minutes from the browser's cache under a fixed name. Two
builds of the site are made here, A and B, B with a line of post 1's prose and a line of the
worker's snapshot script changed; the server answers from A, then, as after a deploy, from B.
Because every file a page loads is named by its content (sitebuild/hashed.py), a page never
combines the two: reloaded, or opened next, it is all B; left open on A, a file of A that is
gone says so and offers a reload.

B changes no figure, so it reuses A's snapshot from the cache (a changed figure would make the
site's heap again, minutes of the suite for what the content hash of every other file already
shows; test_no_page_names_a_file_without_its_hash checks every file, the heap's parts too, is
named by its content). A worker script gone from the server (a 404 where the page expected its
worker) is test_failure_paths_browser.py's outdated page.
"""

import json
import posixpath
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.dom import wait_until
from harness.site import BASE, POST1, SECTION33, SITE_URL
from harness.visit import Visit, until
from pages import post1
from sitebuild.serve import serve_in_thread, switch_root

ROOT = Path(__file__).resolve().parents[2]
PROSE = ROOT / "templates" / "post1.html"  # post 1's prose: a page, not a figure
SCRIPT = ROOT / "static" / "restore.js"  # fetched by the worker once it starts
MARK = "(build B)"
TOPS = ("static", "vendor", "runtime", "notebooks")  # the folders whose files are hashed
HASHED = re.compile(rf"({'|'.join(TOPS)})/(snapshots/)?[0-9a-f]{{12}}/")
# What the tree copy for build B leaves out: the environment, caches, build output.
NOT_COPIED = shutil.ignore_patterns(
    ".git", ".venv", ".cache", "site", "node_modules", "__pycache__", "*.egg-info", ".*_cache"
)
# B has A's public URL, which the notebooks' links name.
BUILD_B = "import build, sys; from pathlib import Path; build.build(Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]), site_url=sys.argv[4])"  # noqa: E501
# What B's snapshot script leaves in the worker: whose build the worker runs.
B_SCRIPT_LINE = f"\nself.redeployMark = {MARK!r};\n"
WORKER_BUILD = "() => self.redeployMark ?? '(build A)'"


def edit_b(tree: Path) -> None:
    """Build B's change, made in ``tree``: a line of prose and a line of the worker's script."""
    prose = tree / PROSE.relative_to(ROOT)
    text = prose.read_text()
    assert "</p>" in text
    prose.write_text(text.replace("</p>", f" {MARK}</p>", 1))
    script = tree / SCRIPT.relative_to(ROOT)
    script.write_text(script.read_text() + B_SCRIPT_LINE)


@pytest.fixture(scope="module")
def site_b(site, cache, tmp_path_factory) -> Path:
    """Build B, built in a process of its own run from a copy of the tree, so that its sources
    are the copy's; its snapshot and runtime come from the shared cache (``site`` built them)."""
    tree = tmp_path_factory.mktemp("tree-b") / "tree"
    shutil.copytree(ROOT, tree, ignore=NOT_COPIED)
    edit_b(tree)
    out = tmp_path_factory.mktemp("site-b")
    command = [sys.executable, "-c", BUILD_B, str(out), BASE, str(cache), SITE_URL]
    done = subprocess.run(command, cwd=tree, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "snapshot: making" not in done.stdout + done.stderr, "B made a snapshot of its own"
    return out


@pytest.fixture(scope="module")
def host(site):
    """A server of its own, which the tests switch between the builds."""
    server = serve_in_thread(site, BASE)
    yield server, f"http://127.0.0.1:{server.server_address[1]}{BASE}"
    server.shutdown()


def prose(v) -> str:
    return v.page.locator("article p").first.inner_text()


def assert_live_on_b(page) -> None:
    """Live from the snapshot, the worker running B's script."""
    wait_until(page, "() => document.documentElement.dataset.figures === 'live'")
    assert page.evaluate("document.documentElement.dataset.start") == "snapshot"
    workers = [w for w in page.workers if "/worker.js" in w.url]
    assert workers and all(w.evaluate(WORKER_BUILD) == MARK for w in workers)


def test_build_b_differs_from_a_in_its_changed_files_only(site, site_b):
    """What the redeploy below is about: post 1's page (and so its notebook) and the worker's
    snapshot script."""
    assert MARK not in (site / POST1 / "index.html").read_text()
    assert MARK in (site_b / POST1 / "index.html").read_text()
    a, b = hashed_files(site), hashed_files(site_b)
    changed = [f"{post1.SLUG}.ipynb", "restore.js"]
    assert [rel.rsplit("/", 1)[1] for rel in sorted(a - b)] == changed
    assert [rel.rsplit("/", 1)[1] for rel in sorted(b - a)] == changed
    assert any("/snapshots/" in rel for rel in a & b)  # one heap for both: reused


def hashed_files(out: Path) -> set[str]:
    return {
        p.relative_to(out).as_posix() for top in TOPS for p in (out / top).rglob("*") if p.is_file()
    }


def test_a_reload_and_the_next_page_after_a_redeploy_are_all_the_new_build(
    browser, host, site, site_b
):
    server, url = host
    switch_root(server, site)
    v = Visit(browser, url + POST1)
    try:
        v.wait_for("live")
        assert MARK not in prose(v)
        assert v.page.workers[0].evaluate(WORKER_BUILD) == "(build A)"
        switch_root(server, site_b)  # the deploy; the browser keeps A's files, fresh for 600 s
        v.page.reload()
        assert_live_on_b(v.page)
        assert prose(v).endswith(MARK)
        second = v.context.new_page()
        second.goto(url + SECTION33)
        assert_live_on_b(second)
        assert not [e for e in v.errors if "sha256" in e or "cut short" in e], v.errors
    finally:
        v.close()


def test_a_page_left_open_whose_next_file_is_gone_offers_a_reload(browser, host, site, site_b):
    """Post 1 of A is open; its worker's snapshot script is still on its way when B is
    deployed, so the host answers 404 for it. The page says so and offers a reload, which
    brings B."""
    server, url = host
    switch_root(server, site)
    held = []
    script = "**/restore.js"
    v = Visit(browser, url + POST1, goto=False, routes=[(script, held.append)])
    try:
        v.open()
        until(v.page, lambda: held, what="the worker's request for restore.js")
        switch_root(server, site_b)
        held[0].continue_()  # to B now, which answers 404
        v.context.unroute(script)
        v.wait_for("outdated")
        status = v.page.locator('[data-figure="three-steps"] .fig-status')
        assert "updated since this page was loaded" in status.inner_text()
        status.locator("button").click()
        assert_live_on_b(v.page)
    finally:
        v.close()


def test_no_page_names_a_file_without_its_hash(site):
    """Every runtime/, static/, vendor/ and notebooks/ file sits in a hashed folder, and every
    page, its config and the lock name files only there, and only files that exist."""
    assert not [rel for rel in hashed_files(site) if not HASHED.match(rel)]
    named = []
    for html in site.rglob("index.html"):
        text = html.read_text()
        named += re.findall(rf'(?:src|href)="{BASE}((?:{"|".join(TOPS)})/[^"]*)"', text)
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
