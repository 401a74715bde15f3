"""The patch files: applied by one checked step, to the one release each is written for,
with no fuzz, every patched module compiled.

They use the real runtime cache: the first run fills it through npm and pip, later runs
only re-hash it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sitebuild import cache as runtime_cache
from sitebuild import patches, pins, wheels
from tests.sitebuild.wheelmaking import cached_wheel


def hunks(patch: Path) -> list[tuple[str, str, str, bool]]:
    """(path, text before, text after, removes lines) of every hunk of a unified diff."""
    found: list[list] = []
    path = None
    for line in patch.read_text().splitlines(keepends=True):
        if line.startswith("+++ b/"):
            path = line[6:].rstrip("\n")
        elif line.startswith("@@"):
            found.append([path, "", "", False])
        elif found and not line.startswith("--- "):
            kind, text = line[0], line[1:]
            if kind in " -":
                found[-1][1] += text
            if kind in " +":
                found[-1][2] += text
            found[-1][3] |= kind == "-"
    return [tuple(hunk) for hunk in found]


def full_wheel_files(cache: Path, package: str) -> dict[str, bytes]:
    """The files of the full, unpatched wheel of ``package`` as downloaded."""
    version = pins.PURE_WHEELS[package][0]
    return wheels.read_wheel(cache / runtime_cache.DOWNLOADS / pins.wheel_name(package, version))


def test_every_patch_is_written_for_the_pinned_release():
    found = sorted(patches.FOLDER.glob("*.diff"))
    assert [p.name.split("-")[0] for p in found] == ["bokeh", "panel"]
    for patch in found:
        package = patch.name.split("-")[0]
        assert patches.written_for(patch) == pins.PURE_WHEELS[package][0]
        assert patches.patch_for(package) == patch


def test_bokeh_version_check():
    patch = patches.patch_for("bokeh")
    patches.check_version(patch, "bokeh", pins.BOKEH_VERSION)
    with pytest.raises(RuntimeError, match=r"3\.7\.3 exactly.*bokeh 3\.8\.0"):
        patches.check_version(patch, "bokeh", "3.8.0")


def test_bokeh_patch_refuses_source_it_does_not_recognise():
    paths = patches.touched(patches.patch_for("bokeh").read_text())
    files = {path: b"# nothing to patch\n" for path in paths}
    with pytest.raises(RuntimeError, match=re.escape(paths[0])):
        patches.apply_patch(files, "bokeh", pins.BOKEH_VERSION)
    assert len(paths) == 6


def test_a_single_changed_character_of_context_is_refused(cache):
    """No fuzz: the original text must match the patch's exactly."""
    files = full_wheel_files(cache, "bokeh")
    path, before, _, _ = hunks(patches.patch_for("bokeh"))[0]
    source = files[path].decode()
    assert source.count(before) == 1
    files[path] = source.replace(before, before.replace("raw_data", "raw_dat", 1)).encode()
    with pytest.raises(RuntimeError, match="does not apply"):
        patches.apply_patch(files, "bokeh", pins.BOKEH_VERSION)


def test_patched_bokeh_sources(cache, manifest):
    files = wheels.read_wheel(cached_wheel(cache, manifest, "bokeh"))
    found = hunks(patches.patch_for("bokeh"))
    assert len(found) == 11
    for path, before, after, removes in found:
        source = files[path].decode()
        assert after in source
        assert not removes or before not in source
    # The constructor no longer imports pandas at all.
    sources = files["bokeh/models/sources.py"].decode()
    init = sources[sources.index("    def __init__(self, *args") : sources.index("    @property")]
    assert "import pandas" not in init
    # Plot.add_tile alone imports xyzservices (and type checkers, which do not run).
    assert "\nimport xyzservices" not in files["bokeh/models/plots.py"].decode()


def test_panel_patch_refuses_source_it_does_not_recognise():
    paths = patches.touched(patches.patch_for("panel").read_text())
    files = {path: b"# another release\n" for path in paths}
    with pytest.raises(RuntimeError, match=r"panel-1\.7\.5-worker\.diff does not apply"):
        patches.apply_patch(files, "panel", pins.PANEL_VERSION)


def test_a_patch_that_breaks_the_syntax_fails_the_build(tmp_path, monkeypatch):
    (tmp_path / "demo-1.0-broken.diff").write_text(
        "Why: to show that a broken patch fails here.\n\n"
        "--- a/demo/core.py\n+++ b/demo/core.py\n@@ -1,2 +1,2 @@\n"
        " def f():\n-    return 1\n+    return (1\n"
    )
    monkeypatch.setattr(patches, "FOLDER", tmp_path)
    files = {"demo/core.py": b"def f():\n    return 1\n", "demo/other.py": b"x = 1\n"}
    with pytest.raises(SyntaxError):
        patches.apply_patch(files, "demo", "1.0")
    fixed = "+    return (1)\n"
    (tmp_path / "demo-1.0-broken.diff").write_text(
        (tmp_path / "demo-1.0-broken.diff").read_text().replace("+    return (1\n", fixed)
    )
    patched = patches.apply_patch(files, "demo", "1.0")
    assert patched == {**files, "demo/core.py": b"def f():\n    return (1)\n"}


def test_a_package_without_a_patch_is_left_as_it_is():
    files = {"tqdm/__init__.py": b"x = 1\n"}
    assert patches.apply_patch(files, "tqdm", "4.70.1") == files
