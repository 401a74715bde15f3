"""The site's pages, in reading order. Each page module computes the numbers its prose quotes.

A page module has ``SLUG`` (its folder in the site; "" for the root), ``TEMPLATE``,
``TITLE``, ``SUMMARY`` and ``context() -> dict``: every number the template prints comes
from that dict, which calls ``attention/``; no number is typed into a template. Prose that
counts a page's figures counts them with ``placed_figures``, from the template itself.

A post also has ``PUBLISHED`` and, once it changes, ``UPDATED``: ISO dates ("2026-11-29"),
which its footer, its tags and the feed print (sitebuild/frame.py).

A post, and the index page for the site, has ``preview() -> dict``: the picture on its link
card (sitebuild/preview.py draws it), a matrix one of its figures shows, computed by
``attention/``: ``{"figure": id, "matrix": (T, T), "labels": T tokens, "caption": a line
printed under the title, "alt": the image's description}``. Other pages show the site's card.
"""

import importlib
import re
from pathlib import Path
from types import ModuleType

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
# The one way a template places a figure (README, "Add a page"), and a section's heading.
# The build collects the same ids as it renders; tests/pages checks that the two agree.
_FIGURE = re.compile(r"""{{\s*figure\(\s*"([^"]+)"\s*\)\s*}}""")
_SECTION = re.compile(r'<h2 id="([^"]+)"')

# Reading order: the index lists the posts in this order and each post links to its neighbours.
# The section 3.3 page works through, by hand, the section post 1 explains: it follows post 1.
POSTS = ("pages.post1", "pages.section33", "pages.post2", "pages.post3")
OTHER = ("pages.home", "pages.glossary")


def posts() -> list[ModuleType]:
    """The posts, in reading order."""
    return [importlib.import_module(name) for name in POSTS]


def all_pages() -> list[ModuleType]:
    """Every page the site renders."""
    return [importlib.import_module(name) for name in OTHER] + posts()


def placed_figures(template: str, section: str | None = None) -> list[str]:
    """The ids of the figures ``template`` places, in order; with ``section``, only those under
    its heading ``<h2 id="section">``, up to the next heading."""
    source = (TEMPLATES / template).read_text()
    if section is not None and section not in _SECTION.findall(source):
        raise ValueError(f"{template} has no section <h2 id={section!r}>")
    found: list[str] = []
    current = None
    for match in re.finditer(f"{_FIGURE.pattern}|{_SECTION.pattern}", source):
        figure_id, heading = match.groups()
        if heading is not None:
            current = heading
        elif section in (None, current):
            found.append(figure_id)
    return found
