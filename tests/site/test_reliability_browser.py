"""Reliability in a real browser: ordering under a burst of control changes, the worker's
memory over that burst, and a wheel that does not match its hash refused. (Every way going
live can fail, each with a working retry, is test_failure_paths_browser.py.)

Nothing here needs a test hook in the site's own code: Playwright reaches the figures' Bokeh
models through ``Bokeh.index`` (the views on screen) and the worker through ``page.workers``.
The bursts share a page of post 1 of their own, whose only worker is the figures'.
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
from harness.site import BASE, POST1, SECTION33
from harness.visit import Visit
from sitebuild.serve import serve_in_thread

pytestmark = pytest.mark.browser
CHANGES = 1000
# The worker's worker.live module is a top-level binding there (figuresLive); through it,
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


@pytest.fixture(scope="module")
def post1(visit):
    """Post 1, live, scrolled to the figure the bursts change (drawn as the reader nears it)."""
    v = visit(POST1)
    v.wait_for("live")
    v.show("three-steps")
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
    post1.wait_idle()  # every change answered: a stale or late reply would have landed
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


def matmul_default() -> str:
    return vec(query_scores(book_inputs(), TOKENS.index("journey")))


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
    # The wheels are loaded by the ordinary start, which runs when there is no snapshot.
    v = Visit(browser, tampered_url + SECTION33, block="**/runtime/snapshots/**")
    try:
        v.wait_for("failed")
        status = status_of(v, "matmul-scores")
        assert status.startswith("Not live:") and "attention" in status, status
        v.show("matmul-scores")
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
