"""Build failures that point: each names where the fault is and what to do about it.

A fault in the site's sources (a template, a page module, a figure module) is raised as a
``BuildError`` whose message names the template file and line, the module, or the page and
the figure id; ``python build.py`` prints it as one ``build failed: ...`` block, without a
traceback (the build's own bugs keep theirs).
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

import jinja2
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from sitebuild import pins
from sitebuild.cache import CORE, MANIFEST
from sitebuild.figure_imports import imports
from sitebuild.wheels import BUILD_ONLY, project_spec, read_pyproject

ROOT = Path(__file__).resolve().parent.parent
PAGE_NAMES = ("SLUG", "TEMPLATE", "TITLE", "SUMMARY", "context")
ADD_PACKAGE = (
    "use only what the worker loads, or add the package to the project's dependencies in "
    "pyproject.toml and pin it (with what it requires) in sitebuild/pins.py, PURE_WHEELS for "
    "a pure-Python wheel, and rebuild"
)


class BuildError(Exception):
    """A fault in the site's sources, told as where it is and what to do."""


def shown(path: str | Path) -> str:
    """A path as the author knows it: relative to the project when it lies inside."""
    path = Path(path).resolve()
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)


def source(mod: ModuleType) -> str:
    """A module's file as the author knows it, or its name if it has none."""
    where = getattr(mod, "__file__", None)
    return shown(where) if where else mod.__name__


def module_name(mod: ModuleType) -> str:
    """A module and its file, e.g. ``pages.post2 (pages/post2.py)``."""
    return f"{mod.__name__} ({source(mod)})" if getattr(mod, "__file__", None) else mod.__name__


def last_frame(err: BaseException, files: Iterable[str | Path]) -> traceback.FrameSummary | None:
    """The innermost frame of ``err``'s traceback that runs in one of ``files``."""
    wanted = {Path(f).resolve() for f in files}
    frames = traceback.extract_tb(err.__traceback__)
    inside = [f for f in frames if Path(f.filename).resolve() in wanted]
    return inside[-1] if inside else None


def at(frame: traceback.FrameSummary | None) -> str:
    return f" at {shown(frame.filename)}:{frame.lineno}" if frame else ""


def check_page(page: ModuleType) -> ModuleType:
    """``page`` if it defines everything a page module must; else which names it lacks."""
    if missing := [name for name in PAGE_NAMES if not hasattr(page, name)]:
        raise BuildError(
            f"page module {module_name(page)} lacks {', '.join(missing)}: a page module "
            "defines SLUG, TEMPLATE, TITLE, SUMMARY and context() (see pages/__init__.py)"
        )
    return page


class Numbers(dict):
    """A page's ``context()``, knowing its page, so that ``n.x`` it lacks names the page."""

    page: ModuleType


def numbers(page: ModuleType) -> Numbers:
    """``page.context()``, or which page module failed to give it, and where."""
    try:
        given = page.context()
    except Exception as err:
        frame = last_frame(err, [page.__file__]) if getattr(page, "__file__", None) else None
        raise BuildError(
            f"{page.__name__}.context() raised {type(err).__name__}: {err}{at(frame)}: "
            f"fix the page module {module_name(page)}"
        ) from err
    if not isinstance(given, dict):
        raise BuildError(f"{page.__name__}.context() returned {type(given).__name__}, not a dict")
    found = Numbers(given)
    found.page = page
    return found


class Undefined(jinja2.StrictUndefined):
    """Jinja's strict undefined; for ``n.x``, it says which page's ``context()`` lacks x."""

    __slots__ = ()

    @property
    def _undefined_message(self) -> str:
        owner, name = self._undefined_obj, self._undefined_name
        if isinstance(owner, Numbers) and isinstance(name, str):
            return (
                f"n.{name} is not in {owner.page.__name__}.context(): add {name!r} to the "
                f"dict it returns, in {source(owner.page)}, or correct the name"
            )
        if owner is jinja2.utils.missing and not self._undefined_hint:
            return (
                f"{name!r} is undefined: the template names a variable nobody provides "
                "(a page's template gets the variables build.py's render_prose passes, n "
                "being the page's context(), and the environment's globals)"
            )
        return super()._undefined_message


def template_line(err: BaseException, templates: Path) -> str | None:
    """``file:line`` of the innermost template line ``err`` passed through, if any."""
    if isinstance(err, jinja2.TemplateSyntaxError) and err.filename:
        return f"{shown(err.filename)}:{err.lineno}"
    root = Path(templates).resolve()
    frames = traceback.extract_tb(err.__traceback__)
    inside = [f for f in frames if Path(f.filename).resolve().is_relative_to(root)]
    return f"{shown(inside[-1].filename)}:{inside[-1].lineno}" if inside else None


@contextmanager
def rendering(page: ModuleType, templates: Path) -> Iterator[None]:
    """Turn a failure while rendering ``page``'s template into one that names file and line."""
    try:
        yield
    except BuildError as err:
        where = template_line(err, templates)
        if where is None:
            raise
        raise BuildError(f"{where} (page {page.__name__}): {err}") from err
    except Exception as err:
        where = template_line(err, templates) or shown(Path(templates) / page.TEMPLATE)
        if isinstance(err, jinja2.TemplateSyntaxError):
            what = f"template syntax error: {err.message}"
        else:
            what = str(err) if isinstance(err, jinja2.TemplateError) else describe(err)
        raise BuildError(f"{where} (page {page.__name__}): {what}") from err


def describe(err: BaseException) -> str:
    """An exception as one line: its type, its message, where in the project it was raised."""
    frames = traceback.extract_tb(err.__traceback__)
    ours = [f for f in frames if "site-packages" not in f.filename and Path(f.filename).exists()]
    return f"{type(err).__name__}: {err}{at(ours[-1] if ours else None)}"


def unknown_figure(figure_id: str, known: Iterable[str]) -> BuildError:
    return BuildError(
        f"unknown figure id {figure_id!r}; known ids: {', '.join(sorted(known))}. A new figure "
        "is registered in figures/__init__.py's REGISTRY"
    )


@contextmanager
def building_figures(page: ModuleType, modules: dict[str, ModuleType]) -> Iterator[None]:
    """Turn a figure's failure to build into one that names the figure, page and line.

    ``modules`` maps each figure id on the page to its module; the figure named is the one
    whose file holds the innermost frame of the traceback.
    """
    try:
        yield
    except Exception as err:
        by_file = {Path(mod.__file__).resolve(): fid for fid, mod in modules.items()}
        frame = last_frame(err, by_file)
        if frame is None:
            raise
        figure_id = by_file[Path(frame.filename).resolve()]
        raise BuildError(
            f"figure {figure_id!r} on page {page.__name__}: building it raised "
            f"{type(err).__name__}: {err}{at(frame)} in {frame.name}(); fix the figure module, "
            f"or call layoutkit.document.view_of({figure_id!r}) in Python for the whole traceback"
        ) from err


def standard_library(cache: Path) -> set[str]:
    """The standard library's top-level names, less the modules Pyodide ships apart."""
    official = json.loads((cache / CORE / pins.LOCK_NAME).read_text())
    apart = {
        name
        for entry in official["packages"].values()
        if entry.get("package_type") == "cpython_module"
        for name in entry["imports"]
        if not name.startswith("_")  # private halves: their public modules fall back
    }
    return set(sys.stdlib_module_names) - apart


def worker_imports(cache: Path) -> set[str]:
    """Every top-level name the figures' worker can import: the project's browser packages,
    the wheels the project requires (numpy) and theirs, and the standard library."""
    manifest = json.loads((cache / MANIFEST).read_text())
    entries = {canonicalize_name(name): e for name, e in manifest["packages"].items()}
    wanted = [Requirement(r).name for r in read_pyproject(ROOT)["project"]["dependencies"]]
    closure: set[str] = set()
    while wanted:
        name = canonicalize_name(wanted.pop())
        if name not in closure:
            closure.add(name)
            wanted += entries[name].get("depends", [])
    shipped = {i for name in closure for i in entries[name]["imports"]}
    browser = set(project_spec(ROOT)[2]) - set(BUILD_ONLY)
    return shipped | browser | standard_library(cache)


def check_figure_imports(
    provided: set[str], pages: dict[str, list[str]], modules: dict[str, str]
) -> None:
    """Fail if drawing a figure imports what the figures' worker does not load (``provided``:
    ``worker_imports``).

    ``pages`` maps a page's name to its figure ids, ``modules`` a figure id to its module.
    """
    used = imports({fid: modules[fid] for ids in pages.values() for fid in ids})
    faults = []
    for page, ids in pages.items():
        for fid in ids:
            if missing := sorted(set(used.get(fid, ())) - provided):
                what = ", ".join(missing)
                faults.append(
                    f"figure {fid!r} ({modules[fid]}, on page {page}) imports {what}, which "
                    "the figures' worker does not load (numpy, the standard library and the "
                    "project's own packages; the plots are the layout's, in layouts/)"
                )
    if faults:
        raise BuildError("\n".join([*dict.fromkeys(faults), ADD_PACKAGE]))
