"""The pins and the paths the page, the worker and the snapshot maker must agree on."""

import re

from sitebuild import pins, snapshot


def test_site_packages_is_where_the_snapshot_maker_installs():
    """The page config hands the worker this path; the maker writes the same tree there."""
    maker = snapshot.SCRIPT.read_text()
    (installed,) = re.findall(r'const SITE_PACKAGES = "([^"]+)";', maker)
    assert pins.PYODIDE_SITE_PACKAGES == installed + "/"


def test_every_pinned_wheel_has_a_sha256():
    for file_name, (requirement, sha256) in pins.pinned_wheels().items():
        assert file_name.endswith("-py3-none-any.whl")
        assert "==" in requirement
        assert re.fullmatch(r"[0-9a-f]{64}", sha256), file_name
