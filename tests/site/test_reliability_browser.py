"""Reliability in a real browser: ordering under a burst of control changes, the worker's
memory over that burst, and every way going live can fail (each with a working retry).

Nothing here needs a test hook in the site's own code: Playwright reaches the figures' Bokeh
models through ``Bokeh.index`` (the views on screen) and the worker through ``page.workers``.
"""

import os
import random
import shutil
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import expect

from attention.basics import context, query_scores, softmax
from attention.fixtures import TOKENS, book_inputs
from formatting import vec
from sitebuild.serve import serve_in_thread
from tests.site.conftest import BASE, LIVE_TIMEOUT_MS

pytestmark = pytest.mark.browser
POST1 = "attention-without-weights/"
SECTION33 = "section-3-3/"
CHANGES = 1000
STATUS = "figure[data-figure] .fig-status"
# The worker's figures.live module is a top-level binding there (figuresLive); through it,
# Python's own __import__ reads the WebAssembly heap size and the number of objects tracked.
WORKER_MEMORY = """() => {
  const imp = figuresLive.__dict__.get("__builtins__").get("__import__");
  const gc = imp("gc");
  gc.collect();
  return { heap: imp("pyodide_js")._module.HEAPU8.length, objects: gc.get_objects().length };
}"""
# Set a Bokeh widget's value by its (unique) title, as the reader's own change would.
SETTER = """const models = [...Bokeh.index].flatMap((view) => [...view.model.references()]);
const set = ([title, value]) => {
  models.find((m) => m.title === title && "value" in m).value = value;
};"""
# Changes in order; every seventh one waits a task, so patches queue, coalesce and cross
# the worker's replies instead of collapsing into one.
BURST = (
    "async (changes) => {"
    + SETTER
    + """for (const [i, change] of changes.entries()) {
    set(change);
    if (i % 7 === 0) await new Promise((r) => setTimeout(r, 0));
  }
}"""
)


def expected_context(X: np.ndarray, token: str) -> str:
    return vec(context(softmax(query_scores(X, TOKENS.index(token))), X))


def worker_memory(v) -> dict:
    (worker,) = v.page.workers
    return worker.evaluate(WORKER_MEMORY)


def status_of(v, figure_id: str) -> str:
    return v.page.locator(f'[data-figure="{figure_id}"] .fig-status').inner_text()


def assert_failed_readably(v, figure_id: str, readout: str, default: str, why: str) -> None:
    """Failed: the pre-render's numbers, 'Not live' and the reason, a Retry button."""
    v.wait_for("failed")
    expect(v.readout_locator(figure_id, readout)).to_have_text(default)
    status = status_of(v, figure_id)
    assert status.startswith("Not live:") and why in status, status
    buttons = v.page.locator(f"{STATUS} button")
    expect(buttons).to_have_count(v.page.locator(STATUS).count())
    expect(buttons.first).to_have_text("Retry")


def retry_goes_live(v) -> None:
    v.page.locator(f"{STATUS} button").first.click()
    v.wait_for("live")
    expect(v.page.locator(f"{STATUS} button")).to_have_count(0)


@pytest.fixture(scope="module")
def post1(visit):
    v = visit(POST1)
    v.wait_for("live")
    return v


def burst(v, changes: list) -> None:
    v.page.evaluate(BURST, changes)


def test_a_thousand_rapid_changes_end_in_the_last_ones_state(post1):
    """Changes to two embedding numbers of one figure; it ends at the last change of each."""
    rng = random.Random(7)
    titles = ["step x₁", "Your x₂"]
    changes = [[rng.choice(titles), round(rng.uniform(-3, 3), 2)] for _ in range(CHANGES - 2)]
    changes += [["Your x₂", -1.25], ["step x₁", 2.75]]
    before = worker_memory(post1)
    burst(post1, changes)
    X = book_inputs()
    X[TOKENS.index("step"), 0] = 2.75
    X[TOKENS.index("Your"), 1] = -1.25
    want = expected_context(X, "journey")
    readout = post1.readout_locator("three-steps", "context")
    expect(readout).to_have_text(want, timeout=60_000)
    post1.page.wait_for_timeout(1000)  # a stale or late reply would have landed by now
    assert readout.inner_text() == want
    after = worker_memory(post1)
    print(f"\nworker memory over {CHANGES} changes: before {before}, after {after}")
    # The WebAssembly heap only grows; a leak per change would show as megabytes here.
    assert after["heap"] - before["heap"] <= 16 * 2**20
    assert after["objects"] - before["objects"] < CHANGES
    assert post1.errors == []


def test_a_second_burst_does_not_grow_the_worker(post1):
    """After one burst has settled, an identical second burst adds nothing that stays."""
    X = book_inputs()
    step_x1 = float(X[TOKENS.index("step"), 0])
    your_x2 = float(X[TOKENS.index("Your"), 1])  # the test above moved it
    changes = [["step x₁", (i % 50) / 10] for i in range(CHANGES)]
    changes += [["Your x₂", your_x2], ["step x₁", 3.5]]
    readout = post1.readout_locator("three-steps", "context")

    def settle(value: float) -> None:
        X[TOKENS.index("step"), 0] = value
        expect(readout).to_have_text(expected_context(X, "journey"), timeout=60_000)

    def round_trip() -> dict:
        burst(post1, changes)
        settle(3.5)
        burst(post1, [["step x₁", step_x1]])
        settle(step_x1)
        return worker_memory(post1)

    first = round_trip()
    second = round_trip()
    print(f"\nworker memory after one burst {first}, after another {second}")
    assert second["heap"] == first["heap"]
    assert abs(second["objects"] - first["objects"]) < 200


@pytest.mark.parametrize(
    ("blocked", "why"),
    [
        (["**/pyodide.asm.wasm*"], "pyodide.asm.wasm"),
        # A wheel is only loaded by the ordinary start, which runs when the snapshot is missing.
        (["**/runtime/snapshots/**", "**/bokeh-*.whl"], "bokeh"),
        (["**/worker.js"], "worker"),
    ],
)
def test_a_blocked_file_fails_readably_and_retry_recovers(visit, blocked, why):
    v = visit(SECTION33, block=blocked)
    assert_failed_readably(v, "matmul-scores", "scores", matmul_default(), why)
    for pattern in blocked:
        v.context.unroute(pattern)
    retry_goes_live(v)
    expect(v.readout_locator("matmul-scores", "scores")).to_have_text(matmul_default())


def matmul_default() -> str:
    return vec(query_scores(book_inputs(), TOKENS.index("journey")))


def test_a_worker_that_dies_after_going_live_is_noticed_and_retried(visit):
    v = visit(SECTION33)
    v.wait_for("live")
    (worker,) = v.page.workers
    worker.evaluate("self.close()")  # gone without a word, like a crashed process
    v.page.locator('[data-figure="matmul-scores"] select').select_option("step")
    assert_failed_readably(v, "matmul-scores", "scores", matmul_default(), "stopped responding")
    retry_goes_live(v)
    v.page.locator('[data-figure="matmul-scores"] select').select_option("step")
    want = vec(query_scores(book_inputs(), TOKENS.index("step")))
    expect(v.readout_locator("matmul-scores", "scores")).to_have_text(want)


def test_a_worker_that_throws_after_going_live_fails_at_once(visit):
    v = visit(SECTION33)
    v.wait_for("live")
    (worker,) = v.page.workers
    worker.evaluate("setTimeout(() => { throw new Error('worker crashed'); })")
    assert_failed_readably(v, "matmul-scores", "scores", matmul_default(), "worker crashed")
    retry_goes_live(v)


@pytest.fixture(scope="module")
def tampered_url(site, tmp_path_factory):
    """A copy of the site (hard links) whose project wheel has one byte changed."""
    copy = tmp_path_factory.mktemp("tampered") / "site"
    shutil.copytree(site, copy, copy_function=os.link)
    (wheel,) = (copy / "runtime").glob("*/attention_explained-*.whl")
    data = bytearray(wheel.read_bytes())
    data[len(data) // 2] ^= 0xFF
    wheel.unlink()  # break the hard link before writing
    wheel.write_bytes(bytes(data))
    server = serve_in_thread(copy, BASE)
    yield f"http://127.0.0.1:{server.server_address[1]}{BASE}"
    server.shutdown()


def test_a_wheel_not_matching_its_sha256_is_refused(browser, tampered_url):
    from tests.site.conftest import Visit

    # The wheels are loaded by the ordinary start, which runs when there is no snapshot.
    v = Visit(browser, tampered_url + SECTION33, block="**/runtime/snapshots/**")
    try:
        v.page.wait_for_function(
            "() => document.documentElement.dataset.figures === 'failed'", timeout=LIVE_TIMEOUT_MS
        )
        status = status_of(v, "matmul-scores")
        assert status.startswith("Not live:") and "attention" in status, status
        assert v.readout("matmul-scores", "scores") == matmul_default()
    finally:
        v.close()


def test_the_tampered_copy_differs_only_in_that_wheel(site, tampered_url):
    """The refusal above is about the bytes: the lock file still names the built hash."""
    import hashlib
    import json

    (lock_file,) = (site / "runtime").glob("*/pyodide-lock.json")
    lock = json.loads(lock_file.read_text())
    (wheel,) = (site / "runtime").glob("*/attention_explained-*.whl")
    entry = next(p for p in lock["packages"].values() if p["file_name"].endswith(wheel.name))
    assert hashlib.sha256(wheel.read_bytes()).hexdigest() == entry["sha256"]
    assert Path(wheel).stat().st_size > 0
