"""Precompiled bytecode in the pure wheels, and the sources-only fallback.

They use the real runtime cache: the first run fills it through npm and pip, later runs
only re-hash it.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from sitebuild import bytecode, install, pins
from sitebuild.files import sha256_file
from tests.sitebuild.wheelmaking import make_wheel, wheel_names


def pyc_headers(path: Path) -> dict[str, bytes]:
    """First 8 bytes (magic + flags) of every pyc in a wheel."""
    with zipfile.ZipFile(path) as archive:
        return {n: archive.read(n)[:8] for n in archive.namelist() if n.endswith(".pyc")}


@pytest.fixture(scope="module")
def precompiled(tmp_path_factory, cache):
    tmp_path = tmp_path_factory.mktemp("pyc")
    project = make_wheel(tmp_path, "demo-figures", "0.1.0", ["numpy==2.0.2"])
    dest = tmp_path / "runtime"
    logs: list[str] = []
    install.install(cache, dest, [project], precompile=True, log=logs.append)
    again: list[str] = []
    install.install(cache, dest, [project], precompile=True, log=again.append)
    return dest, logs, again


def test_a_cpython_312_for_bytecode_is_found():
    python = bytecode.find_python312()
    assert python is not None, "precompiling needs a CPython 3.12 (python3.12 or pyenv 3.12.x)"


def test_precompiled_wheels_carry_unchecked_hash_bytecode_and_sources(precompiled):
    dest, _, _ = precompiled
    lock = json.loads((dest / pins.LOCK_NAME).read_text())["packages"]
    magic = bytes.fromhex(pins.PYODIDE_PYC_MAGIC)
    for name, entry in lock.items():
        wheel = dest / entry["file_name"]
        assert entry["sha256"] == sha256_file(wheel)
        headers = pyc_headers(wheel)
        if name in pins.OFFICIAL_PACKAGES:
            continue
        sources = [n for n in wheel_names(wheel) if n.endswith(".py")]
        assert sources and len(headers) == len(sources), name
        for pyc, header in headers.items():
            assert header[:4] == magic, pyc
            # flags: bit 0 hash-based, bit 1 check_source; unchecked means exactly 1
            assert int.from_bytes(header[4:8], "little") == 1, pyc


def test_precompile_leaves_official_wheels_untouched(precompiled, official_lock):
    dest, _, _ = precompiled
    lock = json.loads((dest / pins.LOCK_NAME).read_text())["packages"]
    for name in pins.OFFICIAL_PACKAGES:
        assert lock[name] == official_lock["packages"][name]


def test_precompiled_runtime_wheels_are_cached(precompiled):
    _, logs, again = precompiled
    assert any("bytecode from" in line for line in logs)
    # Only the project wheel is compiled again; the runtime's come from the cache.
    assert any("(1 wheels compiled" in line for line in again), again


def test_precompile_without_cpython_312_ships_sources(tmp_path, cache, monkeypatch):
    monkeypatch.setattr(bytecode, "find_python312", lambda: None)
    logs: list[str] = []
    install.install(cache, tmp_path, [], precompile=True, log=logs.append)
    assert any("no CPython 3.12" in line for line in logs)
    assert not [w for w in tmp_path.glob("*.whl") if pyc_headers(w)]
