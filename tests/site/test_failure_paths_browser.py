"""Every way going live can fail, seen as a reader and a screen reader get it: while Python is
on its way each figure is busy and its controls hold the reader's changes, saying so; once it
has failed the status line says what happened, every control is disabled (read from the
browser's accessibility tree, where Bokeh's widgets and a11y.js's states meet), and Retry,
after the cause is gone, brings the figures live with the controls enabled and the held change
applied. No failure leaves an uncaught error or an unhandled rejection behind.

A "gate" holds the requests a failure is made of, so that the page is seen starting, then
fails them (or answers them 404, as after a redeploy) when the test says. Each test needs a
start of its own (one that fails, or a worker it breaks), so each opens a page of its own.
(A snapshot that cannot be unpacked, which the page survives by the ordinary start, is in
test_snapshot_browser.py with the snapshot's other fallbacks.)"""

import pytest
from playwright.sync_api import expect

from attention.basics import query_scores
from attention.fixtures import TOKENS, book_inputs
from formatting import vec
from harness.dom import ax_name, ax_nodes, ax_properties, ax_role, wait_until
from harness.site import POST1, SECTION33
from harness.visit import until

pytestmark = pytest.mark.browser
STATUS = "figure[data-figure] .fig-status"
# The roles of the figures' controls in the accessibility tree.
CONTROL_ROLES = {"slider", "spinbutton", "combobox", "radio", "button", "textbox", "checkbox"}
# Buttons that must work whatever Python does: they are how the reader gets it back.
RECOVERY = {"Retry", "Reload"}
# A figure's "Link to this view" and "Reset", which work only while it is live.
VIEW = {"Link to this view", "Reset"}


class Gate:
    """Holds the requests matching `patterns` until `fail` (abort them, and any later one) or
    `gone` (answer 404, as a file removed by a redeploy); `open` lets every request through."""

    def __init__(self, context, patterns: list[str]):
        self.context, self.patterns, self.held, self.mode = context, patterns, [], "hold"
        for pattern in patterns:
            context.route(pattern, self.handle)

    def handle(self, route) -> None:
        if self.mode == "hold":
            self.held.append(route)
        elif self.mode == "fail":
            route.abort()
        else:
            route.fulfill(status=404, body="gone")

    def release(self, mode: str) -> None:
        self.mode = mode
        held, self.held = self.held, []
        for route in held:
            self.handle(route)

    def open(self) -> None:
        for pattern in self.patterns:
            self.context.unroute(pattern)


class Console:
    """The page's uncaught errors (pageerror: the page's and its workers' uncaught exceptions and
    unhandled rejections) and console errors, from now on."""

    def __init__(self, page):
        self.uncaught: list[str] = []
        self.errors: list[str] = []
        page.on("pageerror", lambda e: self.uncaught.append(str(e)))
        page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))

    def assert_clean(self, expected: str = "") -> None:
        """No uncaught error or unhandled rejection, but the one a test caused on purpose. A
        console error of a blocked download is the browser's report, not an uncaught error."""
        uncaught = [e for e in self.uncaught if not (expected and expected in e)]
        uncaught += [e for e in self.errors if "Uncaught" in e or "Unhandled" in e]
        assert uncaught == [], uncaught


def ax_figures(page) -> dict[str, dict]:
    """Each figure of the page as the accessibility tree has it, by its title: whether it is
    busy, and its controls as (role, name, disabled)."""
    nodes = ax_nodes(page)
    by_id = {node["nodeId"]: node for node in nodes}

    def prop(node, name):
        return ax_properties(node).get(name)

    def below(node):
        for child_id in node.get("childIds", []):
            child = by_id.get(child_id)
            if child:
                yield child
                yield from below(child)

    figures = {}
    for node in nodes:
        if ax_role(node) != "figure" or node.get("ignored"):
            continue
        controls = []
        for child in below(node):
            role, name = ax_role(child), ax_name(child)
            if child.get("ignored") or role not in CONTROL_ROLES:
                continue
            controls.append((role, name, bool(prop(child, "disabled"))))
        title = ax_name(node)
        figures[title] = {"busy": bool(prop(node, "busy")), "controls": controls}
    assert figures, "no figure in the accessibility tree"
    return figures


def assert_controls(v, *, disabled: bool, busy: bool) -> None:
    """Every figure's controls are disabled (or all enabled), Retry and Reload always enabled,
    the view's buttons enabled only when live, and every figure busy (or none). Each figure is
    scrolled to first: those the page had not drawn are drawn in the state the others are in."""
    v.show_every_figure()
    live = not disabled and not busy
    for title, fig in ax_figures(v.page).items():
        assert fig["busy"] is busy, f"{title}: busy is {fig['busy']}"
        controls = [c for c in fig["controls"] if c[1] not in RECOVERY | VIEW]
        assert controls, f"{title}: no control in the accessibility tree"
        wrong = [c for c in controls if c[2] is not disabled]
        wrong += [c for c in fig["controls"] if c[1] in RECOVERY and c[2]]
        wrong += [c for c in fig["controls"] if c[1] in VIEW and c[2] is live]
        assert not wrong, f"{title}: {wrong}"


def eventually(page, check, timeout_ms: int = 20_000) -> None:
    """Run `check` until it passes (a redrawn pre-render or a re-rendered widget takes frames)."""

    def passes() -> bool:
        try:
            check()
        except AssertionError:
            return False
        return True

    try:
        until(page, passes, timeout_ms)
    except AssertionError:
        check()  # fails, saying what is still wrong
        raise


def statuses(page) -> list[str]:
    return page.locator(STATUS).all_inner_texts()


def assert_busy_while_starting(v) -> None:
    """Right after a (re)start: the figures are waiting, busy, and their controls usable. (A
    Retry's click is answered at the page's next task: its state is read once it has left
    "failed".)"""
    wait_until(v.page, "() => document.documentElement.dataset.figures !== 'failed'")
    assert v.page.evaluate("() => document.documentElement.dataset.figures") == "static"
    assert_controls(v, disabled=False, busy=True)


def choose_step(v) -> None:
    """The reader scrolls to section 3.3's first figure and picks 'step' as the query."""
    v.show("matmul-scores")
    v.page.locator('[data-figure="matmul-scores"] select').select_option("step")


def hold_a_change(v) -> None:
    """The reader picks 'step' in section 3.3's first figure while Python is on its way: the
    figure says the change waits for Python."""
    choose_step(v)
    status = v.page.locator('[data-figure="matmul-scores"] .fig-status')
    expect(status).to_contain_text("Waiting for Python")


def step_scores() -> str:
    return vec(query_scores(book_inputs(), TOKENS.index("step")))


def opened_held(visit, path: str, patterns: list[str]):
    """`path` opened with `patterns` held from the first request on, and its console."""
    v = visit(path, goto=False)
    gate = Gate(v.context, patterns)
    console = Console(v.page)
    v.open()
    v.wait_for("static")
    return v, gate, console


def matmul_default() -> str:
    """Section 3.3's first readout as pre-rendered: journey's scores."""
    return vec(query_scores(book_inputs(), TOKENS.index("journey")))


@pytest.mark.parametrize(
    ("blocked", "why"),
    [
        # The snapshot's zstd copy of the runtime, then the runtime itself (the ordinary start).
        (["**/pyodide.asm.wasm*"], "pyodide.asm.wasm"),
        # No snapshot, and a wheel the ordinary start needs.
        (["**/runtime/snapshots/**", "**/numpy-*.whl"], "numpy"),
        (["**/worker.js"], "worker"),
    ],
    ids=["blocked-runtime", "blocked-snapshot-and-wheel", "blocked-worker"],
)
def test_a_failed_start_is_said_disabled_and_retried(visit, blocked, why):
    v, gate, console = opened_held(visit, SECTION33, blocked)
    assert_busy_while_starting(v)
    hold_a_change(v)
    gate.release("fail")
    v.wait_for("failed")
    for status in statuses(v.page):
        assert status.startswith("Not live:") and why in status and "Retry" in status, status
    # The pre-render's numbers stay readable, and every figure offers its own Retry.
    expect(v.readout_locator("matmul-scores", "scores")).to_have_text(matmul_default())
    buttons = v.page.locator(f"{STATUS} button")
    expect(buttons).to_have_count(v.page.locator(STATUS).count())
    expect(buttons.first).to_have_text("Retry")
    eventually(v.page, lambda: assert_controls(v, disabled=True, busy=False))
    console.assert_clean()

    gate.open()
    v.page.locator(f"{STATUS} button").first.click()
    assert_busy_while_starting(v)
    v.wait_for("live")
    expect(v.page.locator(f"{STATUS} button")).to_have_count(0)
    assert_controls(v, disabled=False, busy=False)
    # The change held before the failure is Python's now.
    expect(v.readout_locator("matmul-scores", "scores")).to_have_text(step_scores())
    console.assert_clean()


def test_the_blocked_runtime_on_a_post_leaves_no_uncaught_error(visit):
    """Post 1 has most kinds of control: each is disabled once its runtime is blocked."""
    v, gate, console = opened_held(visit, POST1, ["**/pyodide.asm.wasm*"])
    assert_busy_while_starting(v)
    gate.release("fail")
    v.wait_for("failed")
    # The pre-render stays readable, and says why it is not live.
    v.show("three-steps")
    expect(v.readout_locator("three-steps", "context")).to_have_text("[0.4419, 0.6515, 0.5683]")
    assert v.status("three-steps").inner_text().startswith("Not live:")
    eventually(v.page, lambda: assert_controls(v, disabled=True, busy=False))
    roles = {c[0] for fig in ax_figures(v.page).values() for c in fig["controls"]}
    assert {"slider", "textbox", "combobox", "radio", "button"} <= roles, roles
    console.assert_clean()


def test_an_outdated_page_says_so_and_disables_its_controls(visit):
    """The worker's script answers 404, as after a redeploy: the page offers a Reload."""
    v, gate, console = opened_held(visit, SECTION33, ["**/worker.js"])
    gate.release("gone")
    v.wait_for("outdated")
    for status in statuses(v.page):
        assert status.startswith("Not live:") and "Reload" in status, status
    expect(v.page.locator(f"{STATUS} button").first).to_have_text("Reload")
    eventually(v.page, lambda: assert_controls(v, disabled=True, busy=False))
    console.assert_clean()


@pytest.mark.parametrize(
    ("fault", "why", "expected"),
    [
        ("setTimeout(() => { throw new Error('worker crashed'); })", "worker crashed", "crashed"),
        ("self.close()", "stopped responding", ""),  # silent: noticed when a change is unanswered
    ],
    ids=["worker-throws", "worker-dies"],
)
def test_a_worker_failing_after_going_live_disables_until_retry(visit, fault, why, expected):
    v = visit(SECTION33)
    console = Console(v.page)
    v.wait_for("live")
    assert_controls(v, disabled=False, busy=False)
    (worker,) = v.page.workers
    worker.evaluate(fault)
    if not expected:
        choose_step(v)
    v.wait_for("failed")
    for status in statuses(v.page):
        assert status.startswith("Not live:") and why in status, status
    # The pre-render is drawn again, its numbers and its controls disabled.
    v.show("matmul-scores")
    expect(v.readout_locator("matmul-scores", "scores")).to_have_text(matmul_default())
    eventually(v.page, lambda: assert_controls(v, disabled=True, busy=False))
    console.assert_clean(expected)

    v.page.locator(f"{STATUS} button").first.click()
    assert_busy_while_starting(v)
    v.wait_for("live")
    assert_controls(v, disabled=False, busy=False)
    choose_step(v)
    expect(v.readout_locator("matmul-scores", "scores")).to_have_text(step_scores())
    console.assert_clean(expected)


def test_a_figure_taken_back_to_its_placeholder_keeps_no_data_table(visit):
    """A failure takes every figure back to its pre-render, drawn again only near the reader:
    one left as a placeholder keeps nothing of its drawing, its plots' Data disclosure too."""
    v = visit(POST1)
    v.wait_for("live")
    v.show_every_figure()  # each drawn once, with its Data disclosure; then back to the top
    far = "figure[data-figure]:not([data-drawn])"
    with_data = f"{far}:has(> details.fig-data)"
    (worker,) = v.page.workers
    worker.evaluate("setTimeout(() => { throw new Error('worker crashed'); })")
    v.wait_for("failed")
    assert v.page.locator(far).count() > 0  # figures far from the top are placeholders again
    assert v.page.locator(with_data).count() == 0
