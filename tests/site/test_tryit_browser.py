"""A figure's "Try it" in a real browser (figurekit/tryit.py, static/cells.js): the figure's
own cell opens with the state the figure shows now, runs, and prints the figure's readout;
the reader's change to the state is computed as CPython computes it. A linked view survives
the warm-up rehearsal that builds the figure again off the page.

The first two tests share a page of post 1 of their own (a try-it cell starts the page's cells'
Python); the third is served a different worker, so it starts one of its own."""

import contextlib
import io

import pytest
from playwright.sync_api import expect

from figurekit import tryit
from figures import module
from harness.dom import wait_until
from harness.site import POST1
from harness.visit import LIVE_TIMEOUT_MS as TIMEOUT_MS

pytestmark = pytest.mark.browser
FIGURE = "three-steps"
CELL = f"tryit-{FIGURE}"


def figure(v):
    return v.page.locator(f'[data-figure="{FIGURE}"]')


def readout_lines(v) -> str:
    """The figure's readout as its cell prints it: "label: text" per row."""
    return (
        figure(v)
        .locator("dl.readout > div")
        .evaluate_all(
            "rows => rows.map((r) => `${r.querySelector('dt').textContent}: `"
            " + r.querySelector('dd').textContent).join('\\n')"
        )
    )


def try_it(v) -> None:
    """Open the figure's source panel, press Try it, wait for its cell's run to end."""
    figure(v).locator("details.fig-source > summary").click()
    figure(v).get_by_role("button", name="Try it", exact=False).click()
    wait_run(v)


def wait_run(v) -> None:
    wait_until(
        v.page,
        "(id) => { const el = document.querySelector(`[data-cell='${id}']`);"
        " return el.dataset.running === 'false' && !el.querySelector('[data-cell-output]').hidden"
        " && el.querySelector('.cell-note').textContent !== 'Running…'; }",
        arg=CELL,
        timeout=TIMEOUT_MS,
    )


def output(v) -> str:
    return v.page.locator(f'[data-cell="{CELL}"] [data-cell-output]').text_content()


def cpython_readout(state) -> str:
    mod = module(FIGURE)
    before, after = tryit.cell_parts(mod)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(before + tryit.state_code(state) + after, {"__name__": "__cell__"})
    return out.getvalue().rstrip("\n")


@pytest.fixture(scope="module")
def tryit_page(visit):
    v = visit(POST1)
    v.wait_for("live")
    return v


def test_try_it_opens_the_figures_state_and_prints_its_readout(tryit_page):
    v = tryit_page
    v.show(FIGURE)
    figure(v).locator("select").first.select_option("step")
    expect(figure(v).locator("dl.readout dt").first).to_have_text("ω for step")
    shown = readout_lines(v)
    try_it(v)
    # Its code is the figure's state now, not the build's default: not the reader's edit, but
    # Reset takes it back to the build's code.
    cell = v.page.locator(f'[data-cell="{CELL}"]')
    expect(cell).to_have_attribute("data-edited", "false")
    expect(cell.get_by_role("button", name="Reset", exact=False)).to_be_visible()
    assert output(v) == shown
    state = tryit.default_state(module(FIGURE))._replace(query="step")
    assert output(v) == cpython_readout(state)
    # The reader changes the state in the cell: CPython's numbers for it.
    edited = state._replace(query="one")
    before, after = tryit.cell_parts(module(FIGURE))
    type_code_in_tryit(v, before + tryit.state_code(edited) + after)
    expect(cell).to_have_attribute("data-edited", "true")
    v.page.keyboard.press("Control+Enter")
    wait_run(v)
    assert output(v) == cpython_readout(edited)
    assert v.errors == []


def type_code_in_tryit(v, code: str) -> None:
    editor = v.page.locator(f'[data-cell="{CELL}"] .cm-content')
    editor.focus()
    v.page.keyboard.press("Control+a")
    v.page.keyboard.insert_text(code)


def test_a_linked_view_is_what_try_it_loads_after_the_rehearsal(tryit_page, server_url):
    """The rehearsal builds every figure again at its defaults, off the page: the cell must
    still get the state on the page. (The module's page, opened at the link: a warm start.)"""
    v = tryit_page
    v.page.goto(server_url + POST1 + f"?{FIGURE}.query-token=with#figure-{FIGURE}")
    v.wait_for("live")
    expect(figure(v).locator("dl.readout dt").first).to_have_text("ω for with")
    wait_until(v.page, "() => harnessProbe.received.rehearsed === 1", timeout=TIMEOUT_MS)
    try_it(v)
    assert "query='with'" in v.page.locator(f'[data-cell="{CELL}"] .cm-content').text_content()
    assert output(v) == readout_lines(v)
    assert "with" in output(v)


def test_a_state_python_cannot_read_leaves_the_cell_its_own_and_the_figures_live(visit):
    """The figures' worker is served asking Python for a figure it does not know when a cell
    wants a state: the cell runs with the state it had and says why; the figures stay live."""
    call = "figuresLive.state_code(figure)"

    def worker_that_cannot_read_a_state(route):
        script = route.fetch().text()
        assert script.count(call) == 1, "the worker's state call changed: update this test"
        faulty = script.replace(call, 'figuresLive.state_code("no-such-figure")')
        route.fulfill(body=faulty, content_type="text/javascript")

    v = visit(POST1, routes=[("**/worker.js", worker_that_cannot_read_a_state)])
    v.wait_for("live")
    try_it(v)
    note = v.page.locator(f'[data-cell="{CELL}"] .cell-note')
    expect(note).to_have_text(
        "No figure state (Python could not read it): the cell keeps the state it had."
    )
    assert output(v) == cpython_readout(tryit.default_state(module(FIGURE)))
    v.show(FIGURE)
    figure(v).locator("select").first.select_option("step")
    expect(figure(v).locator("dl.readout dt").first).to_have_text("ω for step")
    assert v.page.evaluate("() => document.documentElement.dataset.figures") == "live"
    assert v.errors == []
