"""Accessibility, as a screen reader gets it: the browser's accessibility tree (Playwright's
role queries and ARIA snapshots read it) on posts 1 and 2, live. A row of radio buttons is a
named radio group whose checked radio follows the reader's click; a Toggle says whether it is
pressed, and the state flips when pressed; every plot is one image named by its title, and
Tab through a figure goes from control to control without ever stopping on a plot's canvas.
static/a11y.js adds what Bokeh leaves out. The session's shared pages are read."""

import pytest
from playwright.sync_api import expect

from figures import REGISTRY
from harness.dom import focus_before
from harness.site import POST1, POST2

pytestmark = pytest.mark.browser
# Where the focus is, looking through shadow roots: the element's tag and classes, whether it
# is inside the slot, and whether it is part of a plot (a .bk-Figure in its composed ancestry).
FOCUS = """(slot) => {
  let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  const what = el ? `${el.tagName.toLowerCase()}.${[...el.classList].join(".")}` : "";
  let inside = false, inPlot = false;
  for (let node = el; node; node = node.parentNode || node.host) {
    if (node.classList?.contains("bk-Figure")) inPlot = true;
    if (node === slot) inside = true;
  }
  return { what, inside, inPlot, canvas: el?.tagName === "CANVAS" };
}"""
# Bokeh's plot elements in a slot, through every shadow root, and how many of them there are.
COUNT_PLOTS = """(slot) => {
  let n = 0;
  const visit = (root) => {
    for (const el of root.querySelectorAll("*")) {
      if (el.classList.contains("bk-Figure")) n += 1;
      if (el.shadowRoot) visit(el.shadowRoot);
    }
  };
  visit(slot);
  return n;
}"""


def figure(page, figure_id: str):
    return page.locator(f'[data-figure="{figure_id}"] .fig-slot')


def figure_ids(page) -> list[str]:
    ids = page.eval_on_selector_all("figure[data-figure]", "els => els.map(f => f.dataset.figure)")
    assert ids and set(ids) <= set(REGISTRY)
    return ids


@pytest.mark.parametrize(
    "path, figure_id, group, first, other",
    [
        (POST1, "flat-weights", "Weights", "softmax", "flat: 1/6 each"),  # named above the row
        (POST2, "three-modes", "Mode", "no matrices", "W_q tied to W_k"),  # its widget's name
    ],
)
def test_a_row_of_buttons_is_a_radio_group_whose_checked_radio_follows_a_click(
    live, path, figure_id, group, first, other
):
    slot = figure(live(path).page, figure_id)
    radiogroup = slot.get_by_role("radiogroup", name=group, exact=True)
    expect(radiogroup).to_have_count(1)
    chosen, next_one = (radiogroup.get_by_role("radio", name=n, exact=True) for n in (first, other))
    expect(chosen).to_be_checked()
    expect(next_one).not_to_be_checked()
    assert radiogroup.get_by_role("radio", checked=True).count() == 1
    next_one.click()
    expect(next_one).to_be_checked()
    expect(chosen).not_to_be_checked()
    # An arrow key chooses the neighbour, as in any radio group, and the tree follows.
    live(path).page.keyboard.press("ArrowLeft")
    expect(chosen).to_be_checked()
    expect(chosen).to_be_focused()
    expect(next_one).not_to_be_checked()
    assert f'radio "{first}" [checked]' in radiogroup.aria_snapshot()


@pytest.mark.parametrize(
    "path, figure_id, name, pressed",
    [
        (POST1, "loop-matmul", "Matmul: all at once", False),
        (POST2, "dropout", "Scale survivors by 1/(1 − p)", True),
    ],
)
def test_a_toggle_says_whether_it_is_pressed(live, path, figure_id, name, pressed):
    slot = figure(live(path).page, figure_id)
    toggle = slot.get_by_role("button", name=name, exact=True)
    expect(toggle).to_have_count(1)
    expect(slot.get_by_role("button", name=name, exact=True, pressed=pressed)).to_have_count(1)
    toggle.click()
    expect(slot.get_by_role("button", name=name, exact=True, pressed=not pressed)).to_have_count(1)
    toggle.click()  # back as it was
    expect(slot.get_by_role("button", name=name, exact=True, pressed=pressed)).to_have_count(1)


@pytest.mark.parametrize("path", [POST1, POST2])
def test_every_plot_is_an_image_named_by_its_title(live, path):
    page = live(path).page
    for figure_id in figure_ids(page):
        slot = figure(page, figure_id)
        plots = slot.evaluate(COUNT_PLOTS)
        assert plots, f"{figure_id}: no plot found"
        images = slot.get_by_role("img")
        expect(images).to_have_count(plots)
        for image in images.all():
            name = image.get_attribute("aria-label") or ""
            assert name.strip() and not name.startswith("Plot:"), f"{figure_id}: {name!r}"


@pytest.mark.parametrize("path", [POST1, POST2])
def test_tab_through_a_figure_never_stops_on_a_plot(live, path):
    page = live(path).page
    for figure_id in figure_ids(page):
        slot = figure(page, figure_id)
        # Start from the status line, just before the controls, as a reader tabbing down would.
        focus_before(page.locator(f'[data-figure="{figure_id}"] .fig-status'))
        stops = []
        for _ in range(200):
            page.keyboard.press("Tab")
            at = slot.evaluate(FOCUS)
            if not at["inside"]:
                break
            assert not at["inPlot"] and not at["canvas"], f"{figure_id}: Tab stopped on {at}"
            stops.append(at["what"])
        else:
            pytest.fail(f"{figure_id}: Tab never left the figure")
        assert stops, f"{figure_id}: Tab reached no control"
