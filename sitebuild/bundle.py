"""The files a restored page may still open, chosen and packed for the worker.

A memory snapshot holds every module the page imported; what it does not hold (modules not
yet imported, data files, numpy's shared libraries) ships beside it in two bundles shared by
every page, which the worker unpacks into Pyodide's file system: what a worker may open as
soon as Python runs (the libraries the heap links, to re-link; data files), and what only an
import opens, fetched before the first one the heap cannot serve (``only_imports_open``).
"""

import json
import re
import struct
from collections.abc import Iterable
from pathlib import Path

from sitebuild import pins
from sitebuild.wheels import cached_bytecode, project_spec

# Files no running figure opens: type stubs, C headers and sources, static libraries, test
# suites, and a wheel's .data folder (which an installer would put elsewhere, not on the path).
UNUSED = re.compile(
    r"\.(pyi|h|c|pxd|a|orig)$|/py\.typed$|(^|/)tests?/|^numpy/_core/(include|lib)/|^[^/]+\.data/"
)


# The project's own packages. A page's heap already holds every module of them the page will
# run: building its figures imports them, and moving a control imports no more
# (tests/figures/test_imports.py checks this page by page). Another page's figure modules are
# never opened, so none ships: a new post costs the other pages nothing here.
PAGE_CODE = frozenset(project_spec(Path(__file__).resolve().parent.parent)[2])


def package_of(rel: str) -> str | None:
    """The import name a path under site-packages belongs to ('numpy/linalg/x.py' -> 'numpy',
    'typing_extensions.py' -> 'typing_extensions'); None for a distribution's metadata."""
    first = rel.split("/", 1)[0]
    if first.endswith(".dist-info"):
        return None
    return first if "/" in rel else first.split(".", 1)[0]


def distributes(dist_info: Path, packages: set[str]) -> bool:
    """Whether the distribution whose metadata folder is ``dist_info`` installed any of these
    import names (its RECORD lists every file it installed)."""
    record = dist_info / "RECORD"
    if not record.is_file():
        return False
    names = {package_of(line.split(",", 1)[0]) for line in record.read_text().splitlines()}
    return bool(names & packages)


def bundle_files(tree: Path, imported: set[str], packages: set[str]) -> dict[str, bytes]:
    """The files a restored page may still open, by path under site-packages.

    Left out: modules the heap already holds (``imported``), UNUSED files, the project's own
    packages (PAGE_CODE), and every package no page imported at all (``packages`` are those
    some page did): a wheel that only Panel's other panes or HTTP from Python would need
    (Markdown, bleach, requests...) is never opened, since moving a control imports no
    package that building the figures did not (tests/figures/test_imports.py); nor does its
    metadata (``NAME.dist-info``: its file list alone may be larger than the modules that ship
    of a package some page did import). A module with
    bytecode ships as that bytecode alone, moved from ``__pycache__/NAME.cpython-312.pyc`` to
    ``NAME.pyc`` beside where its source was, which Python imports without a source.
    """
    files = {p.relative_to(tree).as_posix(): p for p in sorted(tree.rglob("*")) if p.is_file()}
    kept: dict[str, bytes] = {}
    for rel, path in files.items():
        package = package_of(rel)
        if rel in imported or UNUSED.search(rel) or package in PAGE_CODE:
            continue
        if package is None:
            if not distributes(tree / rel.split("/", 1)[0], {*packages, *PAGE_CODE}):
                continue
        elif package not in packages:
            continue
        if rel.endswith(".py"):
            cached = cached_bytecode(rel)
            if cached in files:
                if cached not in imported:
                    kept[rel[:-3] + ".pyc"] = files[cached].read_bytes()
                continue
        elif "/__pycache__/" in f"/{rel}":
            continue  # shipped in place of its source, above
        kept[rel] = path.read_bytes()
    return kept


def linked_files(libs: list[dict]) -> list[str]:
    """The shared libraries the heap links (its metadata's ``libs``), as paths under
    site-packages."""
    return sorted(lib["name"].removeprefix(pins.PYODIDE_SITE_PACKAGES) for lib in libs)


def only_imports_open(rel: str, linked: Iterable[str]) -> bool:
    """Whether a file of the bundle is one only an import opens: a module's source or bytecode,
    or a library the heap does not link (``linked``), which a worker loads when a reader's cell
    imports it. The rest (the libraries a worker relinks, data files) may be opened as soon as
    Python runs."""
    return rel.endswith((".py", ".pyc")) or (rel.endswith(".so") and rel not in linked)


def bundle_recipe(metas: Iterable[dict]) -> tuple[list[str], list[str]]:
    """What the files bundle for pages with these snapshots leaves out and keeps.

    Returns the modules every snapshot has imported (they live in every heap, so their files
    need not ship) and the packages some page imported.
    """
    imported = [set(m["imported"]) for m in metas]
    common = sorted(set.intersection(*imported)) if imported else []
    packages = sorted({package_of(rel) for rel in set().union(*imported)} - {None})
    return common, packages


def pack(files: dict[str, bytes]) -> bytes:
    """Files as one bundle the worker unpacks into Pyodide's file system.

    Layout: a little-endian u32 n, n bytes of JSON ``[[path, offset, size], ...]``, then the
    files' bytes in that order.
    """
    index, offset = [], 0
    for rel, data in files.items():
        index.append([rel, offset, len(data)])
        offset += len(data)
    head = json.dumps(index, separators=(",", ":")).encode()
    return struct.pack("<I", len(head)) + head + b"".join(files.values())
