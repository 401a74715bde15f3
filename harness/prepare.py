"""``python -m harness.prepare``: what ``./dev test`` runs before pytest. It builds the site once
as the browser tests build it (harness.site.build_site), into a folder it then deletes, so that
the project's cache holds what only a first build makes: the pinned runtime downloaded and
checked, the editor bundled, and the site's memory snapshot. The test session builds the site
again from that cache, so a change to the build is still built and tested there; what pytest
times is the tests, and a first build that fails stops the run before any test."""

import tempfile
from pathlib import Path

from harness.site import build_site


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="site-") as folder:
        build_site(Path(folder) / "site")


if __name__ == "__main__":
    main()
