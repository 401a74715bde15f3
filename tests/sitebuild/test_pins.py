"""The pins and the paths the page, the worker and the snapshot maker must agree on."""

import re

import build
from sitebuild import pins, snapshot


def test_site_packages_is_where_the_snapshot_maker_installs():
    """The page config hands the worker this path; the maker writes the same tree there."""
    maker = snapshot.SCRIPT.read_text()
    (installed,) = re.findall(r'const SITE_PACKAGES = "([^"]+)";', maker)
    assert pins.PYODIDE_SITE_PACKAGES == installed + "/"


def test_the_page_runs_boot_first_then_bokehjs_panel_adopt_and_page():
    assert build.live_scripts() == [
        "static/boot.js",
        "vendor/bokeh/js/bokeh.min.js",
        "vendor/bokeh/js/bokeh-widgets.min.js",
        "vendor/bokeh/js/bokeh-tables.min.js",
        "vendor/panel/dist/panel.min.js",
        "static/adopt.js",
        "static/page.js",
    ]


def test_every_pinned_wheel_has_a_sha256():
    for file_name, (requirement, sha256) in pins.pinned_wheels().items():
        assert file_name.endswith("-py3-none-any.whl")
        assert "==" in requirement
        assert re.fullmatch(r"[0-9a-f]{64}", sha256), file_name
