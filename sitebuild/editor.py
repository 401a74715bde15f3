"""The code editor of the pages' Python cells: CodeMirror 6, bundled by esbuild into one script.

The npm packages and their exact versions are pinned in ``sitebuild/editor/package-lock.json``
with each tarball's integrity hash, which ``npm ci`` checks; the lock names no registry (its
``.npmrc`` leaves the ``resolved`` URLs out). The first build installs them into the cache and
bundles ``sitebuild/editor/entry.js``; later builds reuse the bundle, offline. static/cells.js
loads it only when the reader first focuses or runs a cell. The same install's esbuild bundles
the page script (sitebuild/pagescript.py) on every build.
"""

from __future__ import annotations

import gzip
import shutil
from collections.abc import Callable
from pathlib import Path

from sitebuild.fetch import run
from sitebuild.files import cache_key, sha256_file, write_atomic

Log = Callable[[str], None]
SOURCE = Path(__file__).resolve().parent / "editor"
# What the bundle is made from: the pins, the npm settings and the entry script.
RECIPE = ("package.json", "package-lock.json", ".npmrc", "entry.js")
BUNDLE = "editor.js"
STATIC = f"static/{BUNDLE}"  # its path in the site, before its name is hashed
# The most the editor may cost a reader, gzipped (the budget).
MAX_GZIP_BYTES = 150_000


def fingerprint(source: Path = SOURCE) -> str:
    """Changes whenever a pin, the npm settings or the entry script changes."""
    return cache_key({name: sha256_file(source / name) for name in RECIPE})[:16]


def gzip_size(data: bytes) -> int:
    """The bytes a reader downloads for ``data`` served gzipped."""
    return len(gzip.compress(data, compresslevel=9, mtime=0))


def ensure_tools(cache: Path, log: Log, source: Path = SOURCE) -> Path:
    """The folder in ``cache`` where the lock's npm packages (CodeMirror, esbuild) are
    installed, on first use; later builds find them there, offline."""
    folder = cache.resolve() / "editor" / fingerprint(source) / "npm"
    installed = folder / "node_modules" / ".installed"
    if installed.is_file():
        return folder
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is needed once to install the code editor (CodeMirror, esbuild)")
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for name in RECIPE:
        shutil.copy(source / name, folder / name)
    # npm ci installs exactly the lock and refuses a tarball whose integrity differs;
    # no install scripts run (esbuild's wrapper finds its platform binary without one).
    run([npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"], log, cwd=folder)
    installed.touch()
    return folder


def esbuild(cache: Path, log: Log) -> Path:
    """The pinned esbuild's own program, installed in ``cache`` on first use."""
    return esbuild_in(ensure_tools(cache, log))


def esbuild_in(tools: Path) -> Path:
    """esbuild's own program in the ``tools`` folder. Not the package's ``bin``: that is a Node
    wrapper whose stack trace, on an error, buries esbuild's message."""
    found = sorted((tools / "node_modules" / "@esbuild").glob("*/bin/esbuild"))
    if len(found) != 1:
        raise RuntimeError(f"expected esbuild's program for this platform once, found {found}")
    return found[0]


def ensure_bundle(cache: Path, log: Log, source: Path = SOURCE) -> Path:
    """The bundled editor script in ``cache``, bundled on first use."""
    bundle = cache.resolve() / "editor" / fingerprint(source) / BUNDLE
    if bundle.is_file():
        return bundle
    tools = ensure_tools(cache, log, source)
    out = tools / BUNDLE
    run(
        [str(esbuild_in(tools)), "entry.js", "--bundle", "--minify",
         "--format=iife", "--target=es2020", "--legal-comments=none", f"--outfile={out.name}"],
        log,
        cwd=tools,
    )  # fmt: skip
    data = out.read_bytes()
    size = gzip_size(data)
    if size > MAX_GZIP_BYTES:
        raise RuntimeError(f"the editor bundle is {size} bytes gzipped, over {MAX_GZIP_BYTES}")
    write_atomic(bundle, data)
    out.unlink()
    return bundle


def write_bundle(cache: Path, static: Path, log: Log) -> int:
    """Copy the editor bundle into the site's ``static`` folder; return its gzipped size."""
    data = ensure_bundle(cache, log).read_bytes()
    (static / BUNDLE).write_bytes(data)
    size = gzip_size(data)
    log(f"editor: {BUNDLE}, {len(data)} bytes, {size} gzipped")
    return size
