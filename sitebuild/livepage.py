"""What a page with figures carries to go live: the worker's configuration (the files it loads,
by their hashed names), each figure's pre-render, the room each figure takes before it is drawn,
and the page's scripts in the order they run, set into the page's HTML."""

import json
from collections.abc import Callable

import jinja2
from markupsafe import Markup

from sitebuild import editor, hashed, pins, placeholders, startup

VENDOR = "vendor"  # under site/: BokehJS, Panel's JS/CSS and KaTeX


def to_json(data: dict) -> str:
    """JSON that is safe inside a ``<script type="application/json">`` element."""
    return json.dumps(data, separators=(",", ":")).replace("</", "<\\/")


def dist_url(base: str, moved: hashed.Manifest) -> str:
    """Where Panel's stylesheets are served from (its CDN prefix, self-hosted)."""
    return base + hashed.folder(moved, f"{VENDOR}/{pins.PANEL_DIST}")


def worker_urls(base: str, moved: hashed.Manifest) -> dict[str, str]:
    """The files the worker loads by their hashed names: its own script, the scripts of its
    snapshot start (the zstd decoder's, restore.js), the folder of Pyodide's core files (its
    ``indexURL``), the lock file and, with bytecode, the standard library of the ordinary
    start (sitebuild/startup.py)."""
    url = hashed.urls(moved, base)
    urls = {
        "worker": url("static/worker.js"),
        "zstd": url("static/zstd.js"),
        "restore": url("static/restore.js"),
        "pyodide": base + hashed.index_folder(moved),
        "lock": url(hashed.LOCK),
    }
    if f"runtime/{startup.STDLIB}" in moved:  # the ordinary start's, with bytecode
        urls["stdlib"] = url(f"runtime/{startup.STDLIB}")
    if editor.STATIC in moved:  # the cells' code editor, loaded when a reader first uses one
        urls["editor"] = url(editor.STATIC)
    return urls


def live_scripts() -> list[str]:
    """The page's deferred scripts, site-relative, in the order they run: boot.js first, so
    Python starts before BokehJS is evaluated; page.js (static/page/'s modules, bundled) after
    BokehJS and Panel; cells.js last (the code cells, which start their own Python once the
    figures are live)."""
    vendored = [f"{VENDOR}/{script}" for script in pins.BROWSER_SCRIPTS]
    return ["static/boot.js", *vendored, "static/page.js", "static/cells.js"]


def add_live_figures(
    env: jinja2.Environment,
    html: str,
    base: str,
    ids: list[str],
    packages: list[str],
    snapshot: dict | None,
    moved: hashed.Manifest,
    prerender: Callable[[str, str], dict],
) -> str:
    """The pre-render of the page's figures and the scripts that make them live.

    The pre-render is one small document per figure, so the page can draw the figures on the
    reader's screen before the others: ``prerender(figure_id, panel_dist)`` makes one (the
    build's ``prerender_figure``, which runs the project's figure code: this module imports
    none of it, so the watch loop's fresh import of the project after an edit reaches it).
    """
    config = {"base": base, "figures": ids, "packages": packages}
    config["sitePackages"] = pins.PYODIDE_SITE_PACKAGES
    config["urls"] = worker_urls(base, moved)
    if snapshot:
        config["snapshot"] = snapshot
    documents = {fid: prerender(fid, dist_url(base, moved)) for fid in ids}
    data = env.get_template("_live.html").render(
        config=Markup(to_json(config)), prerender=Markup(to_json(documents))
    )
    scripts = env.get_template("_live_scripts.html").render(base=base, scripts=live_scripts())
    # Each figure's room before it is drawn (sitebuild/placeholders.py).
    scripts += f"\n<style>\n{placeholders.css(ids)}\n</style>"
    return html.replace("</head>", scripts + "\n</head>").replace("</body>", data + "</body>")
