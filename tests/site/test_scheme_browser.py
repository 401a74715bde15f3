"""Dark mode: the system's scheme is followed, the header's toggle overrides it and is
remembered, plots are drawn in the page's scheme (and on paper in light), and every text
colour meets WCAG AA in both schemes, pre-rendered and live."""

import pytest

import pages

pytestmark = pytest.mark.browser
PATHS = [f"{p.SLUG}/" if p.SLUG else "" for p in pages.all_pages()]
POST = "trainable-attention/"
FIGURE = "cost"  # two line plots on a white background
LIVE_TIMEOUT_MS = 120_000

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


def wait_for(page, state: str) -> None:
    page.wait_for_function(
        "(state) => document.documentElement.dataset.figures === state",
        arg=state,
        timeout=LIVE_TIMEOUT_MS,
    )


def plot_corner(page, figure_id: str = FIGURE) -> list[int]:
    page.locator(f'[data-figure="{figure_id}"]').scroll_into_view_if_needed()
    page.wait_for_function(f"() => ({PLOT_CORNER})({figure_id!r}) !== null", timeout=30_000)
    page.wait_for_timeout(100)  # Bokeh paints at the next frame
    return page.evaluate(PLOT_CORNER, figure_id)


def surface(page) -> list[int]:
    """The dark figure surface site.css declares, which a plot's white becomes."""
    css = page.evaluate(
        "getComputedStyle(document.documentElement).getPropertyValue('--figure-surface-dark')"
    )
    return hex_rgb(css.strip())


def close_to(a, b, tolerance: int = 2) -> bool:
    return all(abs(x - y) <= tolerance for x, y in zip(a, b, strict=True))


@pytest.fixture
def opened(browser, server_url):
    """Open a page in a fresh context with the system's scheme given."""
    contexts = []

    def open_page(path: str, scheme: str, width: int = 1280):
        context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
        contexts.append(context)
        page = context.new_page()
        errors = []
        page.on("console", lambda m: m.type == "error" and errors.append(m.text))
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.errors = errors
        page.goto(server_url + path)
        return page

    yield open_page
    for context in contexts:
        context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_page_follows_the_system_scheme(opened, scheme):
    page = opened(POST, scheme)
    wait_for(page, "live")
    assert page.evaluate("document.documentElement.dataset.scheme") == scheme
    pressed = page.get_attribute("#scheme-toggle", "aria-pressed")
    assert pressed == ("true" if scheme == "dark" else "false")
    paper = page.evaluate("getComputedStyle(document.body).backgroundColor")
    rgb = [int(x) for x in paper[paper.index("(") + 1 : paper.index(")")].split(",")[:3]]
    assert (luminance(rgb) > 0.5) == (scheme == "light"), paper
    corner = plot_corner(page)
    assert close_to(corner, [255, 255, 255] if scheme == "light" else surface(page)), corner
    assert page.errors == []


def test_the_toggle_overrides_the_system_and_is_remembered(opened):
    page = opened(POST, "light")
    wait_for(page, "live")
    assert close_to(plot_corner(page), [255, 255, 255])
    page.click("#scheme-toggle")
    assert page.evaluate("document.documentElement.dataset.scheme") == "dark"
    assert close_to(plot_corner(page), surface(page)), "the live plots were not drawn again"
    page.reload()
    wait_for(page, "live")
    assert page.evaluate("document.documentElement.dataset.scheme") == "dark"
    assert page.get_attribute("#scheme-toggle", "aria-pressed") == "true"
    assert close_to(plot_corner(page), surface(page))
    page.click("#scheme-toggle")
    assert page.evaluate("document.documentElement.dataset.scheme") == "light"
    assert close_to(plot_corner(page), [255, 255, 255])
    assert page.errors == []


def test_a_dark_page_prints_its_plots_light(opened):
    page = opened(POST, "dark")
    wait_for(page, "live")
    assert close_to(plot_corner(page), surface(page))
    page.evaluate("dispatchEvent(new Event('beforeprint'))")
    assert close_to(page.evaluate(PLOT_CORNER, FIGURE), [255, 255, 255])
    page.evaluate("dispatchEvent(new Event('afterprint'))")
    assert close_to(plot_corner(page), surface(page))


def test_the_plot_colours_keep_their_contrast(opened):
    """scheme.js gives each colour the luminance whose contrast with the dark surface is its
    contrast with white; so any two colours keep their ratio (up to rounding to 8 bits)."""
    page = opened(POST, "dark")
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


def contrast_violations(page, axe_source: str) -> list:
    page.evaluate(axe_source)
    return page.evaluate(
        """async () => (await axe.run({runOnly: ["color-contrast"]})).violations
          .flatMap((v) => v.nodes.map((n) => [n.target.flat().join(" "), n.any[0]?.message]))"""
    )


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_text_colour_meets_aa(opened, site, axe_source, path, scheme):
    page = opened(path, scheme)
    if 'id="page-config"' in (site / path / "index.html").read_text():
        wait_for(page, "live")
    assert page.evaluate("document.documentElement.dataset.scheme") == scheme
    assert contrast_violations(page, axe_source) == []
