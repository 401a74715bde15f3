"""The pins and the paths the page, the worker and the snapshot maker must agree on."""

import re
from pathlib import Path

from sitebuild import livepage, pins, snapshot

ROOT = Path(__file__).resolve().parents[2]


def test_site_packages_is_typed_once():
    """The page config hands the worker this path and the snapshot maker gets it as an
    argument: no script types it again, so the two cannot drift apart."""
    scripts = [snapshot.SCRIPT, *sorted((ROOT / "static").rglob("*.js"))]
    assert [s.name for s in scripts if "python3.12/site-packages" in s.read_text()] == []
    assert "args.sitePackages" in snapshot.SCRIPT.read_text()
    assert pins.PYODIDE_SITE_PACKAGES.startswith("/lib/python3.12/")


def test_the_page_runs_boot_first_then_bokehjs_panel_and_page():
    assert livepage.live_scripts() == [
        "static/boot.js",
        "vendor/bokeh/js/bokeh.min.js",
        "vendor/bokeh/js/bokeh-widgets.min.js",
        "vendor/bokeh/js/bokeh-tables.min.js",
        "vendor/panel/dist/panel.min.js",
        "static/page.js",
        "static/cells.js",
    ]


def test_every_pinned_wheel_has_a_sha256():
    for file_name, (requirement, sha256) in pins.pinned_wheels().items():
        assert file_name.endswith("-py3-none-any.whl")
        assert "==" in requirement
        assert re.fullmatch(r"[0-9a-f]{64}", sha256), file_name
