"""Accessibility: an axe-core scan of every page, both as pre-rendered and live, finds nothing
serious or critical; every figure's first control is reached by Tab and has a name; and a few
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
def prerendered(browser, server_url, site):
    """Every page as first drawn: a worker that never answers keeps the pre-render on screen."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.route(
        "**/worker.js",
        lambda route: route.fulfill(status=200, content_type="text/javascript", body="// idle"),
    )
    opened = {}
    for path in PATHS:
        page = context.new_page()
        page.goto(server_url + path)
        if has_figures(site, path):
            wait_for_figures(page, "static")
        opened[path] = page
    yield opened
    context.close()


@pytest.fixture(scope="module")
def live(visit, site):
    """Every page, live where it has figures."""
    opened = {}
    for path in PATHS:
        v = visit(path)
        if has_figures(site, path):
            wait_for_figures(v.page, "live")
        opened[path] = v.page
    return opened


def serious(page, axe_source: str) -> list[tuple]:
    # Evaluated through the browser's debugger, so the page's CSP (which refuses inline
    # scripts, as add_script_tag would need) does not apply to the test's own script.
    page.evaluate(axe_source)
    return page.evaluate(
        """async () => (await axe.run()).violations
          .filter((v) => v.impact === "serious" || v.impact === "critical")
          .map((v) => [v.id, v.impact, v.nodes.length, v.nodes[0].target.flat().join(" ")])"""
    )


@pytest.mark.parametrize("path", PATHS)
def test_axe_finds_nothing_serious_in_the_prerender(prerendered, axe_source, path):
    assert serious(prerendered[path], axe_source) == []


@pytest.mark.parametrize("path", PATHS)
def test_axe_finds_nothing_serious_live(live, axe_source, path):
    assert serious(live[path], axe_source) == []


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
