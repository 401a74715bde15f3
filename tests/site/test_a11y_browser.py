"""Accessibility: an axe-core scan of every page, both as pre-rendered and live, at a desktop's
and a phone's width and in both colour schemes, finds no violation of WCAG 2.2 AA or axe's best
practices at any impact; every figure's first control is reached by Tab and has a name; and a few
representative figures can be driven from the keyboard alone."""

import pytest
from playwright.sync_api import expect

import pages
from figures import REGISTRY

pytestmark = pytest.mark.browser
PATHS = [f"{p.SLUG}/" if p.SLUG else "" for p in pages.all_pages()]
# Controls a reader can reach with Tab inside a figure, in Panel's shadow DOM.
FOCUSABLE = "select, input, button, [role=slider], [tabindex='0']"
LIVE_TIMEOUT_MS = 120_000
# The focused element, looking through shadow roots.
ACTIVE = """let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;"""


def has_figures(site, path: str) -> bool:
    return 'id="page-config"' in (site / path / "index.html").read_text()


def wait_for_figures(page, state: str) -> None:
    # A function, not an expression string: Playwright runs a string through eval, which the
    # page's Content-Security-Policy may refuse.
    page.wait_for_function(
        "(state) => document.documentElement.dataset.figures === state",
        arg=state,
        timeout=LIVE_TIMEOUT_MS,
    )


@pytest.fixture(scope="module")
def live(visit, site):
    """Every page, live where it has figures (for the keyboard tests below)."""
    opened = {}
    for path in PATHS:
        v = visit(path)
        if has_figures(site, path):
            wait_for_figures(v.page, "live")
        opened[path] = v.page
    return opened


# The rule set of issue 20: WCAG 2.0, 2.1 and 2.2 at A and AA, and axe's best practices.
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
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
        """async (tags) => (await axe.run(document, {
            runOnly: {type: "tag", values: tags}, resultTypes: ["violations"]})).violations
          .map((v) => [v.id, v.impact, v.nodes.map((n) => n.target.flat().join(" "))])""",
        AXE_TAGS,
    )
    return [
        f"{rule} ({impact}) x{len(nodes)}: {' | '.join(nodes[:4])}" for rule, impact, nodes in found
    ]


def opened(browser, server_url, site, path: str, width: int, scheme: str, live: bool):
    """A fresh context at that width and scheme; the page as pre-rendered (a worker that never
    answers keeps the pre-render on screen) or live."""
    context = browser.new_context(
        viewport={"width": width, "height": WIDTHS[width]}, color_scheme=scheme
    )
    if not live:
        context.route(
            "**/worker.js",
            lambda route: route.fulfill(status=200, content_type="text/javascript", body="// idle"),
        )
    page = context.new_page()
    page.goto(server_url + path)
    if has_figures(site, path):
        wait_for_figures(page, "live" if live else "static")
    return context, page


# A page without figures is the same live as pre-rendered: scanned once.
SCANS = [
    (state, p.SLUG + "/" if p.SLUG else "", w, s)
    for p in pages.all_pages()
    for state in (["prerendered", "live"] if pages.placed_figures(p.TEMPLATE) else ["prerendered"])
    for w in WIDTHS
    for s in SCHEMES
]


@pytest.mark.parametrize("state, path, width, scheme", SCANS)
def test_axe_finds_nothing(browser, server_url, site, axe_source, state, path, width, scheme):
    context, page = opened(browser, server_url, site, path, width, scheme, state == "live")
    try:
        found = violations(page, axe_source)
    finally:
        context.close()
    assert found == [], "\n".join(found)


def figure_ids(site, path: str) -> list[str]:
    html = (site / path / "index.html").read_text()
    return [f for f in REGISTRY if f'data-figure="{f}"' in html]


def tab_into(page, figure_id: str) -> str:
    """Tab from the figure's status line (just before its controls); the focused control's name."""
    page.locator(f'[data-figure="{figure_id}"] .fig-status').evaluate(
        "el => { el.tabIndex = -1; el.focus(); }"
    )
    page.keyboard.press("Tab")
    return page.evaluate(
        f"""() => {{ {ACTIVE}
          return el && (el.getAttribute("aria-label") || el.labels?.[0]?.textContent
            || el.title || el.textContent || ""); }}"""
    )


@pytest.mark.parametrize("path", [p for p in PATHS if p not in ("", "glossary/")])
def test_each_figure_has_a_labelled_control_reached_by_tab(live, site, path):
    page = live[path]
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
    page = live[path]
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
