"""The byte budget: a reader's first visit to any page downloads at most FIRST_LOAD_BUDGET.

Counted as the benchmark counts it (bench/browser.py): every response of one cold load, page
and worker, up to live figures, each body gzipped as the static host sends it. A figure that
adds models, a package or a heavier snapshot shows here, not only in the benchmark's table.
"""

import pytest

import pages
from bench.browser import measure_load, new_page

pytestmark = pytest.mark.browser

# Bytes, gzip. The figures were designed within 21 MB; making them thin (a State and pure
# readouts per figure) added code to post 2's heap and source listings and took it just over.
FIRST_LOAD_BUDGET = 21_100_000
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
