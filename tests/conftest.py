"""Test-wide settings, the fast tier (``./dev test --fast``), and how the suite shares the
machine's cores.

The fast tier is for the edit loop: the core, formatting, the figures and the pages in
CPython, the build's pure parts and the page scripts' logic in Node. It leaves out every test
that needs what takes minutes to make: the whole site built (and its memory snapshot), the
pinned runtime downloaded or unpacked, or a browser. The whole suite stays what CI runs.

``./dev test`` runs the suite on pytest-xdist's workers, one per core: every test of the slow
kind above runs on one of them (group "site"), in order, so that the site is built once, the
runtime's cache is filled by one process and the browser pages are shared; the other tests
run beside them.
"""

import pytest
from hypothesis import settings

from harness import chromium
from tests import strategies

# Speed is measured by the benchmark, not by tests: on a loaded 2-core machine the first call
# into torch or Panel can take hundreds of milliseconds, which is not a failure.
settings.register_profile("project", deadline=None)
# The fast tier tries fewer examples of each property (tests.strategies.examples).
settings.register_profile("fast", parent=settings.get_profile("project"), max_examples=20)
settings.load_profile("project")

# A test that asks for one of these, directly or through another fixture, is not in the fast
# tier: the site built whole (tests/site/conftest.py), a browser or the runtime's cache
# (tests/sitebuild/conftest.py).
SLOW_FIXTURES = {"site", "browser", "cache"}


def pytest_addoption(parser):
    parser.addoption(
        "--fast",
        action="store_true",
        help="the fast tier: no browser, no site build, no runtime download (./dev test --fast)",
    )


def pytest_configure(config):
    if config.getoption("--fast"):
        strategies.FAST = True
        settings.load_profile("fast")


def is_slow(item) -> bool:
    return item.get_closest_marker("browser") is not None or bool(
        SLOW_FIXTURES & set(getattr(item, "fixturenames", ()))
    )


def pytest_collection_modifyitems(config, items):
    slow = [item for item in items if is_slow(item)]
    for item in slow:
        item.add_marker(pytest.mark.xdist_group("site"))
    if not config.getoption("--fast"):
        return
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if not is_slow(item)]


# The Python workers the browser tests started (harness/chromium.py counts them), summed over
# pytest-xdist's workers: each hands its count to the controller, which prints the total.
def pytest_sessionfinish(session):
    if hasattr(session.config, "workeroutput"):
        session.config.workeroutput["python_starts"] = dict(chromium.STARTS)


def pytest_testnodedown(node, error):
    chromium.STARTS.update(getattr(node, "workeroutput", {}).get("python_starts", {}))


def pytest_terminal_summary(terminalreporter):
    starts = chromium.STARTS
    if starts:
        terminalreporter.write_line(
            f"Python workers started in the browser: {starts['cold'] + starts['warm']}"
            f" ({starts['cold']} cold, in a fresh context; {starts['warm']} warm)"
        )
