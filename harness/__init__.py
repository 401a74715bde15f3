"""The browser harness the tests and the benchmark share: the system Chromium launched off the
network (`chromium`), the site's pages by path (`site`), a page opened and watched (`visit`:
its requests, errors and worker messages, waiting for live, readouts), what the page's DOM and
accessibility tree say through Panel's shadow roots (`dom`), and the script installed into
every page before its own (`probe.js`).

It lives beside `tests/` and `bench/`, not in either, so that both import it and nothing
outside `tests/` imports `tests`.
"""
