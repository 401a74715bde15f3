"""The `panel convert` baseline: one figure converted by Panel itself, made to run offline.

``prepare`` converts a two-line app (the three-steps figure, ``.servable()``) with
``panel convert --to pyodide-worker`` and lays out a folder that can be served with no
network: Pyodide's core with the official ``pyodide-lock.json`` and every official wheel the
carrier package holds (each checked against the lock's sha256), the full bokeh and panel
wheels, the pure wheels micropip would otherwise fetch from the package index, the project's
own wheel, and BokehJS/Panel's dist. The generated page and worker are rewritten to point at
those copies and get the same performance marks the site's pages set.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from sitebuild import cache as runtime_cache
from sitebuild import pins
from sitebuild.lock import wheel_requirements
from sitebuild.official import extract_official_wheels
from sitebuild.wheels import project_wheel

ROOT = Path(__file__).resolve().parent.parent
BASE = "/baseline/"
FIGURE = "three_steps"
# The figure as Panel serves it: its layout, live in Panel's worker (layoutkit.wiring).
FIGURE_ID = FIGURE.replace("_", "-")
# The project package the app imports, which `panel convert` lists for the worker to install:
# the project's wheel, layouts included, stands in for it.
APP_IMPORT = "layoutkit"
APP = f"from {APP_IMPORT}.document import view_of\n\nview_of({FIGURE_ID!r}).servable()\n"
PANEL_CDN = f"https://cdn.holoviz.org/panel/{pins.PANEL_VERSION}/dist/"
BOKEH_CDN = re.compile(
    rf"https://cdn\.bokeh\.org/bokeh/release/(bokeh(?:-[a-z]+)?)-{re.escape(pins.BOKEH_VERSION)}"
    r"\.min\.js"
)
PYODIDE_CDN = re.compile(r"https://cdn\.jsdelivr\.net/pyodide/v[^/]+/full/")
ANY_URL = re.compile(r"https?://[^\s\"'`)<>]+")
# Namespaces in inline SVG/XML, not fetched.
NOT_FETCHED = ("http://www.w3.org/",)


def convert(work: Path) -> Path:
    """Run the venv's ``panel convert`` on the app; return the folder with app.html/app.js."""
    (work / "app.py").write_text(APP)
    out = work / "converted"
    panel = Path(sys.executable).with_name("panel")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [str(panel), "convert", str(work / "app.py"), "--to", "pyodide-worker", "--out", str(out)]
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0 or not (out / "app.html").is_file():
        raise RuntimeError(f"panel convert failed:\n{done.stdout}{done.stderr}")
    return out


def carrier_files(cache: Path) -> set[str]:
    """File names of the official Pyodide builds the carrier wheel redistributes."""
    carrier = cache / runtime_cache.DOWNLOADS / pins.wheel_name(*pins.WASM_CARRIER)
    with zipfile.ZipFile(carrier) as archive:
        names = archive.namelist()
    return {n[len(pins.WASM_CARRIER_DIR) :] for n in names if n.startswith(pins.WASM_CARRIER_DIR)}


def local_pure_wheels(cache: Path) -> dict[str, Path]:
    """Canonical name -> the cached pure wheel (PyPI downloads and the source-built ones)."""
    downloads = cache / runtime_cache.DOWNLOADS
    out = {
        canonicalize_name(name): downloads / pins.wheel_name(name, version)
        for name, (version, _) in pins.PURE_WHEELS.items()
    }
    for name, (version, _, _) in pins.SOURCE_WHEELS.items():
        out[canonicalize_name(name)] = downloads / "built" / pins.wheel_name(name, version)
    return out


def resolve(wheels: list[Path], lock: dict, held: set[str], pure: dict[str, Path]):
    """What the app's wheels need, split by where it comes from.

    A requirement is left to micropip and the official lock when the carrier holds the lock's
    file for it (and, recursively, for the lock's own dependencies); anything else must be a
    local pure wheel. Returns (official package names, pure wheel paths), both sorted.
    """
    official = {"micropip", *lock["packages"]["micropip"]["depends"]}
    chosen: dict[str, Path] = {}
    todo = [wheel_requirements(w) for w in wheels]
    while todo:
        for req in todo.pop():
            key = canonicalize_name(req.name)
            entry = lock["packages"].get(key)
            if key in official or key in chosen or key in ("bokeh", "panel"):
                continue
            if entry and entry["file_name"] in held:
                official.add(key)
                todo.append([Requirement(d) for d in entry["depends"]])
            elif key in pure:
                chosen[key] = pure[key]
                todo.append(wheel_requirements(pure[key]))
            else:
                raise RuntimeError(f"nothing local provides {req}, which micropip would fetch")
    return sorted(official), [chosen[k] for k in sorted(chosen)]


def install_pyodide(cache: Path, dest: Path, lock: dict, names: list[str]) -> None:
    """Pyodide's core files, the official lock, and the official wheels of ``names``.

    Every wheel in the carrier is verified against the official lock by
    ``sitebuild.official.extract_official_wheels`` before any is written.
    """
    dest.mkdir(parents=True, exist_ok=True)
    for name in (*pins.PYODIDE_CORE_FILES, pins.LOCK_NAME):
        shutil.copy2(cache / runtime_cache.CORE / name, dest / name)
    carrier = cache / runtime_cache.DOWNLOADS / pins.wheel_name(*pins.WASM_CARRIER)
    extract_official_wheels(carrier, lock, cache / runtime_cache.CORE, names, dest)


def install_browser_files(downloads: Path, dest: Path) -> None:
    """BokehJS bundles (``bokeh/js/``) and Panel's whole ``dist/`` from the full wheels."""
    bokeh = downloads / pins.wheel_name("bokeh", pins.BOKEH_VERSION)
    with zipfile.ZipFile(bokeh) as archive:
        for name in archive.namelist():
            if name.startswith(pins.BOKEH_JS_DIR) and name.endswith(".min.js"):
                target = dest / "bokeh" / "js" / Path(name).name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(archive.read(name))
    panel = downloads / pins.wheel_name("panel", pins.PANEL_VERSION)
    with zipfile.ZipFile(panel) as archive:
        members = [n for n in archive.namelist() if n.startswith(pins.PANEL_DIST)]
        archive.extractall(dest, members)


def local_urls(text: str) -> str:
    """Point Panel's, BokehJS's and Pyodide's CDN URLs at the copies under BASE."""
    text = text.replace(PANEL_CDN, f"{BASE}panel/dist/")
    text = BOKEH_CDN.sub(lambda m: f"{BASE}bokeh/js/{m.group(1)}.min.js", text)
    return PYODIDE_CDN.sub(f"{BASE}pyodide/", text)


def outside_urls(text: str) -> list[str]:
    """URLs left in ``text`` that a browser could try to fetch from outside."""
    return sorted({u for u in ANY_URL.findall(text) if not u.startswith(NOT_FETCHED)})


def _replace_once(text: str, old: str, new: str) -> str:
    """Replace exactly one occurrence, or fail: the generated file is not what we expect."""
    if text.count(old) != 1:
        raise RuntimeError(f"panel convert output changed: {old!r} found {text.count(old)} times")
    return text.replace(old, new)


# Marks with the site's names, so both are measured the same way. "figures-live" is set at
# the end of Panel's render handler: live document embedded, spinner removed, linked.
LOCATION = (
    "pyodideWorker.postMessage({'type': 'location', location: JSON.stringify(window.location)})"
)
PAGE_EDITS = (
    (
        'new Worker("./app.js");',
        'new Worker("./app.js");\n      pyodideWorker.onerror = () => '
        '(document.documentElement.dataset.figures = "failed");',
    ),
    (
        "root.Bokeh.embed.embed_items(docs_json, render_items);",
        "root.Bokeh.embed.embed_items(docs_json, render_items).then(() => {"
        ' document.documentElement.dataset.figures = "static";'
        ' performance.mark("prerender-visible"); });',
    ),
    (
        "} else if (msg.type === 'status') {",
        "} else if (msg.type === 'status') {\n          performance.mark(`status: ${msg.msg}`)",
    ),
    (
        "} else if (msg.type === 'render') {",
        "} else if (msg.type === 'render') {\n          performance.mark('figures-built')",
    ),
    (
        LOCATION,
        LOCATION + '\n          document.documentElement.dataset.figures = "live"'
        '\n          performance.mark("figures-live")',
    ),
)


def rewrite_page(html: str) -> str:
    """The converted page with local URLs and the site's performance marks."""
    for old, new in PAGE_EDITS:
        html = _replace_once(html, old, new)
    return local_urls(html)


def rewrite_worker(js: str, pure: list[str], app_wheels: dict[str, str]) -> tuple[str, list[str]]:
    """The converted worker installing only local wheels, with Panel's CSS served locally.

    ``pure`` (wheel paths under BASE) go in first, in one micropip call with deps=False: they
    are the closure of what micropip would fetch from the package index. Then Panel's own
    list, its CDN wheel URLs and the project's import name swapped for ``app_wheels`` (name ->
    local path), is installed as generated: one micropip call each, dependencies resolved
    against the official Pyodide lock (served locally) and what is already installed.
    """
    match = re.search(r"const env_spec = (\[.*?\])\n", js)
    if match is None:
        raise RuntimeError("panel convert output changed: no env_spec list in the worker")
    spec, notes = [], []
    for item in json.loads(match.group(1).replace("'", '"')):
        name = item.rsplit("/", 1)[-1].split("-")[0] if item.endswith(".whl") else item
        local = app_wheels.get(name.split("==")[0], item)
        spec.append(local)
        notes.append(f"worker's install list: {item} -> {local}")
    absolute = ".map((u) => (u.startsWith('/') ? new URL(u, self.location).href : u))"
    js = js.replace(match.group(0), f"const env_spec = {json.dumps(spec)}{absolute}\n")
    install_pure = (
        'await self.pyodide.loadPackage("micropip");\n'
        "  self.postMessage({type: 'status', msg: 'Installing the pure dependencies'})\n"
        f"  const pure = {json.dumps(pure)}.map((u) => new URL(u, self.location).href)\n"
        "  await self.pyodide.runPythonAsync(`\n"
        "    import micropip\n"
        "    await micropip.install(${JSON.stringify(pure)}, deps=False)\n"
        "  `);"
    )
    js = _replace_once(js, 'await self.pyodide.loadPackage("micropip");', install_pure)
    dist = (
        "init_doc()\\n"
        "from panel.io.state import state as _state\\n"
        f"_state.curdoc._template_variables['dist_url'] = '{BASE}panel/dist/'\\n"
    )
    js = _replace_once(js, "init_doc()\\n", dist)
    return local_urls(js), notes


def prepare(work: Path, cache: Path) -> tuple[Path, list[str], list[str]]:
    """Convert the app and lay out the offline folder to serve at BASE.

    Returns (folder, URLs still pointing outside in the generated files, notes on what was
    substituted).
    """
    converted = convert(work)
    site = work / "site"
    lock = json.loads((cache / runtime_cache.CORE / pins.LOCK_NAME).read_text())
    pure = local_pure_wheels(cache)
    downloads = cache / runtime_cache.DOWNLOADS
    wheels = site / "wheels"
    wheels.mkdir(parents=True)
    app_wheels = {
        name: Path(shutil.copy2(downloads / pins.wheel_name(name, version), wheels))
        for name, version in (("bokeh", pins.BOKEH_VERSION), ("panel", pins.PANEL_VERSION))
    }
    app_wheels[APP_IMPORT] = project_wheel(ROOT, wheels, layouts=True)
    app_wheels["pyodide-http"] = Path(shutil.copy2(pure["pyodide-http"], wheels))
    official, needed = resolve(list(app_wheels.values()), lock, carrier_files(cache), pure)
    install_pyodide(cache, site / "pyodide", lock, official)
    install_browser_files(downloads, site)
    copied = [Path(shutil.copy2(path, wheels)) for path in needed]
    page = rewrite_page((converted / "app.html").read_text())
    worker, notes = rewrite_worker(
        (converted / "app.js").read_text(),
        [f"{BASE}wheels/{path.name}" for path in copied],
        {name: f"{BASE}wheels/{path.name}" for name, path in app_wheels.items()},
    )
    (site / "app.html").write_text(page)
    (site / "app.js").write_text(worker)
    notes.append(f"official Pyodide wheels served: {', '.join(official)}")
    notes.append(f"pure wheels installed first: {', '.join(p.name for p in copied)}")
    return site, outside_urls(page) + outside_urls(worker), notes
