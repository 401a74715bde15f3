"""Helpers for the runtime's tests: wheels made on the spot, wheels taken from the cache."""

from __future__ import annotations

import zipfile
from pathlib import Path

from sitebuild import cache as runtime_cache
from sitebuild import wheels


def quiet(_: str) -> None:
    """Silence the runtime's progress log."""


def cached_wheel(cache: Path, manifest: dict, name: str) -> Path:
    """The runtime cache's wheel of package ``name``."""
    return cache / runtime_cache.WHEELS / manifest["packages"][name]["file_name"]


def make_wheel(dest: Path, name: str, version: str, requires: list[str]) -> Path:
    """A minimal pure wheel, like the one build.py makes for the project."""
    module = name.replace("-", "_")
    dist_info = f"{module}-{version}.dist-info"
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    metadata += "".join(f"Requires-Dist: {r}\n" for r in requires)
    files = {
        f"{module}/__init__.py": b"VALUE = 1\n",
        f"{dist_info}/METADATA": metadata.encode(),
        f"{dist_info}/WHEEL": b"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{dist_info}/RECORD": b"",
    }
    return wheels.write_wheel(dest / f"{module}-{version}-py3-none-any.whl", files)


def wheel_names(path: Path) -> list[str]:
    """The member names of a wheel, in archive order."""
    with zipfile.ZipFile(path) as archive:
        return archive.namelist()
