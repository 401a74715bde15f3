"""Build the static site into site/ (and optionally serve it).

    python build.py                     # render everything into site/
    python build.py serve --port 8000   # build, serve on 127.0.0.1, rebuild after each edit
    python build.py --base-url /attention-explained/   # for a GitHub Pages project site
    python build.py --base-url /repo/ --site-url https://user.github.io/repo/   # its public URL

The runtime (Pyodide and the wheels) is assembled once into a cache outside site/ by
sitebuild/cache.py, from the package registries; later builds are offline.
"""

import argparse
import shutil
import sys
import tempfile
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace
from pathlib import Path

import jinja2
from markupsafe import Markup

import pages
from figures import REGISTRY, module
from layoutkit.document import prerender as figure_prerender
from layoutkit.document import slot_id
from pages import exercises
from sitebuild import cache as runtime_cache
from sitebuild import (
    checks,
    editor,
    glossary,
    hashed,
    install,
    livepage,
    mathtex,
    notebook,
    pagescript,
    pins,
    preview,
    snapshot,
    snippets,
    startup,
    toc,
)
from sitebuild import frame as series
from sitebuild import references as bibliography
from sitebuild.wheels import project_spec, project_wheel, project_wheel_name

ROOT = Path(__file__).resolve().parent


def log(*parts: object) -> None:
    print("build:", *parts, file=sys.stderr, flush=True)


def reset(out: Path) -> None:
    """Start from an empty output folder, so nothing stale survives a rebuild."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)


def install_runtime(out: Path, cache: Path) -> list[str]:
    """Pyodide, the wheels and the project's own wheel into site/runtime; BokehJS/Panel JS.
    Returns what a page's worker loads: the project, which brings what it requires (numpy)."""
    runtime_cache.ensure_cache(cache, log=log)
    with tempfile.TemporaryDirectory() as tmp:
        wheel = project_wheel(ROOT, Path(tmp))
        install.install(cache, out / "runtime", [wheel], precompile=True, log=log)
    install.install_browser_assets(cache, out / livepage.VENDOR)
    return [project_spec(ROOT)[0]]


def copy_static(out: Path, katex_dist: Path) -> None:
    """The site's own CSS and scripts, KaTeX's stylesheet and fonts, the code colours. The page
    script's modules (static/page/) are not copied: the site has their bundle."""
    shutil.copytree(ROOT / "static", out / "static", ignore=_page_modules)
    katex = out / livepage.VENDOR / "katex"
    katex.mkdir(parents=True)
    shutil.copy(katex_dist / "katex.min.css", katex)
    shutil.copytree(katex_dist / "fonts", katex / "fonts", ignore=_not_woff2)
    (out / "static" / "code.css").write_text(snippets.stylesheet())


def _page_modules(folder: str, names: list[str]) -> list[str]:
    return ["page"] if Path(folder) == ROOT / "static" else []


def _not_woff2(folder: str, names: list[str]) -> list[str]:
    return [n for n in names if not n.endswith(".woff2")]


def page_url(base: str, page) -> str:
    return f"{base}{page.SLUG}/" if page.SLUG else base


def render_prose(env: jinja2.Environment, page, base: str) -> tuple[str, list[str]]:
    """Render one page's prose and code snippets; return it with the ids of its figures."""
    figure_ids: list[str] = []

    def figure(figure_id: str) -> Markup:
        """A figure slot: caption, pre-render holder, status line and source view."""
        try:
            mod = module(figure_id)
        except ValueError as err:  # an unknown id, or a module without what a figure needs
            raise checks.BuildError(str(err)) from err
        figure_ids.append(figure_id)
        number = len(figure_ids)
        source = snippets.tryit_html(figure_id, mod, number)
        source += snippets.source_view(Path(mod.__file__))
        return Markup(
            env.get_template("_figure.html").render(
                fig=mod,
                figure_id=figure_id,
                number=number,
                slot=slot_id(figure_id),
                source=source,
            )
        )

    checks.check_page(page)
    citations = bibliography.Citations(env)
    posts = pages.posts()
    index = posts.index(page) if page in posts else None
    with checks.rendering(page, Path(env.loader.searchpath[0])):
        html = env.get_template(page.TEMPLATE).render(
            page=page,
            n=checks.numbers(page),
            base=base,
            url=lambda p: page_url(base, p),
            posts=posts,
            prev=posts[index - 1] if index else None,
            next=posts[index + 1] if index is not None and index + 1 < len(posts) else None,
            figure=figure,
            code=snippets.runner(),
            term=glossary.renderer(base),
            cite=citations.cite,
            references=citations.references,
        )
        citations.check()
    return toc.add_navigation(html), figure_ids


def prerender_figure(figure_id: str, panel_dist: str) -> dict:
    """One figure's pre-render: a small document of its own, serialized, with its wiring."""
    return figure_prerender(figure_id, panel_dist)


def font_preloads(fonts: list[str], url: Callable[[str], str]) -> str:
    """Links that make the browser fetch the page's math fonts with the page itself."""
    link = '<link rel="preload" as="font" type="font/woff2" crossorigin href="{}">\n'
    return "".join(link.format(url(f"{livepage.VENDOR}/katex/{font}")) for font in fonts)


def environment(templates: Path) -> jinja2.Environment:
    """Jinja, strict: a variable a template names but nobody provides fails the build, and
    the failure says which (sitebuild/checks.py adds the template's file and line)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(templates),
        undefined=checks.Undefined,
        autoescape=True,
    )
    env.globals["frame"] = series.Frame(series.local_url("/"))  # build() sets the public one
    env.globals["exercise"] = lambda number: snippets.exercise_html(exercises.by_number(number))
    env.globals["notebook"] = notebook.pending  # the post's notebook, named once it is written
    env.globals["notebook_type"] = notebook.CONTENT_TYPE
    return env


def link_previews(env: jinja2.Environment, out: Path) -> None:
    """Draw the pages' link-preview images into ``out`` (sitebuild/preview.py) and give the
    frame their hashed paths, which the pages' card tags name."""
    cards = preview.write(out, pages.all_pages(), pages.posts(), series.NAME)
    env.globals["frame"] = replace(env.globals["frame"], cards=cards)


def render_pages(
    env: jinja2.Environment, base: str, cache: Path, surveyed: Collection[str] | None = None
) -> dict:
    """Every page's prose and its figures' ids; every page is checked, and so is what its
    figures import, against what the runtime in ``cache`` ships. Builds with and without
    snapshots share this step, which needs the runtime's cache, not the runtime installed.
    ``surveyed``: the figures whose imports to check (None: all; the watch mode checks only
    those an edit may have changed)."""
    prose = {}
    for page in map(checks.check_page, pages.all_pages()):
        log("page", page.SLUG or "(index)")
        prose[page] = render_prose(env, page, base)
    figures = {
        page.__name__: [fid for fid in ids if surveyed is None or fid in surveyed]
        for page, (_, ids) in prose.items()
    }
    if any(figures.values()):
        checks.check_figure_imports(checks.worker_imports(cache), figures, REGISTRY)
    return prose


@dataclass(frozen=True)
class Built:
    """What writing the pages again needs of a build (the watch mode, after an edit to the
    prose alone, renders the pages and writes them over the build before)."""

    out: Path
    base: str
    cache: Path
    env: jinja2.Environment
    packages: list[str]
    moved: hashed.Manifest
    katex: Path


def build(
    out: Path,
    base: str = "/",
    cache: Path | None = None,
    snapshots: bool = True,
    prerender: Callable[[str, str], dict] = prerender_figure,
    surveyed: Collection[str] | None = None,
    site_url: str | None = None,
    source_url: str | None = None,
    startup_bytecode: bool = True,
) -> Built:
    """Render every page into ``out`` from scratch (with memory snapshots unless told not to;
    ``surveyed``, ``prerender``: see render_pages, write_pages). ``site_url``: the public URL
    the canonical links, sitemap and feed name (default: this machine's); ``source_url``: where
    the repository's files are browsed (default: from its GitHub remote, else no link);
    ``startup_bytecode``: bytecode for the ordinary start (sitebuild/startup.py), which the
    watch loop leaves out, since every edit of the project would list its imports again."""
    if not (base.startswith("/") and base.endswith("/")):
        raise SystemExit(f"--base-url must start and end with '/', got {base!r}")
    try:
        public = series.checked_url(site_url or series.local_url(base), base)
    except ValueError as err:
        raise SystemExit(str(err)) from err
    cache = cache or runtime_cache.default_cache_dir()
    log("output", out, "base", base)
    reset(out)
    packages = install_runtime(out, cache)
    katex = mathtex.ensure_katex(cache)
    copy_static(out, katex)
    editor.write_bundle(cache, out / "static", log)
    pagescript.write_bundle(cache, out / "static", log)
    # Deploy-safe names (sitebuild/hashed.py): the site's files and the vendored trees now,
    # since the prose links them and the snapshots keep Panel's dist URL; runtime/ once the
    # snapshots are in it.
    moved = hashed.hash_assets(out)
    env = environment(ROOT / "templates")
    env.globals["asset"] = hashed.urls(moved, base)
    env.globals["frame"] = series.Frame(public, source_url or series.source_from_git(ROOT))
    link_previews(env, out)
    prose = render_pages(env, base, cache, surveyed)
    figures = {page.SLUG: ids for page, (_, ids) in prose.items() if ids}
    meta = {}
    if snapshots and figures:
        folder = cache / "snapshots"
        decoder = install.zstd_decoder(cache)
        meta = snapshot.make(out / "runtime", figures, pins.PYODIDE_VERSION, folder, decoder, log)
    if startup_bytecode and figures:  # after the snapshot, made from Pyodide's runtime as shipped
        startup.add_bytecode(out / "runtime", packages, snapshot.site_figures(figures), cache, log)
    moved |= hashed.hash_runtime(out)
    built = Built(out, base, cache, env, packages, moved, katex)
    write_pages(built, prose, meta, prerender)
    log("done")
    return built


def write_pages(
    built: Built,
    prose: dict,
    meta: dict,
    prerender: Callable[[str, str], dict] = prerender_figure,
) -> None:
    """Write every page of ``prose`` (from render_pages) with its live figures and its math;
    ``meta``: the site's snapshot, which every page with figures restores ({}: none)."""
    url = hashed.urls(built.moved, built.base)
    restore = snapshot.page_config(url, meta) if meta else None
    notebooks = write_notebooks(built, prose)
    html = {}
    for page, (text, ids) in prose.items():
        if page.SLUG in notebooks:
            text = text.replace(notebook.pending(page), built.base + notebooks[page.SLUG].path)
        args = (built.base, ids, built.packages, restore, built.moved, prerender)
        with checks.building_figures(page, {fid: module(fid) for fid in ids}):
            live = livepage.add_live_figures(built.env, text, *args) if ids else None
        html[page] = live or text
    css = (built.katex / "katex.min.css").read_text()
    for page, text in mathtex.typeset(html, built.katex).items():
        fonts = font_preloads(mathtex.fonts_used(text, css), url)
        text = text.replace("</head>", fonts + "</head>")
        target = built.out / page.SLUG / "index.html"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    built.env.globals["frame"] = replace(built.env.globals["frame"], notebooks=notebooks)
    series.write(built.env, built.out, built.base, pages.all_pages(), pages.posts())


def write_notebooks(built: Built, prose: dict) -> dict[str, notebook.Notebook]:
    """Each post as a Jupyter notebook (sitebuild/notebook.py), by slug, content-hashed under
    notebooks/, its first cell installing the project's wheel from the site's public URL."""
    shutil.rmtree(built.out / notebook.FOLDER, ignore_errors=True)  # a rebuild's old ones
    frame = built.env.globals["frame"]
    wheel = frame.url + built.moved[f"runtime/{project_wheel_name(ROOT)}"]
    written = {}
    for page in pages.posts():
        book = notebook.build(page, prose[page][0], frame.page_url(page), wheel)
        rel = notebook.write(built.out, page, book)
        path = hashed.move_each(built.out, [rel])[rel]
        written[page.SLUG] = notebook.Notebook(path, (built.out / path).stat().st_size)
    return written


def serve(out: Path, base: str, port: int) -> None:
    """Serve ``out`` at http://127.0.0.1:PORT{base} until interrupted."""
    from sitebuild.serve import serve_forever

    print(f"serving http://127.0.0.1:{port}{base}", flush=True)
    serve_forever(out, base, port)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", nargs="?", choices=["build", "serve"], default="build")
    parser.add_argument("--out", type=Path, default=ROOT / "site")
    parser.add_argument("--base-url", default="/", help="path the site is served under")
    parser.add_argument(
        "--site-url",
        help="the site's public URL, ending with the base path (default: http://127.0.0.1:8000"
        "{base}); canonical links, the sitemap and the feed name it",
    )
    parser.add_argument(
        "--source-url",
        help="URL a repository path is appended to, to browse the source (default: from the "
        "GitHub remote, if any; else no source link)",
    )
    parser.add_argument("--port", type=int, default=series.LOCAL_PORT)
    parser.add_argument(
        "--no-snapshots", action="store_true", help="pages start Python the ordinary way"
    )
    parser.add_argument(
        "--no-watch",
        action="store_true",
        help="serve: build once, as the deploy does, and serve that (no rebuilds, no reloads)",
    )
    args = parser.parse_args(argv)
    if args.command == "serve" and not args.no_watch:
        from sitebuild import watch

        return watch.serve(ROOT, args.out, args.base_url, args.port)
    try:
        build(
            args.out,
            args.base_url,
            snapshots=not args.no_snapshots,
            site_url=args.site_url,
            source_url=args.source_url,
        )
    except (checks.BuildError, RuntimeError, jinja2.TemplateError, ValueError) as err:
        raise SystemExit(f"build failed: {err}") from err
    if args.command == "serve":
        serve(args.out, args.base_url, args.port)


if __name__ == "__main__":
    main()
