"""The site as the browser tests build and open it: built under a project site's base, and
each page's path under it from the page modules themselves (`pages.all_pages()`), so that a
page added or renamed is tested without editing a test."""

from pathlib import Path
from types import ModuleType

import build
import pages
from pages import post1, post2, post3, section33

# The sub-path the tests build and serve the site under, as GitHub Pages serves a project site.
BASE = "/attention-explained/"
# The public and source URLs the tests build it with, as the deploy passes them, so that the
# frame's tests (canonical tags, feed, sitemap) read the one build every other test reads.
SITE_URL = f"https://example.github.io{BASE}"
SOURCE_URL = "https://github.com/example/attention-explained/blob/main/"


# Where a site built for this test session already is (harness/prepare.py); unset, the session
# builds its own.
SITE_ENV = "ATTENTION_TEST_SITE"


def build_site(out: Path):
    """The whole site built into ``out`` as the browser tests read it: under BASE, with the
    deploy's URLs, memory snapshot and all."""
    return build.build(out, BASE, site_url=SITE_URL, source_url=SOURCE_URL)


def path(page: ModuleType) -> str:
    """A page's path under the site's base: "attention-without-weights/", "" for the index."""
    return f"{page.SLUG}/" if page.SLUG else ""


PATHS = [path(page) for page in pages.all_pages()]
# The pages with live figures, in the series' order.
WITH_FIGURES = [path(page) for page in pages.posts()]
POST1, POST2, POST3, SECTION33 = (path(page) for page in (post1, post2, post3, section33))


def has_figures(page_path: str) -> bool:
    """Whether the page at ``page_path`` places live figures."""
    return page_path in WITH_FIGURES
