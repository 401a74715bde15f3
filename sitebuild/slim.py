"""The full bokeh and panel wheels split in two: a slim, patched wheel for the worker, and
the JS/CSS the page's main thread loads (served from the site, not from the wheels)."""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from pathlib import Path

from sitebuild import pins
from sitebuild.patches import apply_patch
from sitebuild.wheels import metadata_of, read_wheel, write_wheel


def keep_in_slim_bokeh(name: str) -> bool:
    """Bokeh files the worker imports: no BokehJS bundles or TypeScript typings (served to
    the main thread separately), no Sphinx extension; .js Jinja templates stay."""
    if name.startswith(("bokeh/server/static/", "bokeh/sphinxext/")):
        return False
    return not name.endswith(".js") or name.startswith("bokeh/core/_templates/")


def keep_in_slim_panel(name: str) -> bool:
    """Panel files the worker imports: no dist/ (JS/CSS, served separately), no tests, no
    TypeScript sources or npm lock; .js Jinja templates and package.json (read on import)
    stay."""
    if name.startswith(("panel/dist/", "panel/tests/")) or name == "panel/package-lock.json":
        return False
    if name.endswith(".ts"):
        return False
    return not name.endswith(".js") or "/_templates/" in name


def slim(full: Path, dest: Path, keep: Callable[[str], bool]) -> Path:
    """The wheel ``full`` with only the files ``keep`` accepts, patched, written into ``dest``."""
    files = read_wheel(full)
    meta = metadata_of(files)
    kept = {name: data for name, data in files.items() if keep(name)}
    return write_wheel(dest / full.name, apply_patch(kept, meta["Name"], meta["Version"]))


def slim_bokeh(full: Path, dest: Path) -> Path:
    """The pandas-free, JS-free bokeh wheel for the worker."""
    return slim(full, dest, keep_in_slim_bokeh)


def slim_panel(full: Path, dest: Path) -> Path:
    """The JS-free panel wheel for the worker, patched for it."""
    return slim(full, dest, keep_in_slim_panel)


def is_panel_asset(name: str) -> bool:
    """A stylesheet, theme or image of Panel's dist/ that its models point the page at."""
    if not name.startswith(pins.PANEL_DIST) or name.endswith("/"):
        return False
    inside = name[len(pins.PANEL_DIST) :]
    return inside.startswith(pins.PANEL_DIST_ASSET_DIRS) and not inside.startswith(
        pins.PANEL_DIST_SKIPPED
    )


def extract_browser_assets(bokeh_full: Path, panel_full: Path, assets: Path) -> list[str]:
    """Unpack BokehJS and Panel's main-thread JS/CSS into ``assets``; return their paths."""
    picked: dict[str, bytes] = {}
    with zipfile.ZipFile(bokeh_full) as archive:
        for name in pins.BOKEH_JS:
            picked[f"bokeh/js/{name}"] = archive.read(pins.BOKEH_JS_DIR + name)
    with zipfile.ZipFile(panel_full) as archive:
        panel_js = f"{pins.PANEL_DIST}panel.min.js"
        picked[panel_js] = archive.read(panel_js)
        for name in archive.namelist():
            if is_panel_asset(name):
                picked[name] = archive.read(name)
    for rel, data in picked.items():
        (assets / rel).parent.mkdir(parents=True, exist_ok=True)
        (assets / rel).write_bytes(data)
    return sorted(picked)
