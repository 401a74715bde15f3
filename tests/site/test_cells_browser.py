"""The reader's cells in a real browser (static/cells.js, the cell-run block of worker.js): a
page's code blocks run in the page's Python once live, in one namespace in page order, with the
output CPython gives for the same code; edits persist across a reload until Reset; runaway or
bad code is stopped or reported, and the figures stay live; the keyboard alone is enough.

The tests share one live page of post 2 of their own (its cells' edits and Python are theirs
to change), its cells put back between tests; the checks of what a page does before anything
was run or focused open a fresh one."""

import ast
import contextlib
import io
import statistics

import panel
import pytest
from playwright.sync_api import expect

from harness.dom import wait_until
from harness.site import BASE
from harness.site import POST2 as PAGE
from harness.visit import LIVE_TIMEOUT_MS as TIMEOUT_MS
from pages import exercises
from sitebuild import snapshot

pytestmark = pytest.mark.browser


def cell(v, number: int):
    return v.page.locator(f'[data-cell="{number}"]')


def output(v, number: int) -> str:
    return cell(v, number).locator("[data-cell-output]").text_content()


def originals(v) -> list[str]:
    """The page's cells' code as the build ran it (not the exercises' and figures' own)."""
    return v.page.eval_on_selector_all(
        "[data-cell]:not([data-cell-solo]) [data-cell-code]",
        "els => els.map((el) => el.textContent.replace(/\\n$/, ''))",
    )


def in_cpython(codes: list[str]) -> list[str]:
    """What each code prints, and its last expression's value, run in order in one namespace."""
    namespace: dict = {"__name__": "__main__"}
    outputs = []
    for code in codes:
        tree = ast.parse(code)
        last = tree.body.pop() if isinstance(tree.body[-1], ast.Expr) else None
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(tree, "<cell>", "exec"), namespace)
            if last is not None:
                value = eval(compile(ast.Expression(last.value), "<cell>", "eval"), namespace)
                if value is not None:
                    print(repr(value))
        outputs.append(out.getvalue().rstrip("\n"))
    return outputs


def run(v, number: int) -> None:
    """Press the cell's Run and wait for its run (and those of the cells before it) to end."""
    cell(v, number).get_by_role("button", name="Run").click()
    wait_run(v, number)


def wait_run(v, number: int) -> None:
    wait_until(
        v.page,
        '(n) => { const el = document.querySelector(`[data-cell="${n}"]`);'
        " return el.dataset.running === 'false' && el.querySelector('.cell-note').textContent"
        " !== 'Running…'; }",
        arg=number,
        timeout=TIMEOUT_MS,
    )


def type_code(v, number: int, code: str) -> None:
    """Open the cell's editor and replace its code (insert_text: no auto-indent)."""
    editor = cell(v, number).locator(".cm-content")
    (editor if editor.count() else cell(v, number).locator("pre.code")).focus()
    expect(editor).to_be_focused(timeout=TIMEOUT_MS)
    v.page.keyboard.press("Control+a")
    v.page.keyboard.insert_text(code)


@pytest.fixture(scope="module")
def cells_page(visit):
    v = visit(PAGE)
    v.wait_for("live")
    return v


@pytest.fixture
def live_post2(cells_page):
    """The module's page of post 2, live, every cell as the build ran it (Reset on each edited
    one), no errors on record."""
    v = cells_page
    edited = v.page.locator('[data-cell][data-edited="true"]')
    for left in range(edited.count() - 1, -1, -1):
        edited.first.get_by_role("button", name="Reset").first.click()
        expect(edited).to_have_count(left)
    v.page.evaluate("() => localStorage.clear()")
    v.errors.clear()
    yield v
    assert v.settled() == "live"


def test_running_a_cell_runs_the_earlier_ones_first_with_cpythons_output(live_post2):
    v = live_post2
    codes = originals(v)
    assert len(codes) >= 3
    expected = in_cpython(codes[:3])
    run(v, 3)
    assert [output(v, n) for n in (1, 2, 3)] == expected
    # The shared namespace: a later cell sees what an earlier one defined.
    type_code(v, 2, "shared = X.shape[0] * 7\nshared")
    v.page.keyboard.press("Control+Enter")
    wait_run(v, 2)
    type_code(v, 3, "shared + 1")
    v.page.keyboard.press("Control+Enter")
    wait_run(v, 3)
    assert output(v, 2) == "42" and output(v, 3) == "43"
    assert not v.errors


def test_edits_persist_across_a_reload_until_reset(live_post2):
    v = live_post2
    original_output = output(v, 2)
    # Printed the same whatever numpy print options the page's earlier cells set.
    code = "import numpy as np\n(np.arange(6).reshape(2, 3) * 0.5).tolist()"
    type_code(v, 2, code)
    v.page.keyboard.press("Control+Enter")
    wait_run(v, 2)
    assert output(v, 2) == in_cpython([code])[0]
    assert cell(v, 2).get_attribute("data-edited") == "true"
    v.page.reload()
    assert cell(v, 2).locator("pre.code").text_content().strip() == code
    expect(cell(v, 2)).to_have_attribute("data-edited", "true")
    cell(v, 2).get_by_role("button", name="Reset").click()
    expect(cell(v, 2)).to_have_attribute("data-edited", "false")
    assert cell(v, 2).locator("pre.code").text_content().strip() == originals(v)[1]
    assert output(v, 2) == original_output
    v.page.reload()
    expect(cell(v, 2)).to_have_attribute("data-edited", "false")


BAD_INPUTS = {
    "syntax": ("x = (1,\nprint(x", ["SyntaxError", '"<cell 2>", line 2']),
    "exception": ("def f(a):\n    return a / 0\nf(3)", ["ZeroDivisionError", "line 2, in f"]),
    "allocation": ("import numpy as np\nnp.ones(10**10)", ["MemoryError", "4 GB"]),
    "exit": ("import os\nos._exit(0)", ["SystemExit", "goes on"]),
    "flood": ("while True:\n    print('again')", ["output cut"]),
    "figures' names": ("import numpy as np\ndel np\nimport figures\ndel figures", []),
    "callback": (
        "from js import setTimeout\nfrom pyodide.ffi import create_once_callable\n"
        "setTimeout(create_once_callable(lambda: 1 / 0), 0)\n'scheduled'",
        ["'scheduled'"],
    ),
}


@pytest.mark.parametrize("name", BAD_INPUTS)
def test_bad_input_is_reported_and_the_page_stays_live(live_post2, name):
    v = live_post2
    code, wanted = BAD_INPUTS[name]
    type_code(v, 2, code)
    v.page.keyboard.press("Control+Enter")
    wait_run(v, 2)
    text = output(v, 2)
    for part in wanted:
        assert part in text, text
    # No frames from the site's machinery.
    assert "_pyodide" not in text and "worker" not in text and "<exec>" not in text
    assert len(text) < 21_000
    # The cells' Python goes on, and so do the figures.
    type_code(v, 3, "1 + 1")
    v.page.keyboard.press("Control+Enter")
    wait_run(v, 3)
    assert output(v, 3) == "2"
    assert v.page.evaluate("() => document.documentElement.dataset.figures") == "live"
    assert not v.errors


@pytest.fixture(scope="module")
def fresh_page(visit):
    """A page of its own, opened by the first test that uses it: what a page does before a
    cell was run or focused, or an import made, is seen only on a fresh one."""
    return visit(PAGE)


def test_run_pressed_before_python_is_ready_waits_and_says_so(fresh_page):
    v = fresh_page
    wait_until(v.page, "() => document.documentElement.dataset.cells === 'ready'")
    cell(v, 1).get_by_role("button", name="Run").click()
    expect(cell(v, 1).locator(".cell-note")).to_contain_text("Waiting for the page's Python")
    wait_run(v, 1)
    assert output(v, 1) == in_cpython(originals(v)[:1])[0]
    assert v.page.evaluate("() => document.documentElement.dataset.figures") == "live"
    assert not v.errors


def test_stop_ends_an_infinite_loop_and_python_starts_again(live_post2):
    v = live_post2
    type_code(v, 2, "while True:\n    pass")
    v.page.keyboard.press("Control+Enter")
    stop = cell(v, 2).get_by_role("button", name="Stop")
    expect(stop).to_be_visible(timeout=TIMEOUT_MS)
    expect(cell(v, 2).locator(".cell-note")).to_have_text("Running…", timeout=TIMEOUT_MS)
    stop.click()
    expect(cell(v, 2).locator("[data-cell-output]")).to_contain_text("Stopped")
    type_code(v, 2, "sum(range(10))")
    v.page.keyboard.press("Control+Enter")
    wait_run(v, 2)
    assert output(v, 2) == "45"
    assert v.page.evaluate("() => document.documentElement.dataset.figures") == "live"
    # The edit of cell 2 survived the restart; a figure still answers its controls.
    assert cell(v, 2).get_attribute("data-edited") == "true"
    assert not v.errors


def test_keyboard_alone_edits_runs_and_leaves_a_cell(live_post2):
    v = live_post2
    cell(v, 1).get_by_role("button", name="Run").focus()
    for _ in range(40):  # past the prose's links, into cell 2's code, which becomes its editor
        v.page.keyboard.press("Tab")
        if v.page.evaluate("() => !!document.activeElement.closest('[data-cell=\"2\"]')"):
            break
    expect(cell(v, 2).locator(".cm-content")).to_be_focused(timeout=TIMEOUT_MS)
    v.page.keyboard.press("Control+a")
    v.page.keyboard.insert_text("6 * 7")
    v.page.keyboard.press("Control+Enter")
    wait_run(v, 2)
    assert output(v, 2) == "42"
    v.page.keyboard.press("Escape")
    v.page.keyboard.press("Tab")
    expect(cell(v, 2).get_by_role("button", name="Run")).to_be_focused()


def test_every_cell_control_has_a_name(live_post2):
    v = live_post2
    cell(v, 1).locator("pre.code").focus()
    expect(cell(v, 1).locator(".cm-content")).to_be_focused(timeout=TIMEOUT_MS)
    names = v.page.eval_on_selector_all(
        "[data-cell] button, [data-cell] [role=button], [data-cell] .cm-content",
        "els => els.map((el) => el.getAttribute('aria-label') || el.textContent.trim())",
    )
    assert len(names) >= 4 * len(originals(v)) - 3
    assert all(names), names
    assert cell(v, 1).get_by_role("textbox", name="Python code of cell 1").count() == 1
    assert v.page.url.endswith(BASE + PAGE)


def test_the_editor_loads_only_when_a_cell_is_first_focused(fresh_page):
    """After a cell was run (the test above), not yet focused."""
    v = fresh_page
    v.wait_for("live")
    assert not [url for url in v.requests if url.endswith("/editor.js")]
    assert cell(v, 1).locator(".cm-content").count() == 0
    cell(v, 1).locator("pre.code").focus()
    expect(cell(v, 1).locator(".cm-content")).to_be_focused(timeout=TIMEOUT_MS)
    assert len([url for url in v.requests if url.endswith("/editor.js")]) == 1


@pytest.mark.parametrize("number", ["3.1", "3.2", "3.3"])
def test_each_exercise_fails_on_its_starter_and_passes_on_its_solution(live_post2, number):
    v = live_post2
    exercise = exercises.by_number(number)
    section = v.page.locator(f'[data-exercise="{number}"]')
    verdict = section.locator("[data-exercise-verdict]")

    def check() -> None:
        v.page.evaluate(
            '(n) => { delete document.querySelector(`[data-exercise="${n}"]`)'
            ".dataset.exerciseResult; }",
            number,
        )
        section.get_by_role("button", name="Check").click()
        wait_until(
            v.page,
            '(n) => document.querySelector(`[data-exercise="${n}"]`).dataset.exerciseResult',
            arg=number,
            timeout=TIMEOUT_MS,
        )

    check()
    expected = exercise.check(in_cpython_namespace(exercise.starter))
    assert section.get_attribute("data-exercise-result") == "fail" == expected[0]
    assert verdict.text_content() == expected[1]
    section.get_by_role("button", name="Hint").click()
    expect(section.locator("[data-exercise-hint-text]")).to_have_text(exercise.hint)
    section.get_by_role("button", name="Show solution").click()
    solution = section.locator("[data-exercise-solution-code]")
    expect(solution).to_be_visible()
    assert solution.text_content().strip() == exercise.solution.strip()
    section.locator("pre.code[data-cell-code]").focus()
    expect(section.locator(".cm-content")).to_be_focused(timeout=TIMEOUT_MS)
    v.page.keyboard.press("Control+a")
    v.page.keyboard.insert_text(solution.text_content().rstrip("\n"))
    check()
    expected = exercise.check(in_cpython_namespace(exercise.solution))
    assert section.get_attribute("data-exercise-result") == "pass" == expected[0]
    assert verdict.text_content() == expected[1]
    assert not v.errors


def in_cpython_namespace(code: str) -> dict:
    """The namespace ``code`` leaves in CPython (an exception ends it, as in the page)."""
    namespace: dict = {"__name__": "__main__"}
    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(Exception):
        exec(code, namespace)
    return namespace


def test_an_import_the_snapshot_lacks_fetches_the_standard_library_first(fresh_page):
    """The restored heap serves every import the figures make, so the standard library's zip
    is fetched only by a cell importing a module it does not hold; if that download fails, the
    import says why, and the next run fetches it."""
    v = fresh_page
    v.wait_for("live")
    assert "python_stdlib.zip" in snapshot.LATER
    stdlib = "/python_stdlib.zip.zst"
    # The figures' Python at work, and a cell's: still nothing fetched.
    v.show("three-modes")
    v.page.locator('[data-figure="three-modes"] select').first.select_option(index=2)
    run(v, 1)
    assert not [url for url in v.requests if url.endswith(stdlib)]
    # nor a wheel: the heap holds numpy and the project, which the cell imports
    assert not [url for url in v.requests if url.endswith(".whl")]

    v.context.route(f"**{stdlib}", lambda route: route.abort())
    type_code(v, 2, "import statistics\nstatistics.mean([1, 2, 4])")
    v.page.keyboard.press("Control+Enter")
    wait_run(v, 2)
    text = output(v, 2)
    assert "ImportError: statistics cannot be imported" in text, text
    assert "could not be downloaded" in text, text

    v.context.unroute(f"**{stdlib}")
    run(v, 2)
    assert output(v, 2) == repr(statistics.mean([1, 2, 4]))
    assert [url for url in v.requests if url.endswith(stdlib)]
    assert v.page.evaluate("() => document.documentElement.dataset.figures") == "live"


def test_a_cell_importing_what_the_figures_do_not_use_says_it_downloads_it(live_post2):
    """The figures' worker runs numpy and the project alone; a cell may still import Panel,
    which is downloaded for it first: the cell's note names the packages while they download
    and, once it has run, how many bytes they were."""
    v = live_post2
    type_code(v, 1, "import panel\npanel.__version__")
    notes = v.page.evaluate_handle(
        """() => { const notes = [], note = document.querySelector('[data-cell="1"] .cell-note');
        new MutationObserver(() => notes.push(note.textContent))
          .observe(note, { childList: true, characterData: true, subtree: true });
        return notes; }"""
    )
    run(v, 1)
    downloading = [n for n in notes.json_value() if n.startswith("Downloading")]
    assert downloading and "panel" in downloading[0] and "bokeh" in downloading[0], downloading
    assert output(v, 1) == repr(panel.__version__)
    downloaded = cell(v, 1).locator(".cell-note").text_content()
    assert downloaded.startswith("Downloaded ") and "panel" in downloaded, downloaded
    megabytes = float(downloaded.rsplit("(", 1)[1].split(" MB")[0])
    assert megabytes > 1, downloaded  # Panel's and Bokeh's wheels are several MB
    assert not v.errors
