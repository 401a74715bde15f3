"""The ``pyodide-lock.json`` the pages load packages by: official entries as published, the
rest computed from the wheels, every dependency checked against what the runtime ships."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from sitebuild import pins
from sitebuild.files import sha256_file
from sitebuild.wheels import wheel_imports, wheel_metadata


def write_lock(path: Path, lock: dict) -> None:
    """Write ``lock`` to ``path`` as every lock of the build is written: keys sorted, one
    per line, so two builds' locks differ by what changed."""
    path.write_text(json.dumps(lock, indent=1, sort_keys=True) + "\n")


def pyodide_markers() -> dict[str, str]:
    """Environment markers as Pyodide 0.27.7 (CPython 3.12.7 on emscripten) evaluates them."""
    env = default_environment()
    env.update(
        implementation_name="cpython",
        implementation_version="3.12.7",
        os_name="posix",
        platform_machine="wasm32",
        platform_python_implementation="CPython",
        platform_release="3.1.58",
        platform_system="Emscripten",
        platform_version="#1",
        python_full_version="3.12.7",
        python_version="3.12",
        sys_platform="emscripten",
    )
    return env


def wheel_requirements(path: Path) -> list[Requirement]:
    """The wheel's requirements that apply in Pyodide (markers evaluated, no extras)."""
    env = pyodide_markers()
    reqs = [Requirement(r) for r in wheel_metadata(path).get_all("Requires-Dist") or []]
    return [r for r in reqs if r.marker is None or r.marker.evaluate({**env, "extra": ""})]


def pure_lock_entry(path: Path, shipped: dict[str, str]) -> dict:
    """A lock entry for a wheel not in the official build, its ``depends`` checked.

    ``shipped`` maps canonical name -> version of everything in the runtime: a requirement
    must name a shipped package at a version it accepts, or be in OMITTED_REQUIREMENTS.
    """
    meta = wheel_metadata(path)
    extra = pins.PYODIDE_REQUIREMENTS.get(canonicalize_name(meta["Name"]), ())
    depends = []
    for req in [*wheel_requirements(path), *map(Requirement, extra)]:
        key = canonicalize_name(req.name)
        if key in pins.OMITTED_REQUIREMENTS:
            continue
        if key not in shipped:
            raise RuntimeError(f"{path.name} requires {req}, which the runtime does not ship")
        if not req.specifier.contains(shipped[key], prereleases=True):
            raise RuntimeError(f"{path.name} requires {req}, but the runtime has {shipped[key]}")
        depends.append(key)
    return {
        "name": meta["Name"],
        "version": meta["Version"],
        "file_name": path.name,
        "install_dir": "site",
        "sha256": sha256_file(path),
        "package_type": "package",
        "imports": wheel_imports(path),
        "depends": sorted(set(depends)),
        "unvendored_tests": False,
    }


def shipped_versions(entries: dict, wheels: Iterable[Path]) -> dict[str, str]:
    """Canonical name -> version of the lock's ``entries`` and of ``wheels`` joining them."""
    shipped = {name: entry["version"] for name, entry in entries.items()}
    for path in wheels:
        meta = wheel_metadata(path)
        shipped[canonicalize_name(meta["Name"])] = meta["Version"]
    return shipped


def lock_entries(official: dict, official_names: Iterable[str], wheels: list[Path]) -> dict:
    """Canonical name -> lock entry: official entries as published, the rest computed."""
    entries = {name: dict(official["packages"][name]) for name in official_names}
    shipped = shipped_versions(entries, wheels)
    for path in wheels:
        entries[canonicalize_name(wheel_metadata(path)["Name"])] = pure_lock_entry(path, shipped)
    check_lock_closed(entries)
    return dict(sorted(entries.items()))


def check_lock_closed(entries: dict) -> None:
    """Every dependency named in the lock must be in it, or loadPackage fails."""
    for name, entry in entries.items():
        if missing := [d for d in entry["depends"] if d not in entries]:
            raise RuntimeError(f"lock entry {name} depends on {missing}, which are not in it")


def trimmed_lock(official_info: dict, entries: dict) -> dict:
    """A pyodide-lock.json listing exactly ``entries``, with the official build's info."""
    check_lock_closed(entries)
    return {"info": dict(official_info), "packages": dict(sorted(entries.items()))}
