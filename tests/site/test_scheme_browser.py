"""Dark mode: the system's scheme is followed, from the first paint and when it changes, the
header's toggle overrides it and is remembered, and plots are drawn in the page's scheme (and on
paper in light). That every text colour meets WCAG AA in both schemes, pre-rendered and live, is
axe's colour-contrast rule in test_a11y_browser.py's scans.

The live checks use the session's shared page of post 2, its scheme switched in place as a
reader's system switches it."""

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from harness.dom import next_frame, wait_until
from harness.site import POST2 as POST
from harness.site import POST3

pytestmark = pytest.mark.browser
FIGURE = "cost"  # two line plots on a white background

# The colour of the first pixel of a figure's first plot canvas (its border fill: white as
# Python drew it), looking through Panel's shadow roots.
PLOT_CORNER = """(figureId) => {
  const canvases = [];
  const walk = (node) => {
    for (const el of node.querySelectorAll("*")) {
      if (el.tagName === "CANVAS") canvases.push(el);
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  walk(document.querySelector(`[data-figure="${figureId}"] .fig-slot`));
  const canvas = canvases.find((c) => c.width > 100 && c.height > 100);
  if (!canvas) return null;
  return Array.from(canvas.getContext("2d").getImageData(2, 2, 1, 1).data.slice(0, 3));
}"""


def hex_rgb(colour: str) -> list[int]:
    return [int(colour.lstrip("#")[i : i + 2], 16) for i in (0, 2, 4)]


def luminance(rgb) -> float:
    lin = [
        c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (x / 255 for x in rgb)
    ]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a, b) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def plot_corner(page, figure_id: str = FIGURE) -> list[int]:
    page.locator(f'[data-figure="{figure_id}"]').scroll_into_view_if_needed()
    wait_until(page, f"() => ({PLOT_CORNER})({figure_id!r}) !== null", timeout=30_000)
    next_frame(page)  # Bokeh paints at the next frame
    return page.evaluate(PLOT_CORNER, figure_id)


def corner_is(page, want: list[int], figure_id: str = FIGURE) -> bool:
    """Whether the figure's plot corner becomes ``want`` (within 2 per channel): a switch of
    scheme is painted at a later frame, so this waits for the page to paint it (or 10 s)."""
    page.locator(f'[data-figure="{figure_id}"]').scroll_into_view_if_needed()
    try:
        wait_until(
            page,
            f"""([id, want]) => {{
              const got = ({PLOT_CORNER})(id);
              return got !== null && got.every((c, i) => Math.abs(c - want[i]) <= 2);
            }}""",
            arg=[figure_id, want],
            timeout=10_000,
        )
    except PlaywrightTimeout:
        return False
    return True


def surface(page) -> list[int]:
    """The dark figure surface site.css declares, which a plot's white becomes."""
    css = page.evaluate(
        "getComputedStyle(document.documentElement).getPropertyValue('--figure-surface-dark')"
    )
    return hex_rgb(css.strip())


def close_to(a, b, tolerance: int = 2) -> bool:
    return all(abs(x - y) <= tolerance for x, y in zip(a, b, strict=True))


def test_a_page_opened_in_the_dark_is_dark_from_its_first_paint(visit):
    """Before any Python (its worker is blocked): the page and its pre-rendered plots."""
    v = visit(POST, block="**/worker.js", color_scheme="dark")
    v.wait_for("failed")
    assert v.page.evaluate("document.documentElement.dataset.scheme") == "dark"
    assert v.page.get_attribute("#scheme-toggle", "aria-pressed") == "true"
    assert corner_is(v.page, surface(v.page))


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_the_page_follows_the_system_scheme(live, scheme):
    v = live(POST)
    page = v.page
    page.emulate_media(color_scheme=scheme)
    # The page hears of the system's change by an event, at its next task.
    wait_until(page, "(s) => document.documentElement.dataset.scheme === s", arg=scheme)
    pressed = page.get_attribute("#scheme-toggle", "aria-pressed")
    assert pressed == ("true" if scheme == "dark" else "false")
    paper = page.evaluate("getComputedStyle(document.body).backgroundColor")
    rgb = [int(x) for x in paper[paper.index("(") + 1 : paper.index(")")].split(",")[:3]]
    assert (luminance(rgb) > 0.5) == (scheme == "light"), paper
    want = [255, 255, 255] if scheme == "light" else surface(page)
    assert corner_is(page, want), plot_corner(page)


def test_the_toggle_overrides_the_system_and_is_remembered(live):
    v = live(POST)
    page = v.page
    assert corner_is(page, [255, 255, 255])
    page.click("#scheme-toggle")
    assert page.evaluate("document.documentElement.dataset.scheme") == "dark"
    assert corner_is(page, surface(page)), "the live plots were not drawn again"
    page.reload()  # a warm start of the shared page: the choice must outlive it
    v.wait_for("live")
    assert page.evaluate("document.documentElement.dataset.scheme") == "dark"
    assert page.get_attribute("#scheme-toggle", "aria-pressed") == "true"
    assert corner_is(page, surface(page))
    page.click("#scheme-toggle")
    assert page.evaluate("document.documentElement.dataset.scheme") == "light"
    assert corner_is(page, [255, 255, 255])


def test_a_dark_page_prints_its_plots_light(live):
    page = live(POST).page
    page.emulate_media(color_scheme="dark")
    assert corner_is(page, surface(page))
    page.evaluate("dispatchEvent(new Event('beforeprint'))")
    assert close_to(page.evaluate(PLOT_CORNER, FIGURE), [255, 255, 255])
    page.evaluate("dispatchEvent(new Event('afterprint'))")
    assert corner_is(page, surface(page))


def test_the_plot_colours_keep_their_contrast(live):
    """scheme.js gives each colour the luminance whose contrast with the dark surface is its
    contrast with white; so any two colours keep their ratio (up to rounding to 8 bits)."""
    page = live(POST).page
    dark_surface = surface(page)
    samples = [
        "#ffffff",
        "#000000",
        "#334155",
        "#94a3b8",
        "#c2410c",
        "#0072b2",
        "#e69f00",
        "#009e73",
        "#cc79a7",
        "#7f2704",
        "#fdd0a2",
        "#1d4ed8",
    ]
    mapped = {c: page.evaluate("(rgb) => schemeColors.forDark(rgb)", hex_rgb(c)) for c in samples}
    assert close_to(mapped["#ffffff"], dark_surface, 1)
    for colour in samples[2:]:  # black has no counterpart darker than the surface allows
        light = contrast(hex_rgb(colour), [255, 255, 255])
        dark = contrast(mapped[colour], dark_surface)
        assert dark == pytest.approx(light, rel=0.03), colour
    # A pair that is not the background: white figures on a dark orange cell.
    light = contrast([255, 255, 255], hex_rgb("#7f2704"))
    dark = contrast(mapped["#ffffff"], mapped["#7f2704"])
    assert dark == pytest.approx(light, rel=0.03)


# Every legend label's colour, as "rgb(r, g, b)": BokehJS draws them as HTML in shadow roots.
LEGEND_LABELS = """() => harnessProbe.deepAll(".bk-Legend")
  .flatMap((legend) => [...(legend.shadowRoot?.querySelectorAll(".bk-label") ?? [])])
  .map((label) => [label.textContent, getComputedStyle(label).color])"""


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_legend_labels_can_be_read_in_either_scheme(live, scheme):
    """A legend's labels are HTML, out of scheme.js's reach for canvases: they must take the
    page's text colour, with AA contrast against the figure's surface."""
    v = live(POST3)
    v.page.emulate_media(color_scheme=scheme)
    next_frame(v.page)
    back = surface(v.page) if scheme == "dark" else [255, 255, 255]
    labels = v.page.evaluate(LEGEND_LABELS)
    assert labels, "no legend on the page"
    for text, colour in labels:
        rgb = [int(c) for c in colour[colour.index("(") + 1 : colour.index(")")].split(",")[:3]]
        assert contrast(rgb, back) >= 4.5, f"legend label {text!r}: {colour} on {back}"
