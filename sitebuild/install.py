"""From the runtime cache into the site: the files pages load, with a trimmed lock.

``install`` copies the Pyodide core and the wheels (the project's own joining them) into
``site/runtime/``; ``install_browser_assets`` puts BokehJS and Panel's JS/CSS under
``site/vendor/``. Every file is checked against the cache's manifest on the way.
"""

from __future__ import annotations

import gzip
import io
import json
import tempfile
import zipfile
from collections.abc import Callable, Iterable
from pathlib import Path

from packaging.utils import canonicalize_name

from sitebuild import pins
from sitebuild.bytecode import precompile_entries
from sitebuild.cache import ASSETS, CORE, WHEELS, load_manifest
from sitebuild.files import check_sha256, sha256_bytes
from sitebuild.lock import pure_lock_entry, shipped_versions, trimmed_lock, write_lock

Log = Callable[[str], None]


def copy_verified(src: Path, dst: Path, sha256: str) -> None:
    """Copy ``src`` to ``dst`` only if it still has the recorded content."""
    data = src.read_bytes()
    check_sha256(src.name, sha256_bytes(data), sha256, "the runtime cache manifest")
    dst.write_bytes(data)


def rezipped(
    data: bytes, compression: int, swap: dict[str, tuple[str, bytes]] | None = None
) -> bytes:
    """The same zip archive (members, order, dates), every member compressed as
    ``compression`` says (``zipfile.ZIP_STORED`` or ``ZIP_DEFLATED``, at its best); a member
    ``swap`` names (name -> (name, bytes)) is replaced by that one, in its place."""
    swap = swap or {}
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w") as zipped:
        for info in source.infolist():
            name, content = swap.get(info.filename) or (info.filename, source.read(info))
            member = zipfile.ZipInfo(name, info.date_time)
            member.external_attr = info.external_attr
            zipped.writestr(member, content, compress_type=compression, compresslevel=9)
    return out.getvalue()


def stored_zip(data: bytes) -> bytes:
    """The same zip archive (members, order, dates) with every member stored, not deflated.

    Pyodide's standard library deflates each member on its own; compressed whole, in a
    snapshot's downloads (zstd), the stored archive is smaller, which
    tests/sitebuild/test_install.py checks. Python imports from it unchanged. The host sends
    a zip as it is (sitebuild/serve.py), so the ordinary start gets a deflated copy of its own
    (sitebuild/startup.py).
    """
    return rezipped(data, zipfile.ZIP_STORED)


def install(
    cache_dir: Path,
    dest: Path,
    extra_wheels: list[Path],
    precompile: bool = False,
    log: Log = print,
) -> list[str]:
    """Copy the runtime pages use into ``dest`` (site/runtime/) with a trimmed lock.

    ``extra_wheels`` are the project's own pure wheels; they join the lock with computed
    sha256, imports and depends. Stale top-level files in ``dest`` from an earlier install
    are removed. With ``precompile``, the pure wheels also carry CPython 3.12 bytecode
    (sources kept), which makes imports in the browser faster at the cost of bytes; without
    a CPython 3.12 they ship as sources only. Returns the package names a page passes to
    ``pyodide.loadPackage``.
    """
    cache_dir, dest = Path(cache_dir), Path(dest)
    manifest = load_manifest(cache_dir)
    entries = {name: dict(entry) for name, entry in manifest["packages"].items()}
    sources = {e["file_name"]: cache_dir / WHEELS / e["file_name"] for e in entries.values()}

    extra_wheels = [Path(p) for p in extra_wheels]
    shipped = shipped_versions(entries, extra_wheels)
    for path in extra_wheels:
        entry = pure_lock_entry(path, shipped)
        key = canonicalize_name(entry["name"])
        if key in entries:
            raise RuntimeError(f"project wheel {path.name} clashes with runtime package {key}")
        entries[key] = entry
        sources[path.name] = path

    with tempfile.TemporaryDirectory(prefix="runtime-pyc-") as scratch:
        if precompile:
            precompile_entries(cache_dir, entries, sources, Path(scratch), log)
        written = install_files(cache_dir, manifest, entries, sources, dest)
    log(f"runtime: installed {len(entries)} packages into {dest} ({size_line(dest, written)})")
    return sorted(entries)


def install_files(
    cache_dir: Path, manifest: dict, entries: dict, sources: dict[str, Path], dest: Path
) -> set[str]:
    """Write the core, the wheels and the trimmed lock into ``dest``; drop stale files."""
    dest.mkdir(parents=True, exist_ok=True)
    written = set()
    for name in pins.PYODIDE_CORE_FILES:
        copy_verified(cache_dir / CORE / name, dest / name, manifest["files"][f"{CORE}/{name}"])
        written.add(name)
    stdlib = dest / "python_stdlib.zip"
    stdlib.write_bytes(stored_zip(stdlib.read_bytes()))
    for entry in entries.values():
        copy_verified(sources[entry["file_name"]], dest / entry["file_name"], entry["sha256"])
        written.add(entry["file_name"])
    official = json.loads((cache_dir / CORE / pins.LOCK_NAME).read_text())
    lock = trimmed_lock(official["info"], entries)
    write_lock(dest / pins.LOCK_NAME, lock)
    written.add(pins.LOCK_NAME)
    for stale in dest.iterdir():
        if stale.is_file() and stale.name not in written:
            stale.unlink()
    return written


def size_line(dest: Path, names: Iterable[str]) -> str:
    """'raw / gzip' size of the installed files, for the build log."""
    raw = zipped = 0
    for name in names:
        data = (dest / name).read_bytes()
        raw += len(data)
        zipped += len(gzip.compress(data, compresslevel=6))
    return f"{raw / 1e6:.1f} MB raw, {zipped / 1e6:.1f} MB gzip"


def zstd_decoder(cache_dir: Path) -> bytes:
    """The cached zstd decoder (WebAssembly), checked against the manifest."""
    manifest = load_manifest(Path(cache_dir))
    rel = f"{CORE}/{pins.ZSTD_DECODER_FILE}"
    data = (Path(cache_dir) / rel).read_bytes()
    check_sha256(pins.ZSTD_DECODER_FILE, sha256_bytes(data), manifest["files"][rel], "the manifest")
    return data


def browser_assets(cache_dir: Path) -> dict[str, Path]:
    """Main-thread JS/CSS: site-relative path (``bokeh/js/...``, ``panel/dist/...``) -> file.

    ``panel/dist/`` mirrors Panel's CDN layout, so its CDN prefix can be swapped for the
    local one; BROWSER_SCRIPTS gives the script load order.
    """
    manifest = load_manifest(Path(cache_dir))
    return {rel: Path(cache_dir) / ASSETS / rel for rel in manifest["assets"]}


def install_browser_assets(cache_dir: Path, dest: Path) -> list[str]:
    """Copy browser_assets() under ``dest`` keeping their relative paths; return those."""
    manifest = load_manifest(Path(cache_dir))
    for rel, src in browser_assets(cache_dir).items():
        (Path(dest) / rel).parent.mkdir(parents=True, exist_ok=True)
        copy_verified(src, Path(dest) / rel, manifest["files"][f"{ASSETS}/{rel}"])
    return sorted(manifest["assets"])
