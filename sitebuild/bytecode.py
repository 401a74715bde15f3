"""CPython 3.12 bytecode inside the pure wheels, so the browser imports without compiling.

Pyodide 0.27.7 runs CPython 3.12.7 and accepts any CPython 3.12's bytecode; the build finds
one (python3.12 on PATH, or pyenv's) and ships sources only when there is none.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

from sitebuild import pins
from sitebuild.cache import PYC, WHEELS
from sitebuild.files import has_content, sha256_file, write_atomic
from sitebuild.wheels import write_wheel

Log = Callable[[str], None]
PYTHON312_PROBE = (
    "import sys, importlib.util; "
    "print(sys.version_info[:2] == (3, 12) and sys.version_info.releaselevel == 'final', "
    "importlib.util.MAGIC_NUMBER.hex())"
)


def python312_candidates() -> list[str]:
    """Interpreters that may be CPython 3.12: python3.12 on PATH, then pyenv's 3.12.x."""
    found = [p for p in [shutil.which("python3.12")] if p]
    pyenv = shutil.which("pyenv")
    if pyenv:
        done = subprocess.run([pyenv, "root"], capture_output=True, text=True, check=False)
        root = Path(done.stdout.strip()) if done.returncode == 0 else None
        if root is not None:
            found += [str(p) for p in sorted(root.glob("versions/3.12*/bin/python3.12"))[::-1]]
    return found


def find_python312() -> str | None:
    """A CPython 3.12 whose bytecode Pyodide 0.27.7 accepts, or None."""
    for candidate in python312_candidates():
        done = subprocess.run(
            [candidate, "-c", PYTHON312_PROBE], capture_output=True, text=True, check=False
        )
        if done.returncode == 0 and done.stdout.split() == ["True", pins.PYODIDE_PYC_MAGIC]:
            return candidate
    return None


def compile_files(python: str, tree: Path, prefix: str, paths: list[Path], beside: bool) -> None:
    """Compile the sources ``paths`` under ``tree`` to unchecked-hash bytecode, each named in its
    code as ``prefix`` + its path under ``tree`` (where Python will find it, so tracebacks name
    that): in ``__pycache__``, or with ``beside``, as NAME.pyc next to NAME.py (the only place
    Python looks for bytecode inside a zip archive).

    Unchecked-hash bytecode is used as it is, whatever the files' dates after unpacking.
    """
    options = ["-q", "-j", "0", "--invalidation-mode", "unchecked-hash", "-s", str(tree)]
    options += ["-p", prefix, *(["-b"] if beside else [])]
    cmd = [python, "-m", "compileall", *options, *map(str, paths)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"compiling under {tree.name} failed:\n{done.stdout}{done.stderr}")


def precompile_wheel(src: Path, dst: Path, python: str) -> Path:
    """Copy of wheel ``src`` with ``__pycache__`` bytecode beside each module (sources kept);
    their file names are where Pyodide installs the wheel, so tracebacks name those."""
    with tempfile.TemporaryDirectory(prefix="runtime-compile-") as tmp:
        tree = Path(tmp)
        with zipfile.ZipFile(src) as archive:
            archive.extractall(tree)
        compile_files(python, tree, pins.PYODIDE_SITE_PACKAGES, [tree], beside=False)
        return write_wheel(dst, files_of(tree))


def files_of(tree: Path) -> dict[str, bytes]:
    """Every file under ``tree``, by its path there, in a stable order."""
    return {
        p.relative_to(tree).as_posix(): p.read_bytes()
        for p in sorted(tree.rglob("*"))
        if p.is_file()
    }


def precompile_entries(
    cache_dir: Path, entries: dict, sources: dict[str, Path], scratch: Path, log: Log
) -> None:
    """Swap every non-official wheel in ``sources`` for its precompiled copy, in place.

    Runtime wheels are compiled once into the cache (keyed by their sha256); project wheels
    into ``scratch``. The entries' sha256 follow. Without CPython 3.12 nothing changes.
    """
    python = find_python312()
    if python is None:
        log("runtime: no CPython 3.12 found; shipping wheels without precompiled bytecode")
        return
    pyc_dir = cache_dir / PYC
    index_path = pyc_dir / "index.json"
    index = json.loads(index_path.read_text()) if index_path.is_file() else {}
    compiled = 0
    for name, entry in entries.items():
        if name in pins.OFFICIAL_PACKAGES:
            continue
        src, source_sha = sources[entry["file_name"]], entry["sha256"]
        in_cache = src.parent == cache_dir / WHEELS
        dst = (pyc_dir if in_cache else scratch) / entry["file_name"]
        known = index.get(entry["file_name"], {}) if in_cache else {}
        if not (known.get("source") == source_sha and has_content(dst, known.get("sha256", ""))):
            precompile_wheel(src, dst, python)
            compiled += 1
        entry["sha256"] = sha256_file(dst)
        if in_cache:
            index[entry["file_name"]] = {"source": source_sha, "sha256": entry["sha256"]}
        sources[entry["file_name"]] = dst
    if index:
        write_atomic(index_path, (json.dumps(index, indent=1, sort_keys=True) + "\n").encode())
    log(f"runtime: bytecode from {python} ({compiled} wheels compiled, the rest cached)")
