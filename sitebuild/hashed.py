"""Deploy-safe names: every file a page loads, except the HTML, under a folder named by its hash.

GitHub Pages serves every file for ten minutes from the browser's cache under a fixed name, so
after a redeploy a browser could mix files of two builds. Here a group of files (one file, or
a third-party tree whose files change together) moves from ``DIR/REL`` to ``DIR/HASH/REL``,
HASH being the sha256 of the group's paths and contents, shortened. The HTML and the page
config name those paths, so a page gets exactly the files of its own build or a 404, never a
mix, and a file whose content did not change keeps its name and stays in the reader's cache.

Each file keeps its own name inside its folder: Pyodide finds its WebAssembly and standard
library by name in one folder, a wheel's name says what it holds, and KaTeX's and Panel's
stylesheets reach their fonts and images by relative paths.

``Manifest`` maps each file's path as built (site-relative) to the path it is served from.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Callable, Iterable
from pathlib import Path

from sitebuild import pins
from sitebuild.files import cache_key, sha256_file
from sitebuild.lock import write_lock

Manifest = dict[str, str]
LENGTH = 12  # hex digits of the sha256 in a folder's name: 48 bits, no collision in a site
LOCK = f"runtime/{pins.LOCK_NAME}"
CORE = tuple(f"runtime/{name}" for name in pins.PYODIDE_CORE_FILES)


def group_hash(folder: Path, rels: Iterable[str]) -> str:
    """The folder name of the files ``rels`` under ``folder``: a hash of their paths and bytes."""
    return cache_key({rel: sha256_file(folder / rel) for rel in rels})[:LENGTH]


def move_group(root: Path, parent: str, rels: list[str]) -> Manifest:
    """Move ``root/parent/REL`` for each of ``rels`` to ``root/parent/HASH/REL``.

    Returns old -> new site-relative path; folders the move left empty are removed.
    """
    digest = group_hash(root / parent, rels)
    moved = {}
    for rel in rels:
        old, new = posixpath.join(parent, rel), posixpath.join(parent, digest, rel)
        (root / new).parent.mkdir(parents=True, exist_ok=True)
        (root / old).rename(root / new)
        moved[old] = new
    remove_empty_folders(root / parent)
    return moved


def remove_empty_folders(top: Path) -> None:
    """Remove the folders under ``top`` that hold nothing (deepest first)."""
    for path in sorted(top.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        if path.is_dir() and not any(path.iterdir()):
            path.rmdir()


def files_under(root: Path, folder: str) -> list[str]:
    """Every file under ``root/folder``, relative to it, in a stable order."""
    top = root / folder
    return sorted(p.relative_to(top).as_posix() for p in top.rglob("*") if p.is_file())


def move_each(root: Path, rels: Iterable[str]) -> Manifest:
    """Every file its own group, in a folder beside where it was."""
    moved: Manifest = {}
    for rel in rels:
        parent, name = posixpath.split(rel)
        moved |= move_group(root, parent, [name])
    return moved


def hash_assets(out: Path) -> Manifest:
    """The site's own files (``static/``: each file alone) and the vendored trees (each
    folder of ``vendor/``: BokehJS, Panel's dist, KaTeX, whose files change together)."""
    moved = move_each(out, [f"static/{rel}" for rel in files_under(out, "static")])
    for tree in sorted(p.name for p in (out / "vendor").iterdir()):
        tree_files = [f"{tree}/{rel}" for rel in files_under(out / "vendor", tree)]
        moved |= move_group(out, "vendor", tree_files)
    return moved


def hash_runtime(out: Path) -> Manifest:
    """``runtime/``: Pyodide's core files as one group (Pyodide finds them by name in one
    folder, its ``indexURL``), every other file alone, and last the lock, rewritten first so
    that each wheel's ``file_name`` is its new path relative to that folder."""
    rels = [f"runtime/{rel}" for rel in files_under(out, "runtime")]
    moved = move_group(out, "runtime", [rel.removeprefix("runtime/") for rel in CORE])
    moved |= move_each(out, [rel for rel in rels if rel not in (*CORE, LOCK)])
    lock = relocated_lock(json.loads((out / LOCK).read_text()), moved)
    write_lock(out / LOCK, lock)
    return moved | move_each(out, [LOCK])


def index_folder(moved: Manifest) -> str:
    """Where Pyodide's core files are served from, site-relative, with a trailing slash."""
    return posixpath.dirname(moved[CORE[0]]) + "/"


def relocated_lock(lock: dict, moved: Manifest) -> dict:
    """``lock`` with each package's ``file_name`` the path its wheel moved to, relative to
    Pyodide's core folder (Pyodide resolves it against ``indexURL`` and installs the wheel by
    the last part of that path)."""
    index = index_folder(moved)
    packages = {}
    for key, entry in lock["packages"].items():
        wheel = moved[f"runtime/{entry['file_name']}"]
        packages[key] = {**entry, "file_name": posixpath.relpath(wheel, index)}
    return {**lock, "packages": packages}


def folder(moved: Manifest, prefix: str) -> str:
    """Where a folder of one group (``vendor/panel/dist/``) is served from."""
    inside = {
        new[: len(new) - len(old) + len(prefix)]
        for old, new in moved.items()
        if old.startswith(prefix)
    }
    if len(inside) != 1:
        raise ValueError(f"{prefix} is not the folder of one hashed group ({sorted(inside)})")
    return inside.pop()


def urls(moved: Manifest, base: str) -> Callable[[str], str]:
    """``url(rel)``: the URL of a file by its path as built; a file not hashed fails the build."""

    def url(rel: str) -> str:
        if rel not in moved:
            raise ValueError(f"{rel} has no hashed name: is it in the site?")
        return base + moved[rel]

    return url
