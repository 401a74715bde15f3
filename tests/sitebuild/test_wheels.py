"""Wheels as the build writes them: a RECORD that matches, the same bytes every time.

They use the real runtime cache: the first run fills it through npm and pip, later runs
only re-hash it.
"""

from __future__ import annotations

import tomllib
import zipfile
from pathlib import Path

import pytest

from sitebuild import wheels
from tests.sitebuild.wheelmaking import cached_wheel, wheel_names


def test_slim_wheel_record_matches_its_files(cache, manifest):
    path = cached_wheel(cache, manifest, "bokeh")
    files = wheels.read_wheel(path)
    (record,) = [n for n in files if n.endswith(".dist-info/RECORD")]
    rows = [line.split(",") for line in files[record].decode().splitlines()]
    listed = {row[0]: row[1] for row in rows}
    assert set(listed) == set(files)
    for name, digest in listed.items():
        if name != record:
            assert digest == wheels.record_hash(files[name])


ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("layouts", [False, True])
def test_the_project_wheel_follows_pyproject(tmp_path, layouts):
    """Name, version and packages are read from pyproject.toml, not typed again; the browser's
    wheel leaves out the build's own packages (Panel and Bokeh layouts), a notebook's has them."""
    with (ROOT / "pyproject.toml").open("rb") as handle:
        pyproject = tomllib.load(handle)
    packages = [
        p
        for p in pyproject["tool"]["setuptools"]["packages"]
        if layouts or p not in wheels.BUILD_ONLY
    ]
    assert layouts or {"layoutkit", "layouts"}.isdisjoint(packages)
    wheel = wheels.project_wheel(ROOT, tmp_path, layouts=layouts)
    meta = wheels.wheel_metadata(wheel)
    assert (meta["Name"], meta["Version"]) == (
        pyproject["project"]["name"],
        pyproject["project"]["version"],
    )
    assert wheels.wheel_imports(wheel) == sorted(packages)
    sources = {
        path.relative_to(ROOT).as_posix()
        for package in packages
        for path in (ROOT / package).rglob("*.py")
    }
    assert {n for n in wheel_names(wheel) if not n.split("/")[0].endswith(".dist-info")} == sources


def test_every_wheel_written_has_one_timestamp_and_the_same_bytes(tmp_path, cache, manifest):
    first = wheels.project_wheel(ROOT, tmp_path / "a")
    assert first.read_bytes() == wheels.project_wheel(ROOT, tmp_path / "b").read_bytes()
    for wheel in (first, cached_wheel(cache, manifest, "panel")):
        with zipfile.ZipFile(wheel) as archive:
            assert {info.date_time for info in archive.infolist()} == {wheels.ZIP_EPOCH}
