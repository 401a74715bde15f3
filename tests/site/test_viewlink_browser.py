"""Links to a figure's view in a real browser: "Link to this view" puts the figure's state in
the URL, opening that URL shows the figure in that state (the readouts CPython computes for it)
scrolled to it, "Reset" returns it to its defaults, and a bad link opens the defaults with a
one-line note and no error."""

from urllib.parse import parse_qsl, urlsplit

import pytest
from playwright.sync_api import expect

import figures
from attention.fixtures import PRESETS, TOKENS, book_inputs, preset_query
from figures import cost, heads, masking, normalisations, three_steps
from pages import post1, post2
from tests.site.conftest import BASE

pytestmark = pytest.mark.browser
RESTORED = "showing the view from the link"
NOT_RESTORED = "This link's view could not be restored ("
TIMEOUT_MS = 120_000


def expected(module, state) -> dict[str, str]:
    return {key: text for key, _, text in module.readouts(state)}


def shown(v, figure_id: str) -> dict[str, str]:
    """The figure's readouts on the page, by key (Playwright's locators see into shadow DOM)."""
    cells = v.page.locator(f'[data-figure="{figure_id}"] [data-readout]')
    return {cell.get_attribute("data-readout"): cell.inner_text() for cell in cells.all()}


def status(v, figure_id: str):
    return v.page.locator(f'[data-figure="{figure_id}"] .fig-status')


def view_button(v, figure_id: str, name: str):
    return v.page.locator(f'[data-figure="{figure_id}"] .fig-view').get_by_role("button", name=name)


def link_to_view(v, figure_id: str) -> str:
    """Press the figure's "Link to this view"; the URL it puts in the address bar."""
    view_button(v, figure_id, "Link to this view").click()
    expect(status(v, figure_id)).to_contain_text("Link ")
    assert (
        "Link copied" in status(v, figure_id).inner_text()
        or "address bar" in status(v, figure_id).inner_text()
    )
    return v.page.url


def open_link(visit, url: str, figure_id: str):
    """Open ``url`` (a link to ``figure_id``'s view) and wait until the link is applied."""
    v = visit(url.split(BASE, 1)[1])
    v.wait_for("live")
    expect(status(v, figure_id)).to_contain_text(RESTORED, timeout=TIMEOUT_MS)
    return v


def figure_on_screen(v, figure_id: str) -> bool:
    return v.page.evaluate(
        """(id) => { const r = document.getElementById(`figure-${id}`).getBoundingClientRect();
          return r.top > -2 && r.top < innerHeight / 2; }""",
        figure_id,
    )


def params(url: str) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(url).query, keep_blank_values=True))


@pytest.fixture(scope="module")
def live2(visit):
    v = visit(f"{post2.SLUG}/")
    v.wait_for("live")
    return v


@pytest.fixture(scope="module")
def live1(visit):
    v = visit(f"{post1.SLUG}/")
    v.wait_for("live")
    return v


def test_the_buttons_wait_for_the_live_figure(visit):
    v = visit(f"{post2.SLUG}/", block="**/worker.js")  # never live
    v.wait_for("failed")
    for name in ("Link to this view", "Reset"):
        expect(view_button(v, "cost", name)).to_be_disabled()
        expect(view_button(v, "cost", name)).to_have_attribute(
            "title", "Works once the figure is live"
        )
    v.close()


def test_a_slider_link_round_trip(live2, visit):
    handle = live2.page.locator('[data-figure="cost"] .noUi-handle').first
    handle.focus()
    handle.press("ArrowRight")
    handle.press("ArrowRight")  # 1,024 -> 4,096 tokens
    expect(live2.readout_locator("cost", "tokens")).to_have_text("4,096")
    live2.context.grant_permissions(["clipboard-read", "clipboard-write"])
    url = link_to_view(live2, "cost")
    expect(status(live2, "cost")).to_contain_text("Link copied")
    assert live2.page.evaluate("() => navigator.clipboard.readText()") == url
    assert params(url) == {"cost.context-length-t": "4096"}
    assert urlsplit(url).fragment == "figure-cost"
    opened = open_link(visit, url, "cost")
    want = expected(cost, cost.State(n=4096))
    assert shown(opened, "cost") == want == shown(live2, "cost")
    assert figure_on_screen(opened, "cost")

    view_button(opened, "cost", "Reset").click()
    expect(opened.readout_locator("cost", "tokens")).to_have_text("1,024")
    assert shown(opened, "cost") == expected(cost, cost.DEFAULT)
    assert params(opened.page.url) == {}
    assert opened.errors == [] and live2.errors == []


def test_a_number_box_link_round_trip(live1, visit):
    box = live1.page.locator('[data-figure="three-steps"]').get_by_label("with x₂", exact=True)
    box.fill("1.5")
    box.press("Enter")
    X = book_inputs()
    X[TOKENS.index("with"), 1] = 1.5
    values = tuple(tuple(float(v) for v in row) for row in X)
    want = expected(three_steps, three_steps.State("journey", values))
    expect(live1.readout_locator("three-steps", "context")).to_have_text(want["context"])
    url = link_to_view(live1, "three-steps")
    assert params(url) == {"three-steps.with-x2": "1.5"}
    opened = open_link(visit, url, "three-steps")
    assert shown(opened, "three-steps") == want
    assert figure_on_screen(opened, "three-steps")
    assert opened.errors == []


def test_a_preset_link_round_trip(live1, visit):
    fig = live1.page.locator('[data-figure="normalisations"]')
    fig.get_by_role("radio", name=PRESETS["near-zero"]).click()
    want = expected(
        normalisations, normalisations.State("near-zero", TOKENS[preset_query("near-zero")])
    )
    expect(live1.readout_locator("normalisations", "by_sum")).to_have_text(want["by_sum"])
    url = link_to_view(live1, "normalisations")
    assert set(params(url)) == {"normalisations.tensor", "normalisations.query-token"}
    assert "three-steps.with-x2" not in params(url)  # a link is to one figure's view
    opened = open_link(visit, url, "normalisations")
    assert shown(opened, "normalisations") == shown(live1, "normalisations") == want
    assert opened.errors == [] and live1.errors == []


def test_bad_links_open_the_defaults_with_a_note(visit):
    query = (
        "cost.context-length-t=4097"  # not a stop of the slider
        "&heads.colour=blue"  # no such control
        "&masking.step=%3Cscript%3Ealert(1)%3C%2Fscript%3E"  # garbage
        "&elsewhere=1"  # not a figure's: left alone
    )
    v = visit(f"{post2.SLUG}/?{query}#figure-heads")
    v.wait_for("live")
    notes = {
        "cost": "'4097' is not one of its 21 values",
        "heads": "no control 'colour' on this figure",
        "masking": "is not an integer for 'step'",
    }
    for figure_id, named in notes.items():
        line = status(v, figure_id)
        expect(line).to_contain_text(NOT_RESTORED, timeout=TIMEOUT_MS)
        expect(line).to_contain_text(named)
        expect(line).to_contain_text("showing the defaults.")
        expect(line).to_have_attribute("data-status", "live")
    for module in (cost, heads, masking):  # heads shows more rows: its shape trace
        want = expected(module, module.DEFAULT)
        got = shown(v, figures.figure_id(module))
        assert {key: got.get(key) for key in want} == want
    assert v.page.locator("script:text('alert(1)')").count() == 0
    assert figure_on_screen(v, "heads")
    assert v.errors == []
