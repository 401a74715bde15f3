"""Navigation in the built pages: each post's contents list, and self-links on its headings
and figures (sitebuild/toc.py)."""

from html.parser import HTMLParser

import pytest

import pages
from sitebuild import toc


class _Outline(HTMLParser):
    """A page's headings with ids, its figures, its contents list and its self-links."""

    def __init__(self) -> None:
        super().__init__()
        self.headings: list[tuple[str, str, str]] = []  # (tag, id, text without its self-link)
        self.figures: list[tuple[str, str | None]] = []  # (data-figure, id)
        self.contents: list[tuple[str, str]] = []  # (href, text)
        self.self_links: list[tuple[str, str]] = []  # (href, aria-label)
        self.after_lede: str | None = None  # the first tag after the lede paragraph
        self._heading: list[str] | None = None
        self._in_nav = self._in_link = self._in_self_link = self._in_lede = False
        self._text: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if self._in_lede is None:
            self.after_lede, self._in_lede = tag, False
        if tag == "p" and a.get("class") == "lede" and self.after_lede is None:
            self._in_lede = True
        if tag in ("h2", "h3") and a.get("id"):
            self._heading, self._text = [tag, a["id"]], []
        elif tag == "figure":
            self.figures.append((a["data-figure"], a.get("id")))
        elif tag == "nav" and a.get("aria-label") == "Contents":
            self._in_nav = True
        elif tag == "a" and "self-link" in (a.get("class") or "").split():
            self.self_links.append((a["href"], a.get("aria-label", "")))
            self._in_self_link = True
        elif tag == "a" and self._in_nav:
            self.contents.append((a["href"], ""))
            self._in_link = True

    def handle_endtag(self, tag):
        if tag == "p" and self._in_lede:
            self._in_lede = None  # the next start tag is what follows the lede
        if self._heading and tag == self._heading[0]:
            self.headings.append((*self._heading, " ".join("".join(self._text).split())))
            self._heading = None
        elif tag == "nav":
            self._in_nav = False
        elif tag == "a":
            self._in_link = self._in_self_link = False

    def handle_data(self, data):
        if self._heading and not self._in_self_link:
            self._text.append(data)
        if self._in_link:
            href, text = self.contents[-1]
            self.contents[-1] = (href, " ".join((text + data).split()))


def outline(site, page) -> _Outline:
    parser = _Outline()
    parser.feed((site / page.SLUG / "index.html").read_text())
    return parser


@pytest.mark.parametrize("page", pages.posts(), ids=lambda p: p.SLUG)
def test_a_posts_contents_list_its_sections_in_order_right_after_the_lede(site, page):
    found = outline(site, page)
    sections = [(f"#{ident}", text) for tag, ident, text in found.headings if tag == "h2"]
    assert sections, f"{page.SLUG} has no sections"
    assert found.contents == sections
    assert found.after_lede == "nav"
    ids = [ident for _, ident, _ in found.headings]
    assert all(href[1:] in ids for href, _ in found.contents)


@pytest.mark.parametrize("page", pages.all_pages(), ids=lambda p: p.SLUG or "index")
def test_every_heading_with_an_id_and_every_figure_links_to_itself(site, page):
    found = outline(site, page)
    expected = [(f"#{ident}", f"Link to this section: {text}") for _, ident, text in found.headings]
    figure_ids = [ident for _, ident in found.figures]
    assert figure_ids == [f"figure-{fid}" for fid, _ in found.figures]
    headings = [link for link in found.self_links if not link[0].startswith("#figure-")]
    figures = [href for href, _ in found.self_links if href.startswith("#figure-")]
    assert headings == expected
    assert figures == [f"#{ident}" for ident in figure_ids]
    every_id = [ident for _, ident, _ in found.headings] + figure_ids
    assert len(set(every_id)) == len(every_id)


def test_a_page_without_sections_gets_no_contents():
    html = '<p class="lede">Hello.</p><h3 id="a">A</h3>'
    assert toc.contents(html) == ""
    assert "<nav" not in toc.add_navigation(html)
    assert 'href="#a"' in toc.add_navigation(html)
