"""The Pyodide memory snapshot: every figure of the site drawn once, at build time.

Starting Python, loading numpy and the project and drawing a page's figures is the slowest part
of a page going live. The snapshot is the WebAssembly heap saved right after
``worker.live.start`` drew every figure of every page in Node, with the same Pyodide and
wheels; each page's worker restores it instead (see static/restore.js), keeps its own page's
figures, and falls back to the ordinary start if anything about it does not fit.

One heap serves the whole site: most of it (Python and numpy imported) is the same on every
page, and the figures add little, so a reader downloads it once for the series and, as its name
follows its content, again only when it changed.

What a heap does not hold ships beside it, shared by every page (sitebuild/bundle.py): one
bundle of the files Python may open as soon as it runs (numpy's libraries, data files), and
one of modules only an import opens, which the worker fetches with the standard library on
the first import the heap cannot serve (worker/deferred.py). Heaps and bundles are
compressed with zstd, which makes them smaller than gzip does (tests/sitebuild/test_snapshot.py
checks it; the worker decodes them with the zstd project's decoder compiled to WebAssembly).
All are cached by everything that goes into them.
"""

import json
import os
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import zstandard

from sitebuild import bundle, heap, node, pins
from sitebuild.bundle import bundle_files, bundle_recipe, linked_files, only_imports_open, pack
from sitebuild.files import cache_key, most_recent, sha256_bytes, sha256_file, write_atomic

SCRIPT = Path(__file__).with_name("snapshot.js")
FOLDER = "snapshots"  # under site/runtime/
HEAP = "heap-{}.bin.zst"  # under site/runtime/FOLDER/: the heap every page restores, by part
FILES = "site-packages.bin.zst"  # under site/runtime/: what a restored heap may open at once
# The modules and bytecode of the same bundle, which only an import opens: fetched with LATER.
LATER_FILES = "site-packages-later.bin.zst"  # under site/runtime/
DECODER = "zstd-decoder.wasm"  # under site/runtime/
# Pyodide's two large downloads, also as zstd frames NAME.zst for the snapshot path, since
# they are smaller than the gzip the server sends (the worker hands them to Pyodide
# unpacked); the ordinary start fetches the files themselves.
PACKED = ("pyodide.asm.wasm", "python_stdlib.zip")
# Of those, the ones a restored worker fetches only on the first import its heap cannot serve
# (worker/deferred.py), with where each goes in Pyodide's file system: the heap already holds
# every module of the standard library a figure runs.
LATER = {"python_stdlib.zip": pins.PYODIDE_STDLIB}
# zstd's highest ordinary level: slow, but paid once per change of the figures or the runtime
# (the result is cached), and every reader downloads the smaller heaps.
LEVEL = 19
# The heap is one zstd frame, shipped cut into parts of this many bytes, fetched at once and
# decoded as one stream: a browser keeps a file in its cache only up to a size (about 6 MB in
# a private window's memory cache), and parts of 2 MB stay cached for the next page. One frame
# rather than a frame per part, since a match may then reach back across a cut.
PART = 2 << 20
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


def held_packages(runtime_dir: Path, imported: Iterable[str]) -> list[str]:
    """The lock's packages a heap holds: those that provide a top-level module it imported
    (``imported``). A restored Pyodide is told they are loaded, or a cell importing numpy
    would download and unpack numpy's wheel over the numpy it has."""
    lock = json.loads((runtime_dir / "pyodide-lock.json").read_text())
    imported = set(imported)
    return sorted(name for name, e in lock["packages"].items() if imported & set(e["imports"]))


def runtime_digest(runtime_dir: Path) -> str:
    """The runtime every snapshot depends on: the core files and every wheel (via the lock)."""
    names = ("pyodide.asm.wasm", "pyodide.asm.js", "python_stdlib.zip", "pyodide-lock.json")
    return cache_key({name: sha256_file(runtime_dir / name) for name in names})


def short_key(recipe: dict) -> str:
    """A cache file's name for ``recipe``: its cache key, shortened (still hex, for prune)."""
    return cache_key(recipe)[:32]


def inputs_key(runtime: str, figure_ids: list[str]) -> str:
    """What the snapshot depends on: the runtime_digest, the maker, the figures."""
    maker = sha256_file(SCRIPT)
    return short_key(
        {
            "runtime": runtime,
            "maker": maker,
            "figures": figure_ids,
            "level": LEVEL,
            "part": PART,
            "format": heap.FORMAT,
        }
    )


def run_maker(args: dict) -> None:
    """One ``node snapshot.js`` run; on failure, an error with what the maker said last."""
    node.run_script(SCRIPT, [json.dumps(args)], "to make the snapshots")


def compress(data: bytes) -> bytes:
    """``data`` as one zstd frame that records its size."""
    return zstandard.ZstdCompressor(level=LEVEL, threads=-1).compress(data)


def compress_parts(data: bytes) -> list[bytes]:
    """``data`` as one zstd frame, cut into parts of PART bytes (the last one shorter)."""
    frame = compress(data)
    return [frame[at : at + PART] for at in range(0, len(frame), PART)]


def split(data: bytes, sizes: list[int]) -> list[bytes]:
    """``data`` cut into consecutive pieces of these sizes."""
    ends = [sum(sizes[: i + 1]) for i in range(len(sizes))]
    if not ends or ends[-1] != len(data):
        raise ValueError(f"{len(data)} bytes cannot be cut into parts of {sizes}")
    return [data[end - size : end] for size, end in zip(sizes, ends, strict=True)]


@dataclass(frozen=True)
class Maker:
    """What the snapshot is made with, and where cached snapshots live."""

    runtime_dir: Path
    site_packages: Path
    pyodide_version: str
    cache: Path
    log: Log


def cache_entry(cache: Path, key: str) -> tuple[Path, Path]:
    """A cached heap (its zstd frame, whose parts the metadata records) and its metadata."""
    return cache / f"{key}.bin.zst", cache / f"{key}.json"


def is_cached(cache: Path, key: str) -> bool:
    """Whether a heap and its metadata are both in the cache."""
    return all(path.is_file() for path in cache_entry(cache, key))


def make_heap(maker: Maker, figures: list[str], key: str) -> None:
    """Run the maker for these figures; put the compressed heap and its metadata in the cache."""
    state, meta = cache_entry(maker.cache, key)
    with tempfile.TemporaryDirectory(prefix="making-", dir=maker.cache) as tmp:
        made_heap, made = Path(tmp) / "heap", Path(tmp) / "meta.json"
        run_maker(
            {
                "runtime": str(maker.runtime_dir.resolve()),
                "unpacked": str(maker.site_packages.resolve()),
                "sitePackages": pins.PYODIDE_SITE_PACKAGES,
                "figures": figures,
                "pyodide": maker.pyodide_version,
                "out": str(made_heap),
                "meta": str(made),
            }
        )
        recorded = json.loads(made.read_text())
        module = (maker.runtime_dir / "pyodide.asm.wasm").read_bytes()
        static = heap.static_data(module, recorded["memoryBase"])
        saved = made_heap.read_bytes()
        shipped = heap.packed(heap.xor_static(saved, module, static) if static else saved)
        parts = compress_parts(shipped)
        write_atomic(state, b"".join(parts))
        parts_sizes = [len(p) for p in parts]
        recorded |= {"static": static, "parts": parts_sizes, "packedBytes": len(shipped)}
        write_atomic(meta, json.dumps(recorded).encode())  # last: is_cached needs both


def site_figures(pages: dict[str, list[str]]) -> list[str]:
    """Every figure of the site, once each, in page order."""
    return list(dict.fromkeys(fid for ids in pages.values() for fid in ids))


def make(
    runtime_dir: Path,
    pages: dict[str, list[str]],
    pyodide_version: str,
    cache: Path,
    decoder: bytes,
    log: Log = print,
) -> dict:
    """The site's snapshot (every figure of ``pages``, slug -> figure ids) into runtime_dir;
    return its metadata, which every page's config shares.

    The wheels are unpacked into a site-packages tree only when the heap or the files bundle
    is to be made.
    """
    cache.mkdir(parents=True, exist_ok=True)
    (runtime_dir / FOLDER).mkdir(exist_ok=True)
    (runtime_dir / DECODER).write_bytes(decoder)
    runtime = runtime_digest(runtime_dir)
    figures = site_figures(pages)
    key = inputs_key(runtime, figures)
    # Unpacked for this build alone: another build may share the cache at the same time.
    unpack_dir = cache / f"site-packages-{os.getpid()}"
    maker = Maker(runtime_dir, unpack_dir, pyodide_version, cache, log)
    unpacked = False
    state, meta_file = cache_entry(cache, key)
    if not is_cached(cache, key):
        log(f"snapshot: making the site's ({len(figures)} figures on {len(pages)} pages)")
        unpack_wheels(runtime_dir, maker.site_packages)
        unpacked = True
        make_heap(maker, figures, key)
    meta = json.loads(meta_file.read_text())
    for i, part in enumerate(split(state.read_bytes(), meta["parts"])):
        (runtime_dir / FOLDER / HEAP.format(i)).write_bytes(part)
    for used in (state, meta_file):
        used.touch()  # recently used: kept by prune
    common, packages = bundle_recipe([meta])
    linked = linked_files(meta["libs"])
    key = bundle_key(runtime, common, packages, linked)
    bundles = {
        FILES: cache / f"files-{key}.bin.zst",
        LATER_FILES: cache / f"files-later-{key}.bin.zst",
    }
    if not all(path.is_file() for path in bundles.values()):
        if not unpacked:
            unpack_wheels(runtime_dir, maker.site_packages)
            unpacked = True
        files = bundle_files(maker.site_packages, set(common), set(packages))
        later = {rel: data for rel, data in files.items() if only_imports_open(rel, linked)}
        now = {rel: data for rel, data in files.items() if rel not in later}
        write_atomic(bundles[LATER_FILES], compress(pack(later)))
        write_atomic(bundles[FILES], compress(pack(now)))
    for name, frame in bundles.items():
        shutil.copy(frame, runtime_dir / name)
        frame.touch()
    packed = packed_copies(runtime_dir, cache)
    prune(cache)
    if unpacked:
        shutil.rmtree(maker.site_packages)
    log_sizes(runtime_dir, log)
    sizes = {name: frame_size(frame) for name, frame in bundles.items()}
    return {
        **meta,
        "held": held_packages(runtime_dir, packages),
        "filesBytes": sizes[FILES],
        "laterFilesBytes": sizes[LATER_FILES],
        "packed": packed,
    }


def log_sizes(runtime_dir: Path, log: Log) -> None:
    """One build-log line: the heap's bytes and the files bundles', as shipped."""
    heap = sum(part.stat().st_size for part in (runtime_dir / FOLDER).glob(HEAP.format("*")))
    now, later = ((runtime_dir / name).stat().st_size / 1e6 for name in (FILES, LATER_FILES))
    log(f"snapshot: {heap / 1e6:.1f} MB heap, {now:.1f} MB files, {later:.1f} MB later (zstd)")


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
        for old in most_recent(cache, metas, keep):
            if payload:
                old.with_suffix(payload).unlink(missing_ok=True)
    for stale in cache.glob("*.bin.gz"):  # an earlier format
        stale.unlink()


def bundle_key(runtime: str, common: list[str], packages: list[str], linked: list[str]) -> str:
    """What the files bundles depend on: the runtime, its recipe, the libraries the heap links
    and how files are chosen (sitebuild/bundle.py, whole)."""
    return short_key(
        {"runtime": runtime, "common": common, "packages": packages, "linked": linked,
         "chooser": sha256_file(Path(bundle.__file__)), "level": LEVEL}
    )  # fmt: skip


def page_config(url: Callable[[str], str], meta: dict) -> dict:
    """What a page's worker needs to restore the snapshot; ``url`` gives a file's URL by its
    path under the site as built (sitebuild/hashed.py names it by its content)."""

    def zst(name: str, path: str, size: int, **into: str) -> dict:
        """A zstd file in the config: what it unpacks to, its URL, its size unpacked and, for
        the later files, where in Pyodide's file system it goes."""
        return {"file": name, "url": url(f"runtime/{path}"), "bytes": size, **into}

    def pyodide_file(name: str, **into: str) -> dict:
        return zst(name, f"{name}.zst", meta["packed"][name], **into)

    return {
        "decoder": url(f"runtime/{DECODER}"),
        "state": [url(f"runtime/{FOLDER}/{HEAP.format(i)}") for i in range(len(meta["parts"]))],
        "stateBytes": meta["packedBytes"],  # what the heap's frame unpacks to
        "snapshotBytes": meta["heapBytes"],  # the snapshot Pyodide restores, unpacked whole
        "files": url(f"runtime/{FILES}"),
        "filesBytes": meta["filesBytes"],
        "libs": meta["libs"],
        "held": meta["held"],
        "tableAfterLibs": meta["tableAfterLibs"],
        "staticData": meta["static"],
        "packed": [pyodide_file(name) for name in PACKED if name not in LATER],
        "later": [
            *(pyodide_file(name, into=LATER[name]) for name in LATER),
            zst(LATER_FILES, LATER_FILES, meta["laterFilesBytes"],
                into=pins.PYODIDE_SITE_PACKAGES),
        ],
    }  # fmt: skip
