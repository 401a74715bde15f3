"""Glossary tooltips in a real browser: they appear on hover, focus and tap, and land on entries."""

import pytest
from playwright.sync_api import expect

from sitebuild import glossary
from tests.site.conftest import BASE

pytestmark = pytest.mark.browser
PAGE = "section-3-3/"
TERMS = glossary.load()


@pytest.fixture(scope="module")
def reader(visit):
    """The section 3.3 page without its Python worker: terms need nothing but the page."""
    return visit(PAGE, block="**/worker.js")


def term_ids(page) -> list[str]:
    hrefs = page.locator("a.term").evaluate_all("links => links.map(a => a.getAttribute('href'))")
    prefix = f"{BASE}{glossary.SLUG}/#"
    assert all(h.startswith(prefix) for h in hrefs)
    return [h.removeprefix(prefix) for h in hrefs]


def tip(page, term_id: str):
    return page.locator(f"#{glossary.tip_id(term_id)}")


def within_viewport(page, locator) -> bool:
    box = locator.bounding_box()
    width = page.viewport_size["width"]
    return box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width


def test_each_tooltip_appears_on_hover_with_its_definition(reader):
    page = reader.page
    ids = term_ids(page)
    assert len(ids) >= 10 and len(ids) == len(set(ids))
    for term_id in ids:
        expect(tip(page, term_id)).to_be_hidden()
        page.locator(f'a.term[aria-describedby="{glossary.tip_id(term_id)}"]').hover()
        expect(tip(page, term_id)).to_be_visible()
        expect(tip(page, term_id)).to_have_text(f"{TERMS[term_id].name} {TERMS[term_id].short}")
        assert within_viewport(page, tip(page, term_id))
    page.mouse.move(0, 0)
    expect(page.locator(".term-tip:visible")).to_have_count(0)


# True if what the reader sees at the tooltip's corners is the tooltip: nothing clips it and
# nothing covers it.
PAINTED_WHOLE_JS = """(tip) => {
  const r = tip.getBoundingClientRect();
  const xs = [r.left + 2, r.right - 2], ys = [r.top + 2, r.bottom - 2];
  return xs.every((x) => ys.every((y) => tip.contains(document.elementFromPoint(x, y))));
}"""
FITS_JS = (
    "(tip) => { const r = tip.getBoundingClientRect();"
    " return r.top >= 0 && r.bottom <= innerHeight; }"
)


def test_no_tooltip_is_clipped_by_the_prose_around_it(reader):
    # A showing tooltip is painted whole, on hover and on focus: nothing around it (a block
    # that clips or contains its content) cuts it off.
    page = reader.page
    ids = term_ids(page)
    hovered = 0
    for term_id in ids:
        link = page.locator(f'a.term[aria-describedby="{glossary.tip_id(term_id)}"]')
        link.evaluate("a => a.scrollIntoView({block: 'center'})")
        link.hover()
        expect(tip(page, term_id)).to_be_visible()
        if tip(page, term_id).evaluate(FITS_JS):  # near the page's end it can hang below
            assert tip(page, term_id).evaluate(PAINTED_WHOLE_JS), f"{term_id} clipped on hover"
            hovered += 1
        page.mouse.move(0, 0)
        link.focus()
        tip(page, term_id).evaluate("t => t.scrollIntoView({block: 'center'})")
        assert tip(page, term_id).evaluate(PAINTED_WHOLE_JS), f"{term_id} clipped on focus"
        link.evaluate("a => a.blur()")
    assert hovered >= len(ids) - 3


def test_each_link_lands_on_its_entry(reader):
    page = reader.page
    for term_id in term_ids(page):
        page.locator(f'a.term[aria-describedby="{glossary.tip_id(term_id)}"]').click()
        page.wait_for_url(f"**/{glossary.SLUG}/#{term_id}")
        entry = page.locator(f"#{term_id}")
        expect(entry).to_be_in_viewport()
        expect(entry.locator("dt")).to_contain_text(TERMS[term_id].name)
        assert page.evaluate(f"document.querySelector('#{term_id}').matches(':target')")
        page.go_back()
        page.wait_for_url(f"**/{PAGE}")


def test_keyboard_focus_shows_the_tooltip_escape_hides_it_enter_follows(reader):
    page = reader.page
    page.goto(page.url.split("#")[0])
    first = term_ids(page)[0]
    for _ in range(10):  # the site's header links come first
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('term')"):
            break
    assert page.evaluate("document.activeElement.getAttribute('aria-describedby')") == (
        glossary.tip_id(first)
    )
    expect(tip(page, first)).to_be_visible()
    page.keyboard.press("Escape")
    expect(tip(page, first)).to_be_hidden()
    page.keyboard.press("Tab")  # the next term shows its tooltip again
    expect(page.locator(".term-tip:visible")).to_have_count(1)
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/{glossary.SLUG}/#{first}")
    page.go_back()


def test_on_a_phone_the_first_tap_explains_and_the_second_follows(browser, server_url):
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
    try:
        context.route("**/worker.js", lambda route: route.abort())
        page = context.new_page()
        page.goto(server_url + PAGE)
        ids = term_ids(page)
        for term_id in ids:
            link = page.locator(f'a.term[aria-describedby="{glossary.tip_id(term_id)}"]')
            link.tap()
            expect(tip(page, term_id)).to_be_visible()
            assert within_viewport(page, tip(page, term_id)), f"{term_id} leaves the screen"
            assert page.url.endswith(PAGE)
            tip(page, term_id).tap()  # put it away: it may cover the next term
            expect(tip(page, term_id)).to_be_hidden()
        link = page.locator(f'a.term[aria-describedby="{glossary.tip_id(ids[0])}"]')
        link.tap()
        link.tap()
        page.wait_for_url(f"**/{glossary.SLUG}/#{ids[0]}")
    finally:
        context.close()


def test_the_glossary_page_lists_every_term_and_the_header_links_to_it(visit):
    v = visit(f"{glossary.SLUG}/")
    expect(v.page.locator(".glossary-entry")).to_have_count(len(TERMS))
    v.page.locator(".site-glossary").click()
    assert v.page.url.endswith(f"{glossary.SLUG}/")
    assert v.errors == []
