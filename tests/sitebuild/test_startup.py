"""Bytecode for the ordinary start's imports (sitebuild/startup.py): the standard library's
copy with NAME.pyc in place of the modules the start imports, which Python then imports
without compiling (checked with a CPython 3.12, as Pyodide's), and the wheels recompiled only
where they lack bytecode. The whole path, from the listing run in Node to the built site, is
tests/site/test_build.py's and, in a browser, tests/site/test_snapshot_browser.py's."""

from __future__ import annotations

import io
import json
import os
import subprocess
import zipfile
from pathlib import Path

import pytest

from sitebuild import bytecode, pins, startup
from sitebuild.files import sha256_file
from tests.sitebuild.wheelmaking import make_wheel, wheel_names

MAGIC = bytes.fromhex(pins.PYODIDE_PYC_MAGIC)


@pytest.fixture(scope="module")
def python() -> str:
    found = bytecode.find_python312()
    assert found is not None, "these tests need a CPython 3.12 (python3.12 or pyenv 3.12.x)"
    return found


def zip_of(path: Path, files: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return path


LIBRARY = {
    "alpha.py": b"X = 1\n\ndef where():\n    return where.__code__.co_filename\n",
    "beta.py": b"Y = 2\n",
    "pkg/__init__.py": b"Z = 3\n",
}


def test_the_modules_imported_get_bytecode_in_their_place_and_nothing_else_moves(tmp_path, python):
    archive = zip_of(tmp_path / "stdlib.zip", LIBRARY)
    compiled = startup.compiled_stdlib(archive, ["alpha.py", "pkg/__init__.py"], python)
    with zipfile.ZipFile(io.BytesIO(compiled)) as result:
        assert result.namelist() == ["alpha.pyc", "beta.py", "pkg/__init__.pyc"]
        assert {i.compress_type for i in result.infolist()} == {zipfile.ZIP_DEFLATED}
        assert result.read("beta.py") == LIBRARY["beta.py"]
        for pyc in ("alpha.pyc", "pkg/__init__.pyc"):
            header = result.read(pyc)[:8]
            # flags: bit 0 hash-based, bit 1 check_source; unchecked means exactly 1
            assert header[:4] == MAGIC and int.from_bytes(header[4:], "little") == 1, pyc


def test_python_imports_the_bytecode_and_names_where_the_source_was(tmp_path, python):
    archive = zip_of(tmp_path / "stdlib.zip", LIBRARY)
    shipped = tmp_path / "shipped.zip"
    shipped.write_bytes(startup.compiled_stdlib(archive, ["alpha.py", "pkg/__init__.py"], python))
    code = (
        f"import sys; sys.path.insert(0, {str(shipped)!r}); import alpha, beta, pkg;"
        " print(alpha.X, pkg.Z, alpha.__file__.endswith('.pyc'), alpha.where(), beta.Y)"
    )
    done = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["1", "3", "True", f"{pins.PYODIDE_STDLIB}/alpha.py", "2"]


def test_only_wheels_without_bytecode_for_an_imported_module_are_named(tmp_path, python):
    plain = make_wheel(tmp_path, "plain-pkg", "1.0", [])
    compiled = bytecode.precompile_wheel(
        make_wheel(tmp_path, "compiled-pkg", "1.0", []), tmp_path / "c" / "compiled.whl", python
    )
    lock = {
        "packages": {
            "plain-pkg": {"file_name": plain.name},
            "compiled-pkg": {"file_name": f"c/{compiled.name}"},
        }
    }
    site = ["plain_pkg/__init__.py", "compiled_pkg/__init__.py", "elsewhere/__init__.py"]
    missing = startup.wheels_without_bytecode(tmp_path, lock, site)
    assert missing == {"plain-pkg": ["plain_pkg/__init__.py"]}


def test_a_wheel_gets_bytecode_in_place_of_the_modules_named_alone(tmp_path, python):
    wheel = make_wheel(tmp_path, "two-mods", "1.0", [])
    with zipfile.ZipFile(wheel, "a") as archive:
        archive.writestr("two_mods/other.py", b"W = 4\n")
    startup.compiled_wheel(wheel, ["two_mods/__init__.py"], python)
    names = set(wheel_names(wheel))
    assert {"two_mods/__init__.pyc", "two_mods/other.py"} <= names
    assert not names & {"two_mods/__init__.py", "two_mods/other.pyc"}
    assert not [n for n in names if "__pycache__" in n]
    tree = tmp_path / "installed"
    zipfile.ZipFile(wheel).extractall(tree)
    code = f"import sys; sys.path.insert(0, {str(tree)!r}); import two_mods; print(two_mods.VALUE)"
    done = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["1"]


def test_without_cpython_312_nothing_changes(tmp_path, monkeypatch):
    monkeypatch.setattr(bytecode, "find_python312", lambda: None)
    (tmp_path / pins.LOCK_NAME).write_text(json.dumps({"packages": {}}))
    before = sha256_file(tmp_path / pins.LOCK_NAME)
    logs: list[str] = []
    assert not startup.add_bytecode(tmp_path, [], ["depth"], tmp_path, logs.append)
    assert any("no CPython 3.12" in line for line in logs)
    assert sorted(p.name for p in tmp_path.iterdir()) == [pins.LOCK_NAME]
    assert sha256_file(tmp_path / pins.LOCK_NAME) == before


def test_the_listing_is_made_once_and_the_cache_keeps_the_most_recent(tmp_path, monkeypatch):
    runtime_dir, cache = tmp_path / "runtime", tmp_path / "cache"
    runtime_dir.mkdir()
    cache.mkdir()
    for name in ("python_stdlib.zip", pins.LOCK_NAME):
        (runtime_dir / name).write_bytes(name.encode())
    for age in range(startup.KEEP):  # older listings, of other runtimes or figures
        old = cache / f"startup-imports-{age:032x}.json"
        old.write_text("{}")
        os.utime(old, (1e9 - age, 1e9 - age))
    runs = []
    listing = {"stdlib": ["json/__init__.py"], "site": ["numpy/__init__.py"]}

    def lister(script, args, purpose):
        runs.append(purpose)
        Path(json.loads(args[0])["out"]).write_text(json.dumps(listing))
        return ""

    monkeypatch.setattr(startup.node, "run_script", lister)
    for _ in range(2):
        assert startup.imported_sources(runtime_dir, ["numpy"], ["depth"], cache) == listing
    assert runs == ["to list the start's imports"]
    kept = sorted(p.name for p in cache.iterdir())
    assert len(kept) == startup.KEEP
    assert f"startup-imports-{startup.KEEP - 1:032x}.json" not in kept  # the oldest went
