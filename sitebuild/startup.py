"""Bytecode for what a page's ordinary start imports, so the browser does not compile it.

The ordinary start (no memory snapshot: the fallback, and every page of a ``--no-snapshots``
build) installs numpy and the project and imports them, and Pyodide itself imports a part of
the standard library first. Pyodide ships both numpy and the standard library as sources, so
the browser compiled every one of those modules on each start. Here the build runs that start
in Node (``startup.js``), learns which modules it imports from source, and ships CPython 3.12
bytecode in place of their sources (bytecode is larger than its source: for those modules
alone, and without their sources, the download grows least):

- the standard library as ``STDLIB``, a copy of python_stdlib.zip with ``NAME.pyc`` where each
  such ``NAME.py`` was (inside a zip, Python looks for bytecode only there), its members
  deflated as in Pyodide's own (the build's python_stdlib.zip is stored, for zstd to compress
  whole, and the host sends a zip as it is). The worker's ordinary start asks Pyodide for it in
  place of python_stdlib.zip, which the snapshot start keeps using unchanged: the heap was
  saved with that archive's index.
- each wheel those modules came from without bytecode (numpy's), rewritten with ``NAME.pyc``
  in place of each such ``NAME.py``, and its sha256 in the lock changed to match.

A traceback through one of those modules names its file and line, without the line's text: as
in the snapshot start, whose files leave out every module its heap holds (sitebuild/bundle.py).
Without a CPython 3.12 (sitebuild/bytecode.py) nothing changes and the start compiles.
"""

from __future__ import annotations

import json
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

from sitebuild import bytecode, install, node, pins
from sitebuild.files import cache_key, most_recent, sha256_file, write_atomic
from sitebuild.lock import write_lock
from sitebuild.wheels import cached_bytecode, write_wheel

SCRIPT = Path(__file__).with_name("startup.js")
STDLIB = "python_stdlib-startup.zip"  # under site/runtime/, beside python_stdlib.zip
KEEP = 12  # lists of imports kept in the cache, the most recently used

Log = Callable[[str], None]


def imported_sources(
    runtime_dir: Path, packages: list[str], figures: list[str], cache: Path
) -> dict[str, list[str]]:
    """The modules the ordinary start imports from source, cached by everything they depend
    on: {"stdlib": names in python_stdlib.zip, "site": paths under site-packages}."""
    runtime = {n: sha256_file(runtime_dir / n) for n in ("python_stdlib.zip", pins.LOCK_NAME)}
    recipe = {"runtime": runtime, "lister": sha256_file(SCRIPT), "packages": packages}
    key = cache_key({**recipe, "figures": figures})
    listed = cache / f"startup-imports-{key[:32]}.json"
    if not listed.is_file():
        with tempfile.TemporaryDirectory(prefix="startup-") as tmp:
            out = Path(tmp) / "imported.json"
            args = {
                "runtime": str(runtime_dir),
                "packages": packages,
                "figures": figures,
                "stdlib": pins.PYODIDE_STDLIB,
                "sitePackages": pins.PYODIDE_SITE_PACKAGES,
                "out": str(out),
            }
            node.run_script(SCRIPT, [json.dumps(args)], "to list the start's imports")
            write_atomic(listed, out.read_bytes())
    listed.touch()
    most_recent(cache, "startup-imports-*.json", KEEP)
    return json.loads(listed.read_text())


def stdlib_with_bytecode(archive: bytes, bytecode: dict[str, bytes]) -> bytes:
    """The zip ``archive`` with ``NAME.pyc`` (from ``bytecode``, by its source's name) in place
    of each ``NAME.py`` it has bytecode for; every member deflated, as in Pyodide's own, since
    the host sends a zip as it is."""
    swap = {name: (name[:-3] + ".pyc", pyc) for name, pyc in bytecode.items()}
    return install.rezipped(archive, zipfile.ZIP_DEFLATED, swap)


def compiled_in_place(tree: Path, names: list[str], prefix: str, python: str) -> dict[str, bytes]:
    """Compile the modules ``names`` (paths under ``tree``) to NAME.pyc beside them, named in
    their code as under ``prefix``, and remove their sources; returns source name -> bytecode."""
    bytecode.compile_files(python, tree, prefix, [tree / name for name in names], beside=True)
    compiled = {}
    for name in names:
        compiled[name] = (tree / name).with_suffix(".pyc").read_bytes()
        (tree / name).unlink()
    return compiled


def compiled_stdlib(archive: Path, names: list[str], python: str) -> bytes:
    """python_stdlib.zip (at ``archive``) with bytecode in place of its modules ``names``."""
    with tempfile.TemporaryDirectory(prefix="startup-stdlib-") as tmp:
        tree = Path(tmp)
        with zipfile.ZipFile(archive) as zipped:
            for name in names:
                zipped.extract(name, tree)
        compiled = compiled_in_place(tree, names, pins.PYODIDE_STDLIB, python)
    return stdlib_with_bytecode(archive.read_bytes(), compiled)


def compiled_wheel(wheel: Path, names: list[str], python: str) -> Path:
    """Rewrite ``wheel`` with bytecode in place of its modules ``names`` (paths in it)."""
    with tempfile.TemporaryDirectory(prefix="startup-wheel-") as tmp:
        tree = Path(tmp)
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(tree)
        compiled_in_place(tree, names, pins.PYODIDE_SITE_PACKAGES, python)
        return write_wheel(wheel, bytecode.files_of(tree))


def wheels_without_bytecode(runtime_dir: Path, lock: dict, site: list[str]) -> dict[str, list]:
    """Of the modules ``site`` (paths under site-packages), those whose wheel in ``lock`` has no
    bytecode for them, by the lock's package name."""
    missing: dict[str, list[str]] = {}
    wanted = set(site)
    for name, entry in sorted(lock["packages"].items()):
        with zipfile.ZipFile(runtime_dir / entry["file_name"]) as wheel:
            files = set(wheel.namelist())
        for rel in sorted(wanted & files):
            if cached_bytecode(rel) not in files:
                missing.setdefault(name, []).append(rel)
    return missing


def add_bytecode(
    runtime_dir: Path, packages: list[str], figures: list[str], cache: Path, log: Log
) -> bool:
    """Write STDLIB and recompile the wheels the ordinary start imports sources from, in
    ``runtime_dir`` (site/runtime/, before its files are hashed). Returns whether it did: not
    without a CPython 3.12."""
    python = bytecode.find_python312()
    if python is None:
        log("startup: no CPython 3.12 found; the ordinary start compiles what it imports")
        return False
    sources = imported_sources(runtime_dir, packages, figures, cache)
    stdlib = compiled_stdlib(runtime_dir / "python_stdlib.zip", sources["stdlib"], python)
    (runtime_dir / STDLIB).write_bytes(stdlib)
    lock_path = runtime_dir / pins.LOCK_NAME
    lock = json.loads(lock_path.read_text())
    missing = wheels_without_bytecode(runtime_dir, lock, sources["site"])
    for name, modules in missing.items():
        entry = lock["packages"][name]
        wheel = runtime_dir / entry["file_name"]
        compiled_wheel(wheel, modules, python)
        entry["sha256"] = sha256_file(wheel)
    write_lock(lock_path, lock)
    counts = ", ".join(f"{len(m)} of {name}" for name, m in missing.items()) or "none"
    log(f"startup: bytecode for {len(sources['stdlib'])} modules of the standard library; {counts}")
    return True
