"""Accessibility: an axe-core scan of every page, both as pre-rendered and live, at a desktop's
and a phone's width and in both colour schemes, finds no violation of WCAG 2.2 AA or axe's best
practices at any impact (colour contrast among them); every figure's first control is reached by
Tab and has a name; and a few representative figures can be driven from the keyboard alone.

One page per path serves every width and scheme: the width and the scheme change in place
(the page follows both, as a reader's resized window or switched system scheme). The live
scans read the session's shared pages; the pre-rendered ones a page whose worker never
answers, which starts no Python.
"""

import pytest
from playwright.sync_api import expect

from figures import REGISTRY
from harness.dom import ACTIVE, focus_before, next_frame
from harness.site import PATHS, WITH_FIGURES, has_figures

pytestmark = pytest.mark.browser
# Controls a reader can reach with Tab inside a figure, in Panel's shadow DOM.
FOCUSABLE = "select, input, button, [role=slider], [tabindex='0']"


# The rule set of issue 20: WCAG 2.0, 2.1 and 2.2 at A and AA, and axe's best practices; and two
# rules axe still calls experimental, which a Lighthouse audit found broken: a control's name
# contains its visible text, and every data cell of a data table has a header.
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
AXE_EXPERIMENTAL = ["label-content-name-mismatch", "td-has-header"]
# A desktop window and a phone's, in both colour schemes: what is a violation can differ with
# either (a code block scrolls only on a phone, contrast differs with the scheme).
WIDTHS = {1280: 900, 390: 844}
SCHEMES = ["light", "dark"]


def violations(page, axe_source: str) -> list[str]:
    """axe's every violation, at every impact, one line per rule: its impact, count, nodes."""
    # Evaluated through the browser's debugger, so the page's CSP (which refuses inline
    # scripts, as add_script_tag would need) does not apply to the test's own script.
    page.evaluate(axe_source)
    found = page.evaluate(
        """async ([tags, extra]) => (await axe.run(document, {
            runOnly: {type: "tag", values: tags},
            rules: Object.fromEntries(extra.map((rule) => [rule, {enabled: true}])),
            resultTypes: ["violations"]})).violations
          .map((v) => [v.id, v.impact, v.nodes.map((n) => n.target.flat().join(" "))])""",
        [AXE_TAGS, AXE_EXPERIMENTAL],
    )
    return [
        f"{rule} ({impact}) x{len(nodes)}: {' | '.join(nodes[:4])}" for rule, impact, nodes in found
    ]


def idle_worker(route) -> None:
    """The worker's script, answered with one that never starts Python: the pre-render stays."""
    route.fulfill(status=200, content_type="text/javascript", body="// idle")


@pytest.fixture(scope="module")
def prerendered(visit):
    """Each page as pre-rendered, opened once: its figures stay static (no Python starts)."""
    opened = {}

    def get(path: str):
        if path not in opened:
            opened[path] = visit(path, routes=[("**/worker.js", idle_worker)])
            if has_figures(path):
                opened[path].wait_for("static")
        return opened[path]

    return get


# A page without figures is the same live as pre-rendered: scanned once.
SCANS = [
    (state, path, w, s)
    for path in PATHS
    for state in (["prerendered", "live"] if has_figures(path) else ["prerendered"])
    for w in WIDTHS
    for s in SCHEMES
]


@pytest.mark.parametrize("state, path, width, scheme", SCANS)
def test_axe_finds_nothing(live, prerendered, axe_source, state, path, width, scheme):
    page = (live(path) if state == "live" else prerendered(path)).page
    page.set_viewport_size({"width": width, "height": WIDTHS[width]})
    page.emulate_media(color_scheme=scheme)
    next_frame(page)
    assert page.evaluate("document.documentElement.dataset.scheme") == scheme
    found = violations(page, axe_source)
    assert found == [], "\n".join(found)


def figure_ids(site, path: str) -> list[str]:
    html = (site / path / "index.html").read_text()
    return [f for f in REGISTRY if f'data-figure="{f}"' in html]


def tab_into(page, figure_id: str) -> str:
    """Tab from the figure's status line (just before its controls); the focused control's name."""
    focus_before(page.locator(f'[data-figure="{figure_id}"] .fig-status'))
    page.keyboard.press("Tab")
    return page.evaluate(
        f"""() => {{ {ACTIVE}
          return el && (el.getAttribute("aria-label") || el.labels?.[0]?.textContent
            || el.title || el.textContent || ""); }}"""
    )


@pytest.mark.parametrize("path", WITH_FIGURES)
def test_each_figure_has_a_labelled_control_reached_by_tab(live, site, path):
    page = live(path).page
    ids = figure_ids(site, path)
    assert ids
    for figure_id in ids:
        control = page.locator(f'[data-figure="{figure_id}"] .fig-slot').locator(FOCUSABLE).first
        expect(control).to_be_attached()
        name = tab_into(page, figure_id)
        assert name.strip(), f"{figure_id}: Tab reached an unlabelled element"


@pytest.mark.parametrize(
    "path, figure_id",
    [
        ("attention-without-weights/", "depth"),  # slider
        ("attention-without-weights/", "three-steps"),  # select
        ("trainable-attention/", "divisor"),  # slider over named values
        ("trainable-attention/", "three-modes"),  # radio buttons
    ],
)
def test_a_figure_is_driven_from_the_keyboard(live, path, figure_id):
    page = live(path).page
    readouts = page.locator(f'[data-figure="{figure_id}"] [data-readout]')
    before = readouts.all_inner_texts()
    assert before
    assert tab_into(page, figure_id).strip()
    # A slider moves with the arrow keys, a number input steps with ArrowUp, a select takes the
    # next option with ArrowDown, a button is pressed with Enter. Then some readout must change.
    kind = page.evaluate(
        f"""() => {{ {ACTIVE}
          return el.getAttribute("role") === "slider" ? "slider" : el.tagName.toLowerCase(); }}"""
    )
    if kind == "button":
        page.keyboard.press("Tab")  # the first of a radio group is already chosen: take the next
    keys = {"slider": "ArrowRight", "input": "ArrowUp", "select": "ArrowDown"}
    page.keyboard.press(keys.get(kind, "Enter"))
    # Playwright's locators see into Panel's shadow DOM, where the readouts are.
    expect(readouts).not_to_have_text(before, timeout=10_000)
