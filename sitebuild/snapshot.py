"""Pyodide memory snapshots: every page's figures built once, at build time, for the browser.

Starting Python, importing Panel and building six figures costs a reader's browser about six
seconds. A snapshot is the WebAssembly heap saved right after ``figures.live.start`` ran in
Node with the same Pyodide, wheels and figures; the page's worker restores it instead (see
static/worker.js), and falls back to the ordinary start if anything about it does not fit.

What a heap does not hold ships beside it: the files Python may still open (modules not yet
imported, data files such as Panel's CSS, numpy's shared libraries to re-link) go into one
bundle shared by every page. Heaps and bundle are compressed with zstd, which makes them
about 30% smaller than gzip does (the worker decodes them with the zstd project's decoder
compiled to WebAssembly). Both are cached by everything that goes into them.
"""

import hashlib
import json
import re
import shutil
import struct
import subprocess
import zipfile
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import zstandard

SCRIPT = Path(__file__).with_name("snapshot.js")
FOLDER = "snapshots"  # under site/runtime/
FILES = "site-packages.bin.zst"  # under site/runtime/
DECODER = "zstd-decoder.wasm"  # under site/runtime/
# Pyodide's two large downloads, also as zstd frames NAME.zst for the snapshot path (the
# worker hands them to Pyodide unpacked: 2.4 instead of 3.2 MB for the WebAssembly, 1.5
# instead of 2.1 for the standard library); the ordinary start fetches the files themselves.
PACKED = ("pyodide.asm.wasm", "python_stdlib.zip")
# Snapshot making is CPU bound and runs one Node per page: two at a time on two cores.
PARALLEL = 2
# zstd's highest ordinary level: about 25 s per heap on one core, paid once per change of
# the figures or the runtime (the result is cached); levels 12-17 are 1-2 MB larger per heap.
LEVEL = 19
# Cached snapshots kept (the most recently used): a few builds' worth for a few base URLs.
KEEP = 12

Log = Callable[..., None]


def unpack_wheels(runtime_dir: Path, dest: Path) -> None:
    """Unpack every wheel in the runtime's lock into ``dest`` (a site-packages tree)."""
    lock = json.loads((runtime_dir / "pyodide-lock.json").read_text())
    for entry in lock["packages"].values():
        with zipfile.ZipFile(runtime_dir / entry["file_name"]) as wheel:
            wheel.extractall(dest)


def runtime_digest(runtime_dir: Path) -> bytes:
    """The runtime every snapshot depends on: the core files and every wheel (via the lock)."""
    digest = hashlib.sha256()
    for name in ("pyodide.asm.wasm", "pyodide.asm.js", "python_stdlib.zip", "pyodide-lock.json"):
        digest.update(hashlib.sha256((runtime_dir / name).read_bytes()).digest())
    return digest.digest()


def inputs_key(runtime: bytes, figure_ids: list[str], dist_url: str) -> str:
    """What one page's snapshot depends on: the runtime_digest, the maker, the page."""
    digest = hashlib.sha256(runtime)
    digest.update(SCRIPT.read_bytes())
    digest.update(json.dumps([figure_ids, dist_url, LEVEL]).encode())
    return digest.hexdigest()[:32]


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


# Files no running figure opens: type stubs, C headers and sources, static libraries, test
# suites, and a wheel's .data folder (which an installer would put elsewhere, not on the path).
UNUSED = re.compile(
    r"\.(pyi|h|c|pxd|a|orig)$|/py\.typed$|(^|/)tests?/|^numpy/_core/(include|lib)/|^[^/]+\.data/"
)


def package_of(rel: str) -> str | None:
    """The import name a path under site-packages belongs to ('numpy/linalg/x.py' -> 'numpy',
    'typing_extensions.py' -> 'typing_extensions'); None for a distribution's metadata."""
    first = rel.split("/", 1)[0]
    if first.endswith(".dist-info"):
        return None
    return first if "/" in rel else first.split(".", 1)[0]


def bundle_files(tree: Path, imported: set[str], packages: set[str]) -> dict[str, bytes]:
    """The files a restored page may still open, by path under site-packages.

    Left out: modules the heap already holds (``imported``), UNUSED files, and every package
    no page imported at all (``packages`` are those some page did): a wheel that only Panel's
    other panes or HTTP from Python would need (Markdown, bleach, requests...) is never
    opened, since moving a control imports no package that building the figures did not
    (tests/figures/test_imports.py). A module with bytecode ships as that bytecode alone,
    moved from ``__pycache__/NAME.cpython-312.pyc`` to ``NAME.pyc`` beside where its source
    was, which Python imports without a source.
    """
    files = {p.relative_to(tree).as_posix(): p for p in sorted(tree.rglob("*")) if p.is_file()}
    kept: dict[str, bytes] = {}
    for rel, path in files.items():
        if rel in imported or UNUSED.search(rel) or package_of(rel) not in {None, *packages}:
            continue
        if rel.endswith(".py"):
            folder, _, name = rel.rpartition("/")
            cached = f"{folder}/__pycache__/{name[:-3]}.cpython-312.pyc".lstrip("/")
            if cached in files:
                if cached not in imported:
                    kept[rel[:-3] + ".pyc"] = files[cached].read_bytes()
                continue
        elif "/__pycache__/" in f"/{rel}":
            continue  # shipped in place of its source, above
        kept[rel] = path.read_bytes()
    return kept


def compress(data: bytes) -> bytes:
    """``data`` as one zstd frame that records its size."""
    return zstandard.ZstdCompressor(level=LEVEL, threads=-1).compress(data)


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


def make(
    runtime_dir: Path,
    pages: dict[str, list[str]],
    dist_url: str,
    pyodide_version: str,
    cache: Path,
    decoder: bytes,
    log: Log = print,
) -> dict[str, dict]:
    """Snapshot every page (slug -> figure ids) into runtime_dir; return slug -> metadata."""
    cache.mkdir(parents=True, exist_ok=True)
    out = runtime_dir / FOLDER
    out.mkdir(exist_ok=True)
    (runtime_dir / DECODER).write_bytes(decoder)
    runtime = runtime_digest(runtime_dir)  # read once, not once per page
    keys = {slug: inputs_key(runtime, ids, dist_url) for slug, ids in pages.items()}
    tree = cache / "site-packages"
    unpacked = False

    def site_packages() -> Path:
        """The wheels unpacked, once, and only if something is to be made."""
        nonlocal unpacked
        if not unpacked:
            shutil.rmtree(tree, ignore_errors=True)
            unpack_wheels(runtime_dir, tree)
            unpacked = True
        return tree

    def entry(key: str) -> tuple[Path, Path]:
        """A page's cached heap and metadata."""
        return cache / f"{key}.bin.zst", cache / f"{key}.json"

    def cached(key: str) -> bool:
        return all(path.is_file() for path in entry(key))

    if not all(cached(key) for key in keys.values()):
        site_packages()  # here, before the pages are made in parallel

    def one(slug: str) -> tuple[str, dict]:
        state, meta = entry(keys[slug])
        if not cached(keys[slug]):
            log(f"snapshot: making {slug or 'index'} ({', '.join(pages[slug])})")
            heap = state.with_suffix(".heap")
            args = {
                "runtime": str(runtime_dir.resolve()),
                "sitePackages": str(tree.resolve()),
                "figures": pages[slug],
                "distUrl": dist_url,
                "pyodide": pyodide_version,
                "out": str(heap),
                "meta": str(meta.with_suffix(".tmp")),
            }
            run_maker(args)
            state.with_suffix(".tmp").write_bytes(compress(heap.read_bytes()))
            heap.unlink()
            state.with_suffix(".tmp").replace(state)
            meta.with_suffix(".tmp").replace(meta)
        shutil.copy(state, out / f"{slug}.bin.zst")
        for used in (state, meta):
            used.touch()  # recently used: kept by prune
        return slug, json.loads(meta.read_text())

    with ThreadPoolExecutor(PARALLEL) as pool:
        metas = dict(pool.map(one, pages))
    bundle = files_bundle(cache, runtime, metas.values(), site_packages)
    shutil.copy(bundle, runtime_dir / FILES)
    bundle.touch()
    packed = packed_copies(runtime_dir, cache)
    prune(cache)
    if unpacked:
        shutil.rmtree(tree)
    total = sum((out / f"{s}.bin.zst").stat().st_size for s in pages) + bundle.stat().st_size
    log(f"snapshot: {len(pages)} pages, {total / 1e6:.1f} MB (zstd) with the shared files")
    with bundle.open("rb") as head:  # the frame header records the unpacked size
        files_bytes = zstandard.frame_content_size(head.read(18))
    return {
        slug: {**meta, "filesBytes": files_bytes, "packed": packed} for slug, meta in metas.items()
    }


def packed_copies(runtime_dir: Path, cache: Path) -> dict[str, int]:
    """Write each of PACKED as NAME.zst beside it (cached by content); name -> its size."""
    sizes = {}
    for name in PACKED:
        data = (runtime_dir / name).read_bytes()
        key = hashlib.sha256(data + json.dumps(LEVEL).encode()).hexdigest()[:32]
        frame = cache / f"{name}-{key}.zst"
        if not frame.is_file():
            frame.with_suffix(".tmp").write_bytes(compress(data))
            frame.with_suffix(".tmp").replace(frame)
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


def files_bundle(
    cache: Path, runtime: bytes, metas: Iterable[dict], site_packages: Callable[[], Path]
) -> Path:
    """The cached, compressed bundle of files for pages with these snapshots (made if new)."""
    # A module every snapshot has imported lives in every heap: its files need not ship.
    imported = [set(m["imported"]) for m in metas]
    common = sorted(set.intersection(*imported)) if imported else []
    packages = sorted({package_of(rel) for rel in set().union(*imported)} - {None})
    key = json.dumps([common, packages, UNUSED.pattern, LEVEL]).encode()
    bundle = cache / f"files-{hashlib.sha256(runtime + key).hexdigest()[:32]}.bin.zst"
    if not bundle.is_file():
        files = pack(bundle_files(site_packages(), set(common), set(packages)))
        bundle.with_suffix(".tmp").write_bytes(compress(files))
        bundle.with_suffix(".tmp").replace(bundle)
    return bundle


def page_config(base: str, slug: str, meta: dict) -> dict:
    """What a page's worker needs to restore its snapshot."""
    return {
        "decoder": f"{base}runtime/{DECODER}",
        "state": f"{base}runtime/{FOLDER}/{slug}.bin.zst",
        "stateBytes": meta["heapBytes"],
        "files": f"{base}runtime/{FILES}",
        "filesBytes": meta["filesBytes"],
        "libs": meta["libs"],
        "tableAfterLibs": meta["tableAfterLibs"],
        "packed": [
            {"file": name, "url": f"{base}runtime/{name}.zst", "bytes": meta["packed"][name]}
            for name in PACKED
        ],
    }
