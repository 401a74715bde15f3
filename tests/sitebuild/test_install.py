"""Installing the runtime into the site: exactly the files pages load, with a trimmed lock.

They use the real runtime cache: the first run fills it through npm and pip, later runs
only re-hash it.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
import zipfile

import pytest

from sitebuild import cache as runtime_cache
from sitebuild import install, pins, snapshot, wheels
from sitebuild.files import sha256_bytes, sha256_file
from tests.sitebuild.wheelmaking import cached_wheel, make_wheel, quiet


@pytest.fixture(scope="module")
def installed(tmp_path_factory, cache):
    tmp_path = tmp_path_factory.mktemp("install")
    project = make_wheel(tmp_path, "demo-figures", "0.1.0", ["numpy==2.0.2", "panel>=1.7"])
    dest = tmp_path / "site" / "runtime"
    dest.mkdir(parents=True)
    (dest / "stale-0.1-py3-none-any.whl").write_bytes(b"left over from an older build")
    names = install.install(cache, dest, [project], log=quiet)
    return dest, names, project


def test_installed_lock_lists_exactly_the_installed_wheels(installed, official_lock):
    dest, names, _ = installed
    lock = json.loads((dest / pins.LOCK_NAME).read_text())
    packages = lock["packages"]
    assert lock["info"] == official_lock["info"]
    assert sorted(packages) == names
    assert {e["file_name"] for e in packages.values()} == {p.name for p in dest.glob("*.whl")}
    for entry in packages.values():
        assert entry["sha256"] == sha256_file(dest / entry["file_name"])
        assert entry["install_dir"] == "site"
        assert entry["package_type"] == "package"
        assert all(dep in packages for dep in entry["depends"])
    for name in pins.OFFICIAL_PACKAGES:
        assert packages[name] == official_lock["packages"][name]


def test_installed_lock_describes_the_project_wheel(installed):
    dest, names, project = installed
    entry = json.loads((dest / pins.LOCK_NAME).read_text())["packages"]["demo-figures"]
    assert "demo-figures" in names
    assert entry["file_name"] == project.name
    assert entry["imports"] == ["demo_figures"]
    assert entry["depends"] == ["numpy", "panel"]
    assert entry["sha256"] == sha256_file(project)


def test_the_zstd_decoder_is_the_pinned_webassembly(cache):
    wasm = install.zstd_decoder(cache)
    assert wasm[:4] == b"\0asm"
    assert sha256_bytes(wasm) == pins.ZSTD_DECODER_SHA256


def test_install_copies_only_what_pages_load(installed):
    dest, names, _ = installed
    present = {p.name for p in dest.iterdir()}
    expected = {*pins.PYODIDE_CORE_FILES, pins.LOCK_NAME}
    expected |= {p.name for p in dest.glob("*.whl")}
    assert present == expected
    assert all(p.is_file() for p in dest.iterdir())
    assert "stale-0.1-py3-none-any.whl" not in present
    assert not any(n.endswith((".tgz", ".mjs", ".d.ts", ".html")) for n in present)
    # The one source map kept is pyodide.js's, which pyodide.js itself names.
    assert [n for n in present if n.endswith(".map")] == ["pyodide.js.map"]
    unwanted = {"pandas", "pytz", "python-dateutil", "six", "pillow", "contourpy", "micropip"}
    assert not unwanted & set(names)
    assert not any(n.startswith(("pandas", "pillow", "provisa")) for n in present)
    expected_names = {*pins.PURE_WHEELS, *pins.SOURCE_WHEELS, *pins.OFFICIAL_PACKAGES}
    assert set(names) == expected_names | {"demo-figures"}


def test_the_standard_library_ships_stored_with_the_same_members(installed, cache):
    """Pyodide's python_stdlib.zip, every member stored instead of deflated: same names, order,
    dates and bytes, and smaller once the whole archive is compressed."""
    dest, _, _ = installed
    official = cache / runtime_cache.CORE / "python_stdlib.zip"
    with zipfile.ZipFile(official) as theirs, zipfile.ZipFile(dest / "python_stdlib.zip") as ours:
        assert [i.filename for i in ours.infolist()] == [i.filename for i in theirs.infolist()]
        assert [i.date_time for i in ours.infolist()] == [i.date_time for i in theirs.infolist()]
        assert {i.compress_type for i in ours.infolist()} == {zipfile.ZIP_STORED}
        assert any(i.compress_type == zipfile.ZIP_DEFLATED for i in theirs.infolist())
        assert all(ours.read(i.filename) == theirs.read(i) for i in theirs.infolist())
    shipped = (dest / "python_stdlib.zip").read_bytes()
    assert install.stored_zip(official.read_bytes()) == shipped  # the same bytes every build
    assert len(gzip.compress(shipped, 6)) < len(gzip.compress(official.read_bytes(), 6))
    # and in a snapshot's downloads, where it ships as a zstd frame
    assert len(snapshot.compress(shipped)) < len(snapshot.compress(official.read_bytes()))


def test_python_imports_from_a_stored_archive(tmp_path):
    deflated = tmp_path / "deflated.zip"
    with zipfile.ZipFile(deflated, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("shipped/__init__.py", "ANSWER = 42\n")
    stored = tmp_path / "stored.zip"
    stored.write_bytes(install.stored_zip(deflated.read_bytes()))
    done = subprocess.run(
        [sys.executable, "-c", "import shipped; print(shipped.ANSWER, shipped.__file__)"],
        env={**os.environ, "PYTHONPATH": str(stored)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.split() == ["42", str(stored / "shipped" / "__init__.py")]


def test_project_wheel_needing_an_unshipped_package_is_refused(tmp_path, cache):
    wheel = make_wheel(tmp_path, "needs-scipy", "0.1", ["scipy"])
    with pytest.raises(RuntimeError, match="scipy"):
        install.install(cache, tmp_path / "site", [wheel], log=quiet)


def test_project_wheel_needing_another_version_is_refused(tmp_path, cache):
    wheel = make_wheel(tmp_path, "needs-new-numpy", "0.1", ["numpy>=3"])
    with pytest.raises(RuntimeError, match=r"has 2\.0\.2"):
        install.install(cache, tmp_path / "site", [wheel], log=quiet)


def test_browser_assets_cover_the_scripts_and_panel_stylesheets(cache, manifest):
    assets = install.browser_assets(cache)
    assert set(pins.BROWSER_SCRIPTS) <= set(assets)
    assert all(path.is_file() for path in assets.values())
    # Every stylesheet Panel's Python names by a literal CDN path must be self-hosted.
    files = wheels.read_wheel(cached_wheel(cache, manifest, "panel"))
    referenced = set()
    for name, data in files.items():
        if name.endswith(".py"):
            text = data.decode()
            referenced |= set(re.findall(r"\{CDN_DIST\}((?:css|bundled/theme)/[\w/]+\.css)", text))
    assert len(referenced) > 20
    missing = {rel for rel in referenced if f"{pins.PANEL_DIST}{rel}" not in assets}
    assert not missing
    assert not [rel for rel in assets if rel.endswith((".map", ".ts"))]


def test_install_browser_assets_keeps_the_layout(tmp_path, cache):
    written = install.install_browser_assets(cache, tmp_path)
    assets = install.browser_assets(cache)
    assert sorted(assets) == written
    for rel, src in assets.items():
        assert (tmp_path / rel).read_bytes() == src.read_bytes()
    assert (tmp_path / "panel" / "dist" / "css" / "loading.css").is_file()
    assert (tmp_path / "panel" / "dist" / "assets" / "arc_spinner.svg").is_file()
