"""The site's pages, in reading order. Each page module computes the numbers its prose quotes.

A page module has ``SLUG`` (its folder in the site; "" for the root), ``TEMPLATE``,
``TITLE``, ``SUMMARY`` and ``context() -> dict``: every number the template prints comes
from that dict, which calls ``attention/``; no number is typed into a template.
"""

import importlib
from types import ModuleType

# Reading order: the index lists the posts in this order and each post links to its neighbours.
POSTS = ("pages.section33", "pages.post1", "pages.post2")
OTHER = ("pages.home", "pages.glossary")


def posts() -> list[ModuleType]:
    """The posts, in reading order."""
    return [importlib.import_module(name) for name in POSTS]


def all_pages() -> list[ModuleType]:
    """Every page the site renders."""
    return [importlib.import_module(name) for name in OTHER] + posts()
