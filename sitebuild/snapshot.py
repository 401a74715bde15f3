"""Pyodide memory snapshots: every page's figures built once, at build time, for the browser.

Starting Python, importing Panel and building a page's figures is the slowest part of a
page going live. A snapshot is the WebAssembly heap saved right after ``figures.live.start``
ran in Node with the same Pyodide, wheels and figures; the page's worker restores it instead
(see static/worker.js), and falls back to the ordinary start if anything about it does not
fit.

What a heap does not hold ships beside it, as one bundle shared by every page
(sitebuild/bundle.py). Heaps and bundle are compressed with zstd, which makes them
smaller than gzip does (tests/sitebuild/test_snapshot.py checks it; the worker decodes them
with the zstd project's decoder compiled to WebAssembly). Both are cached by everything that
goes into them.
"""

import json
import os
import shutil
import subprocess
import tempfile
import zipfile
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import zstandard

from sitebuild import pins
from sitebuild.bundle import UNUSED, bundle_files, bundle_recipe, pack
from sitebuild.files import cache_key, sha256_bytes, sha256_file, write_atomic

SCRIPT = Path(__file__).with_name("snapshot.js")
FOLDER = "snapshots"  # under site/runtime/
FILES = "site-packages.bin.zst"  # under site/runtime/
DECODER = "zstd-decoder.wasm"  # under site/runtime/
# Pyodide's two large downloads, also as zstd frames NAME.zst for the snapshot path, since
# they are smaller than the gzip the server sends (the worker hands them to Pyodide
# unpacked); the ordinary start fetches the files themselves.
PACKED = ("pyodide.asm.wasm", "python_stdlib.zip")
# Snapshot making is CPU bound and runs one Node per page: two at a time on two cores.
PARALLEL = 2
# zstd's highest ordinary level: slow, but paid once per change of the figures or the runtime
# (the result is cached), and every reader downloads the smaller heaps.
LEVEL = 19
# Cached snapshots kept (the most recently used): a few builds' worth for a few base URLs.
KEEP = 12

Log = Callable[..., None]


def unpack_wheels(runtime_dir: Path, dest: Path) -> None:
    """Unpack every wheel in the runtime's lock into ``dest`` (a site-packages tree), afresh."""
    shutil.rmtree(dest, ignore_errors=True)
    lock = json.loads((runtime_dir / "pyodide-lock.json").read_text())
    for entry in lock["packages"].values():
        with zipfile.ZipFile(runtime_dir / entry["file_name"]) as wheel:
            wheel.extractall(dest)


def runtime_digest(runtime_dir: Path) -> str:
    """The runtime every snapshot depends on: the core files and every wheel (via the lock)."""
    names = ("pyodide.asm.wasm", "pyodide.asm.js", "python_stdlib.zip", "pyodide-lock.json")
    return cache_key({name: sha256_file(runtime_dir / name) for name in names})


def short_key(recipe: dict) -> str:
    """A cache file's name for ``recipe``: its cache key, shortened (still hex, for prune)."""
    return cache_key(recipe)[:32]


def inputs_key(runtime: str, figure_ids: list[str], dist_url: str) -> str:
    """What one page's snapshot depends on: the runtime_digest, the maker, the page."""
    maker = sha256_file(SCRIPT)
    return short_key(
        {"runtime": runtime, "maker": maker, "figures": figure_ids, "distUrl": dist_url,
         "level": LEVEL}
    )  # fmt: skip


def run_maker(args: dict) -> None:
    """One ``node snapshot.js`` run; its own error message on failure."""
    node = shutil.which("node")
    if node is None:
        raise RuntimeError("node is needed to make the snapshots (Debian package: nodejs)")
    done = subprocess.run(
        [node, str(SCRIPT), json.dumps(args)], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
        raise RuntimeError("making a snapshot failed: " + " / ".join(tail))


def compress(data: bytes) -> bytes:
    """``data`` as one zstd frame that records its size."""
    return zstandard.ZstdCompressor(level=LEVEL, threads=-1).compress(data)


@dataclass(frozen=True)
class Maker:
    """What every page's snapshot is made with, and where cached snapshots live."""

    runtime_dir: Path
    site_packages: Path
    dist_url: str
    pyodide_version: str
    cache: Path
    log: Log


def cache_entry(cache: Path, key: str) -> tuple[Path, Path]:
    """A page's cached heap and metadata."""
    return cache / f"{key}.bin.zst", cache / f"{key}.json"


def is_cached(cache: Path, key: str) -> bool:
    """Whether a page's heap and metadata are both in the cache."""
    return all(path.is_file() for path in cache_entry(cache, key))


def make_heap(maker: Maker, figures: list[str], key: str) -> None:
    """Run the maker for one page; put its compressed heap and its metadata in the cache."""
    state, meta = cache_entry(maker.cache, key)
    with tempfile.TemporaryDirectory(prefix="making-", dir=maker.cache) as tmp:
        heap, made = Path(tmp) / "heap", Path(tmp) / "meta.json"
        run_maker(
            {
                "runtime": str(maker.runtime_dir.resolve()),
                "unpacked": str(maker.site_packages.resolve()),
                "sitePackages": pins.PYODIDE_SITE_PACKAGES,
                "figures": figures,
                "distUrl": maker.dist_url,
                "pyodide": maker.pyodide_version,
                "out": str(heap),
                "meta": str(made),
            }
        )
        write_atomic(state, compress(heap.read_bytes()))
        write_atomic(meta, made.read_bytes())  # last: is_cached needs both


def page_snapshot(maker: Maker, slug: str, figures: list[str], key: str) -> dict:
    """One page's snapshot into the site (made if not cached); return its metadata."""
    state, meta = cache_entry(maker.cache, key)
    if not is_cached(maker.cache, key):
        maker.log(f"snapshot: making {slug or 'index'} ({', '.join(figures)})")
        make_heap(maker, figures, key)
    shutil.copy(state, maker.runtime_dir / FOLDER / f"{slug}.bin.zst")
    for used in (state, meta):
        used.touch()  # recently used: kept by prune
    return json.loads(meta.read_text())


def make(
    runtime_dir: Path,
    pages: dict[str, list[str]],
    dist_url: str,
    pyodide_version: str,
    cache: Path,
    decoder: bytes,
    log: Log = print,
) -> dict[str, dict]:
    """Snapshot every page (slug -> figure ids) into runtime_dir; return slug -> metadata.

    The wheels are unpacked into a site-packages tree only when a heap or the files bundle
    is to be made, once, before the pages are made in parallel.
    """
    cache.mkdir(parents=True, exist_ok=True)
    (runtime_dir / FOLDER).mkdir(exist_ok=True)
    (runtime_dir / DECODER).write_bytes(decoder)
    runtime = runtime_digest(runtime_dir)  # read once, not once per page
    keys = [inputs_key(runtime, ids, dist_url) for ids in pages.values()]
    # Unpacked for this build alone: another build may share the cache at the same time.
    unpack_dir = cache / f"site-packages-{os.getpid()}"
    maker = Maker(runtime_dir, unpack_dir, dist_url, pyodide_version, cache, log)
    unpacked = not all(is_cached(cache, key) for key in keys)
    if unpacked:
        unpack_wheels(runtime_dir, maker.site_packages)
    with ThreadPoolExecutor(PARALLEL) as pool:
        made = pool.map(partial(page_snapshot, maker), pages, pages.values(), keys)
        metas = dict(zip(pages, made, strict=True))
    common, packages = bundle_recipe(metas.values())
    bundle = cache / f"files-{bundle_key(runtime, common, packages)}.bin.zst"
    if not bundle.is_file():
        if not unpacked:
            unpack_wheels(runtime_dir, maker.site_packages)
            unpacked = True
        files = bundle_files(maker.site_packages, set(common), set(packages))
        write_atomic(bundle, compress(pack(files)))
    shutil.copy(bundle, runtime_dir / FILES)
    bundle.touch()
    packed = packed_copies(runtime_dir, cache)
    prune(cache)
    if unpacked:
        shutil.rmtree(maker.site_packages)
    log_sizes(runtime_dir, pages, bundle, log)
    files_bytes = frame_size(bundle)
    return {
        slug: {**meta, "filesBytes": files_bytes, "packed": packed} for slug, meta in metas.items()
    }


def log_sizes(runtime_dir: Path, pages: Iterable[str], bundle: Path, log: Log) -> None:
    """One build-log line: the snapshots' bytes and the shared bundle's, as shipped."""
    heaps = [(runtime_dir / FOLDER / f"{slug}.bin.zst").stat().st_size for slug in pages]
    total = sum(heaps) + bundle.stat().st_size
    log(f"snapshot: {len(heaps)} pages, {total / 1e6:.1f} MB (zstd) with the shared files")


def frame_size(path: Path) -> int:
    """The unpacked size a zstd frame records in its header."""
    with path.open("rb") as head:
        return zstandard.frame_content_size(head.read(18))


def packed_copies(runtime_dir: Path, cache: Path) -> dict[str, int]:
    """Write each of PACKED as NAME.zst beside it (cached by content); name -> its size."""
    sizes = {}
    for name in PACKED:
        data = (runtime_dir / name).read_bytes()
        frame = cache / f"{name}-{short_key({'data': sha256_bytes(data), 'level': LEVEL})}.zst"
        if not frame.is_file():
            write_atomic(frame, compress(data))
        shutil.copy(frame, runtime_dir / f"{name}.zst")
        frame.touch()
        sizes[name] = len(data)
    return sizes


def prune(cache: Path, keep: int = KEEP) -> None:
    """Delete cached snapshots, bundles and packed copies beyond the ``keep`` most recently
    used of each."""
    kinds = [("[0-9a-f]*.json", ".bin.zst"), ("files-*.bin.zst", None)]
    kinds += [(f"{name}-*.zst", None) for name in PACKED]
    for metas, payload in kinds:
        entries = sorted(cache.glob(metas), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in entries[keep:]:
            old.unlink()
            if payload:
                old.with_suffix(payload).unlink(missing_ok=True)
    for stale in cache.glob("*.bin.gz"):  # an earlier format
        stale.unlink()


def bundle_key(runtime: str, common: list[str], packages: list[str]) -> str:
    """What the files bundle depends on: the runtime, its recipe and how files are chosen."""
    return short_key(
        {"runtime": runtime, "common": common, "packages": packages,
         "unused": UNUSED.pattern, "level": LEVEL}
    )  # fmt: skip


def page_config(url: Callable[[str], str], slug: str, meta: dict) -> dict:
    """What a page's worker needs to restore its snapshot; ``url`` gives a file's URL by its
    path under the site as built (sitebuild/hashed.py names it by its content)."""
    return {
        "decoder": url(f"runtime/{DECODER}"),
        "state": url(f"runtime/{FOLDER}/{slug}.bin.zst"),
        "stateBytes": meta["heapBytes"],
        "files": url(f"runtime/{FILES}"),
        "filesBytes": meta["filesBytes"],
        "libs": meta["libs"],
        "tableAfterLibs": meta["tableAfterLibs"],
        "packed": [
            {"file": name, "url": url(f"runtime/{name}.zst"), "bytes": meta["packed"][name]}
            for name in PACKED
        ],
    }
