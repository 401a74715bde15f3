"""Navigation added to a rendered page: a table of contents and self-links.

The templates write headings and figures plainly; this step, run on each page's HTML at build
time, gives a page with ``<h2 id>`` sections a contents list after its lede, and every heading
with an id and every figure a "#" link to itself, so a reader can copy a link to any part. It
needs no JavaScript: the links are plain fragments.
"""

import re
from html import escape, unescape

# The markup the templates write (templates/post*.html, templates/_figure.html): headings
# whose inner HTML holds no other heading, the figure's title span, the lede paragraph.
_HEADING = re.compile(r'<(h[23]) id="([^"]+)">(.*?)</\1>', re.S)
_FIGURE_TITLE = re.compile(
    r'(<figure class="fig" data-figure="[^"]+" id="([^"]+)".*?'
    r'<span class="fig-title"[^>]*>(.*?)</span>)',
    re.S,
)
_LEDE = re.compile(r'<p class="lede">.*?</p>', re.S)
_TAG = re.compile(r"<[^>]+>")


def plain(inner_html: str) -> str:
    """A heading's text, without its markup, whitespace collapsed."""
    return " ".join(unescape(_TAG.sub("", inner_html)).split())


def self_link(target: str, label: str) -> str:
    return f'<a class="self-link" href="#{escape(target)}" aria-label="{escape(label)}">#</a>'


def contents(html: str) -> str:
    """The page's contents list, from its ``<h2 id>`` headings in order ("" if it has none)."""
    items = [
        f'<li><a href="#{escape(ident)}">{escape(plain(inner))}</a></li>'
        for tag, ident, inner in _HEADING.findall(html)
        if tag == "h2"
    ]
    if not items:
        return ""
    return (
        '<nav class="toc" aria-label="Contents">\n<p class="toc-title">Contents</p>\n<ol>\n'
        + "\n".join(items)
        + "\n</ol>\n</nav>"
    )


def add_navigation(html: str) -> str:
    """``html`` with its contents list after the lede and a self-link on each heading with an
    id and on each figure. The contents list is read before the self-links are added, so its
    entries hold the headings' text alone."""
    toc = contents(html)
    if toc:
        html = _LEDE.sub(lambda m: m.group(0) + "\n" + toc, html, count=1)

    def heading(m: re.Match) -> str:
        tag, ident, inner = m.groups()
        link = self_link(ident, f"Link to this section: {plain(inner)}")
        return f'<{tag} id="{ident}">{inner}{link}</{tag}>'

    def figure(m: re.Match) -> str:
        opening, ident, title = m.groups()
        return opening + self_link(ident, f"Link to this figure: {plain(title)}")

    return _FIGURE_TITLE.sub(figure, _HEADING.sub(heading, html))
