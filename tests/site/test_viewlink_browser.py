"""Links to a figure's view in a real browser: "Link to this view" puts the figure's state in
the URL, opening that URL shows the figure in that state (the readouts CPython computes for it)
scrolled to it, "Reset" returns it to its defaults, and a bad link opens the defaults with a
one-line note and no error.

A link is opened in the session's shared page of its post (a warm start of that page: the
reader's browser has the site's files), where the view it was made from was read first."""

from urllib.parse import parse_qsl, urlsplit

import pytest
from playwright.sync_api import expect

import figures
from attention.fixtures import PRESETS, TOKENS, book_inputs, preset_query
from figures import cost, heads, masking, normalisations, three_steps
from harness.site import POST1, POST2
from harness.visit import LIVE_TIMEOUT_MS as TIMEOUT_MS

pytestmark = pytest.mark.browser
RESTORED = "showing the view from the link"
NOT_RESTORED = "This link's view could not be restored ("


def expected(module, state) -> dict[str, str]:
    return {key: text for key, _, text in module.readouts(state)}


def shown(v, figure_id: str) -> dict[str, str]:
    """The figure's readouts on the page, by key (through the shadow roots)."""
    return v.readouts(figure_id)


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


def open_link(v, url: str, figure_id: str):
    """Open ``url`` (a link to ``figure_id``'s view) in ``v``, and wait until it is applied.
    From a blank page: the page's own URL may be the link already, and going to it again would
    only move to its fragment."""
    v.page.goto("about:blank")
    v.page.goto(url)
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


@pytest.fixture
def live2(live):
    return live(POST2)


@pytest.fixture
def live1(live):
    return live(POST1)


def test_the_buttons_wait_for_the_live_figure(visit):
    v = visit(POST2, block="**/worker.js")  # never live (and no Python started)
    v.wait_for("failed")
    for name in ("Link to this view", "Reset"):
        expect(view_button(v, "cost", name)).to_be_disabled()
        expect(view_button(v, "cost", name)).to_have_attribute(
            "title", "Works once the figure is live"
        )
    v.close()


def test_a_slider_link_round_trip(live2):
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
    made_from = shown(live2, "cost")
    opened = open_link(live2, url, "cost")
    want = expected(cost, cost.State(n=4096))
    assert shown(opened, "cost") == want == made_from
    assert figure_on_screen(opened, "cost")

    view_button(opened, "cost", "Reset").click()
    expect(opened.readout_locator("cost", "tokens")).to_have_text("1,024")
    assert shown(opened, "cost") == expected(cost, cost.DEFAULT)
    assert params(opened.page.url) == {}


def test_a_number_box_link_round_trip(live1):
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
    opened = open_link(live1, url, "three-steps")
    assert shown(opened, "three-steps") == want
    assert figure_on_screen(opened, "three-steps")


def test_a_preset_link_round_trip(live1):
    fig = live1.page.locator('[data-figure="normalisations"]')
    fig.get_by_role("radio", name=PRESETS["near-zero"]).click()
    want = expected(
        normalisations, normalisations.State("near-zero", TOKENS[preset_query("near-zero")])
    )
    expect(live1.readout_locator("normalisations", "by_sum")).to_have_text(want["by_sum"])
    url = link_to_view(live1, "normalisations")
    assert set(params(url)) == {"normalisations.tensor", "normalisations.query-token"}
    assert "three-steps.with-x2" not in params(url)  # a link is to one figure's view
    made_from = shown(live1, "normalisations")
    opened = open_link(live1, url, "normalisations")
    assert shown(opened, "normalisations") == made_from == want


def test_bad_links_open_the_defaults_with_a_note(live2, server_url):
    query = (
        "cost.context-length-t=4097"  # not a stop of the slider
        "&heads.colour=blue"  # no such control
        "&masking.step=%3Cscript%3Ealert(1)%3C%2Fscript%3E"  # garbage
        "&elsewhere=1"  # not a figure's: left alone
    )
    v = live2
    v.page.goto(f"{server_url}{POST2}?{query}#figure-heads")
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
    assert figure_on_screen(v, "heads")
    for module in (cost, heads, masking):  # heads shows more rows: its shape trace
        want = expected(module, module.DEFAULT)
        v.show(figures.figure_id(module))
        got = shown(v, figures.figure_id(module))
        assert {key: got.get(key) for key in want} == want
    assert v.page.locator("script:text('alert(1)')").count() == 0
    assert v.errors == []
