"""The serve command's watch mode: build, serve, and rebuild what each edit affects.

``python build.py serve`` (behind ``./dev serve``) builds the site, serves it, watches the
sources with ``watchfiles`` and rebuilds after every edit; the open pages reload by
themselves (sitebuild/serve.py adds its live-reload script to the HTML it sends, never to the
files in site/).

The watch mode builds without memory snapshots: the site's snapshot holds the project's
wheel, so an edit to any figure, the core or the formatting would make it again, a few minutes
of CPU. Its pages start Python the ordinary way; ``python build.py``, the benchmark and the
deploy build the whole site with its snapshot.

What an edit asks of the build (``plan``):

- the prose (templates/, glossary.toml, pages/): the pages are rendered again and written over
  the build before, with its runtime, static files and figures' pre-renders;
- a figure, the core, the formatting or a static file: the whole site again, into a folder
  beside the output that replaces it once built, since the project's wheel or a static file's
  hashed name changed; the pre-renders of the figures the edit cannot change are kept.

After an edit to Python sources the project's packages are imported afresh. A rebuild that
fails leaves the build before served and the error shown, with its file and line, in the
terminal and over the open pages; what it was to rebuild is rebuilt with the next edit.
"""

from __future__ import annotations

import importlib
import importlib.util
import shutil
import sys
import time
import traceback
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from sitebuild.serve import Live, serve_in_thread
from sitebuild.wheels import project_spec

# What the site is built from, relative to the project's root; edits to the project's own
# packages (CODE) change its wheel, which the runtime ships, and what the figures draw.
CODE = tuple(project_spec(Path(__file__).resolve().parent.parent)[2])
SOURCES = ("templates", "pages", *CODE, "static", "glossary.toml")
# Edits here change only the prose of the pages.
PROSE = ("templates", "pages", "glossary.toml")
# Imported afresh after an edit to any Python source: the build's modules hold the project's.
PROJECT_MODULES = (*CODE, "pages", "build")


@dataclass(frozen=True)
class Plan:
    """What the build has to do again after some edits."""

    whole: bool = False  # runtime, static files and pages (else the pages alone)
    modules: bool = False  # Python sources changed: import the project afresh
    # Figures whose pre-render the edits may change; None: every figure.
    stale: frozenset[str] | None = frozenset()

    def __or__(self, other: Plan) -> Plan:
        stale = None if None in (self.stale, other.stale) else self.stale | other.stale
        return Plan(self.whole or other.whole, self.modules or other.modules, stale)


EVERYTHING = Plan(whole=True, modules=True, stale=None)


def top(rel: str) -> str:
    return rel.split("/", 1)[0]


def plan(changed: Iterable[str], figure_files: Mapping[str, str]) -> Plan | None:
    """What the edits of ``changed`` (paths relative to the root, with /) ask of the build;
    None if nothing the site is built from changed. ``figure_files``: a registered figure's
    module file -> its id (an edit there changes that figure's pre-render alone)."""
    result = None
    for rel in changed:
        if top(rel) not in SOURCES:
            continue
        python = rel.endswith(".py")
        if top(rel) in PROSE:
            step = Plan(modules=python)
        elif top(rel) in CODE:
            one = figure_files.get(rel)
            step = Plan(whole=True, modules=python, stale=None if one is None else frozenset([one]))
        else:  # static/
            step = Plan(whole=True)
        result = step if result is None else result | step
    return result


def figure_files(registry: Mapping[str, str]) -> dict[str, str]:
    """Each registered figure's module file, relative to the root -> the figure's id."""
    return {name.replace(".", "/") + ".py": figure_id for figure_id, name in registry.items()}


def where(err: BaseException, root: Path) -> str | None:
    """The file and line of the project's sources an error comes from, as ``path:line``.

    The innermost cause first: a syntax error's own place, else the deepest frame of its
    traceback in a source the site is built from (Jinja puts the template's lines in it)."""
    chain = []
    while err is not None and err not in chain:
        chain.append(err)
        err = err.__cause__ or err.__context__
    for error in reversed(chain):
        places = [(error.filename, error.lineno)] if hasattr(error, "lineno") else []
        frames = traceback.extract_tb(error.__traceback__)
        places += [(frame.filename, frame.lineno) for frame in reversed(frames)]
        for filename, line in places:
            if filename and line and (rel := source_path(Path(filename), root)):
                return f"{rel}:{line}"
    return None


def source_path(path: Path, root: Path) -> str | None:
    """``path`` relative to ``root`` if it is one of the site's sources."""
    try:
        rel = path.resolve().relative_to(root).as_posix()
    except ValueError:
        return None
    return rel if top(rel) in SOURCES else None


def describe(err: BaseException, root: Path) -> str:
    """An error as the terminal and the page show it: where, then what."""
    place = where(err, root)
    what = f"{type(err).__name__}: {err}"
    return f"{place}: {what}" if place else what


def check_syntax(root: Path, changed: Iterable[str]) -> None:
    """Raise a changed Python source's syntax error now, before any of the build runs."""
    for rel in changed:
        path = root / rel
        if rel.endswith(".py") and path.is_file():
            compile(path.read_bytes(), str(path), "exec")


def forget_modules(root: Path, changed: Iterable[str]) -> None:
    """Make the next import of the project read its sources again.

    The compiled copy of a changed source goes too: it is checked against the source's time
    in whole seconds and its size, so an edit within the second of the one before, of the same
    size, would otherwise be read from it."""
    for rel in changed:
        if rel.endswith(".py"):
            Path(importlib.util.cache_from_source(str(root / rel))).unlink(missing_ok=True)
    for name in list(sys.modules):
        if name.split(".", 1)[0] in PROJECT_MODULES:
            del sys.modules[name]
    importlib.invalidate_caches()


def replace_folder(new: Path, out: Path) -> None:
    """Put the folder ``new`` where ``out`` is, so that the server meets one or the other."""
    old = out.with_name(out.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if out.exists():
        out.rename(old)
    new.rename(out)
    shutil.rmtree(old, ignore_errors=True)


class Watcher:
    """The rebuilds of one watch session: the last good build, the pre-renders it made, and
    what a failed rebuild left to do."""

    def __init__(self, root: Path, out: Path, base: str, cache: Path | None, live: Live,
                 say: Callable[[str], None]) -> None:  # fmt: skip
        self.root, self.out, self.base, self.cache = root.resolve(), out, base, cache
        self.live, self.say = live, say
        self.built = None  # build.Built of the last good build
        self.pending = EVERYTHING  # what the next rebuild has to do at least
        self.prerenders: dict[tuple[str, str], str] = {}
        self.session = f"{time.time_ns():x}"  # a restarted server's pages reload too
        self.count = 0

    def figure_files(self) -> dict[str, str]:
        """The registered figures' files, as the last good import of the project had them."""
        figures = sys.modules.get("figures")
        return figure_files(figures.REGISTRY) if figures else {}

    def changed(self, changed: list[str]) -> None:
        """React to edits of ``changed`` (paths relative to the root)."""
        step = plan(changed, self.figure_files())
        if step is not None:
            self.rebuild(step, changed)

    def rebuild(self, step: Plan, changed: list[str] = ()) -> bool:
        """Do ``step`` and whatever a failed rebuild left; publish the build or the error."""
        todo = self.pending | step
        self.pending = todo
        started = time.perf_counter()
        self.forget_prerenders(todo.stale)
        try:
            check_syntax(self.root, changed)
            if todo.modules:
                forget_modules(self.root, changed)
            build = importlib.import_module("build")
            if todo.whole or self.built is None:
                self.build_whole(build, todo.stale)
            else:
                self.build_pages(build)
        except Exception as err:  # any edit can break the build any way: show it, keep serving
            error = describe(err, self.root)
            self.say(f"build failed, still serving the last good build:\n  {error}")
            self.live.set(error=error)
            return False
        self.pending = Plan()
        self.count += 1
        self.live.set(build=f"{self.session}-{self.count}")
        what = "site" if todo.whole else "pages"
        self.say(f"{what} rebuilt in {time.perf_counter() - started:.1f} s; pages reload")
        return True

    def forget_prerenders(self, stale: frozenset[str] | None) -> None:
        for key in list(self.prerenders):
            if stale is None or key[0] in stale:
                del self.prerenders[key]

    def prerender(self, build) -> Callable[[str, str], dict]:
        """The build's pre-render of a figure, kept until an edit may change it."""

        def kept(figure_id: str, panel_dist: str) -> dict:
            key = (figure_id, panel_dist)
            if key not in self.prerenders:
                self.prerenders[key] = build.prerender_figure(figure_id, panel_dist)
            return self.prerenders[key]

        return kept

    def build_whole(self, build, stale: frozenset[str] | None) -> None:
        """The whole site, without snapshots, beside the output; then in its place. What the
        figures import is checked again for the figures an edit may have changed alone."""
        staging = self.out.with_name(self.out.name + ".next")
        try:
            kept = self.prerender(build)
            made = build.build(
                staging, self.base, self.cache, False, kept, stale, startup_bytecode=False
            )
            replace_folder(staging, self.out)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        self.built = replace(made, out=self.out)

    def build_pages(self, build) -> None:
        """The pages alone, over the last good build."""
        built = self.built
        build.link_previews(built.env, built.out)  # a page module may change its picture
        prose = build.render_pages(built.env, built.base, built.cache, surveyed=())
        build.write_pages(built, prose, {}, self.prerender(build))


def relative(paths: Iterable[str], root: Path) -> list[str]:
    """The watched paths as the plan takes them; sorted, for the terminal."""
    found = set()
    for path in paths:
        try:
            found.add(Path(path).resolve().relative_to(root).as_posix())
        except ValueError:
            continue
    return sorted(found)


def serve(root: Path, out: Path, base: str, port: int, cache: Path | None = None) -> None:
    """Build into ``out``, serve it at http://127.0.0.1:PORT{base}, rebuild after every edit
    of the sources under ``root``, until interrupted."""
    import watchfiles

    root = root.resolve()

    def say(message: str) -> None:
        print("watch:", message, file=sys.stderr, flush=True)

    live = Live()
    watcher = Watcher(root, out, base, cache, live, say)
    server = serve_in_thread(out, base, live, port)
    watcher.rebuild(EVERYTHING)
    print(f"serving http://127.0.0.1:{server.server_address[1]}{base}", flush=True)
    say(f"watching {', '.join(SOURCES)}; pages reload after each rebuild")
    watched = [root / source for source in SOURCES if (root / source).exists()]
    try:
        for changes in watchfiles.watch(*watched, debounce=400, step=50):
            changed = relative((path for _, path in changes), root)
            if changed:
                say("changed: " + ", ".join(changed))
                watcher.changed(changed)
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
