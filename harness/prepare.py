"""``python -m harness.prepare OUT``: what ``./dev test`` runs before pytest. It builds the site
into OUT as the browser tests read it (harness.site.build_site), which fills the project's cache
with what only a first build makes (the pinned runtime downloaded and checked, the editor
bundled, the site's memory snapshot); ``./dev test`` then names OUT to the test session
(SITE_ENV), which tests that build rather than making its own. So the run builds the site once,
from the tree under test, a build that fails stops the run before any test, and what pytest
times is the tests. A session started without SITE_ENV builds the site itself."""

import sys
from pathlib import Path

from harness.site import build_site


def main(out: str) -> None:
    build_site(Path(out))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python -m harness.prepare OUT (the folder to build the site in)")
    main(sys.argv[1])
