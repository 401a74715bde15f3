"""The byte budget: a reader's first visit to any page downloads at most FIRST_LOAD_BUDGET, and
reading the whole series in one browser at most NEXT_PAGE_BUDGET more per page after the first.

Counted as the benchmark counts it (bench/browser.py): every response of one cold load, page
and worker, up to live figures, each body gzipped as the static host sends it. A figure that
adds models, a package or a heavier snapshot shows here, not only in the benchmark's table.
"""

import pytest

import pages
from bench.browser import measure_load, new_page

pytestmark = pytest.mark.browser

# Bytes, gzip. The site's one snapshot holds every figure of the series (sitebuild/snapshot.py),
# so a first visit pays for all of them, and each next page only for its HTML and pre-render.
# A little over what the pages take (the worker holds numpy and the project alone): a change
# that brings Panel's or Bokeh's Python back into the worker, or a heavier heap, fails here.
FIRST_LOAD_BUDGET = 10_000_000
NEXT_PAGE_BUDGET = 300_000
SERIES_BUDGET = 10_500_000
WITH_FIGURES = [p.SLUG for p in pages.posts()]


@pytest.mark.parametrize("slug", WITH_FIGURES)
def test_a_first_visit_stays_within_the_byte_budget(browser, server_url, slug):
    context, page, recorder = new_page(browser)
    try:
        load = measure_load(page, recorder, f"{server_url}{slug}/")
    finally:
        context.close()
    assert load.state == "live" and load.still_loading == 0
    assert 0 < load.gzip_bytes <= FIRST_LOAD_BUDGET, (
        f"{slug}: {load.gzip_bytes:,} bytes gzip on a first visit, over the "
        f"{FIRST_LOAD_BUDGET:,} budget"
    )


def test_reading_the_series_adds_little_after_the_first_page(browser, server_url):
    context, page, recorder = new_page(browser)
    try:
        loads = [measure_load(page, recorder, f"{server_url}{slug}/") for slug in WITH_FIGURES]
    finally:
        context.close()
    assert [load.state for load in loads] == ["live"] * len(loads)
    added = {slug: load.gzip_bytes for slug, load in zip(WITH_FIGURES, loads, strict=True)}
    assert all(n <= NEXT_PAGE_BUDGET for n in list(added.values())[1:]), added
    assert sum(added.values()) <= SERIES_BUDGET, added
