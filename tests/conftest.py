"""Test-wide settings, and the fast tier (``./dev test --fast``).

The fast tier is for the edit loop: the core, formatting, the figures and the pages in
CPython, the build's pure parts and the page scripts' logic in Node. It leaves out every test
that needs what takes minutes to make: the whole site built (and its memory snapshot), the
pinned runtime downloaded or unpacked, or a browser. The whole suite stays what CI runs.

Both run on pytest-xdist's workers, one per core. The fast tier keeps a file's tests in one
worker. In the whole suite every test of the slow kind above runs in one worker, in order
(group "site"): the browser tests share one build and one live page per page, and nothing
else touches the runtime's cache; the other tests run beside them.
"""

import os
import shutil
import sys
import tempfile
import threading
from pathlib import Path

import pytest
from hypothesis import settings

from harness import chromium
from harness.site import SITE_ENV
from sitebuild import cache as runtime_cache
from sitebuild.cache import CACHE_ENV
from tests import strategies

# Speed is measured by the benchmark, not by tests: on a loaded 2-core machine the first call
# into torch or Panel can take hundreds of milliseconds, which is not a failure.
settings.register_profile("project", deadline=None)
# The fast tier tries fewer examples of each property (tests.strategies.examples).
settings.register_profile("fast", parent=settings.get_profile("project"), max_examples=20)
settings.load_profile("project")

# A test that asks for one of these, directly or through another fixture, is not in the fast
# tier: the site built whole (tests/site/conftest.py), a browser or the runtime's cache (below).
# In the whole suite these run in the one "site" worker (in_site_worker says which).
SITE_FIXTURES = {"site", "browser", "cache"}
# Slow too: a Jupyter kernel in a Python environment of its own (tests/site/test_notebooks.py),
# and the other engines (tests/site/test_engines.py), which run beside the "site" worker.
SLOW_FIXTURES = SITE_FIXTURES | {"kernel", "engine"}


def pytest_addoption(parser):
    parser.addoption(
        "--fast",
        action="store_true",
        help="the fast tier: no browser, no site build, no runtime download (./dev test --fast)",
    )


# Where the fast tier's runtime cache would be, if a test made one.
NO_CACHE = pytest.StashKey[Path]()


def pytest_configure(config):
    if config.getoption("--fast"):
        strategies.FAST = True
        settings.load_profile("fast")
        # The fast tier has no runtime cache: the controller points the cache at a folder that
        # does not exist (its pytest-xdist workers inherit it), and the run fails if a test
        # made it. Tests that need the cache ask for the `cache` fixture.
        if not hasattr(config, "workerinput"):
            where = Path(tempfile.mkdtemp(prefix="fast-tier-")) / "no-runtime-cache"
            os.environ[CACHE_ENV] = str(where)
            config.stash[NO_CACHE] = where


def pytest_sessionfinish(session):
    if hasattr(session.config, "workeroutput"):
        session.config.workeroutput["python_starts"] = dict(chromium.STARTS)
    where = session.config.stash.get(NO_CACHE, None)
    if where is None:
        return
    made = where.exists()
    shutil.rmtree(where.parent)
    if made:
        session.config.get_terminal_writer().line(
            f"The fast tier filled a runtime cache ({where}): a test that needs the runtime"
            " asks for the `cache` fixture, which keeps it out of the fast tier.",
            red=True,
        )
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def needs(item, fixtures: set[str]) -> bool:
    return item.get_closest_marker("browser") is not None or bool(
        fixtures & set(getattr(item, "fixturenames", ()))
    )


def is_slow(item) -> bool:
    return needs(item, SLOW_FIXTURES)


def in_site_worker(item) -> bool:
    """Whether a slow test runs in the "site" worker: it needs a browser or the runtime's
    cache, which that worker owns; or the built site, unless ``./dev test`` built it before the
    session (SITE_ENV), when the site is a folder every worker only reads."""
    if needs(item, SITE_FIXTURES - {"site"}):
        return True
    return needs(item, {"site"}) and SITE_ENV not in os.environ


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config, items):
    slow = [item for item in items if is_slow(item)]
    if not config.getoption("--fast"):
        for item in slow:
            if in_site_worker(item):
                item.add_marker(pytest.mark.xdist_group("site"))
        return
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if item not in slow]


@pytest.fixture(scope="session")
def cache() -> Path:
    """The real runtime cache, filled if it is not (the first run fetches through npm and pip;
    later runs only re-hash it). A test that builds the site asks for it, which keeps it in the
    one worker that owns the cache."""
    return runtime_cache.ensure_cache(runtime_cache.default_cache_dir(), log=lambda _: None)


# A test still running after this long is named on the run's error stream, once: the quiet
# progress dots would otherwise leave a hung run with no word of which test it waits in.
STILL_RUNNING_S = float(os.environ.get("ATTENTION_STILL_RUNNING_S", 300))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    def say() -> None:
        capture = item.config.pluginmanager.getplugin("capturemanager")
        with capture.global_and_fixture_disabled():  # past the test's own captured output
            print(f"\nstill running after {STILL_RUNNING_S:g} s: {item.nodeid}", file=sys.stderr)

    timer = threading.Timer(STILL_RUNNING_S, say)
    timer.daemon = True
    timer.start()
    try:
        return (yield)
    finally:
        timer.cancel()


# The Python workers the browser tests started (harness/chromium.py counts them), handed by
# pytest-xdist's workers to the controller, which prints the total.
def pytest_testnodedown(node, error):
    chromium.STARTS.update(getattr(node, "workeroutput", {}).get("python_starts", {}))


def pytest_terminal_summary(terminalreporter):
    starts = chromium.STARTS
    if starts:
        terminalreporter.write_line(
            f"Python workers started in the browser: {starts['cold'] + starts['warm']}"
            f" ({starts['cold']} cold, in a fresh context; {starts['warm']} warm)"
        )
