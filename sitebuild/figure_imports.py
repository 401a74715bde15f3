"""What drawing each figure imports, seen from a fresh interpreter.

The figures' worker loads numpy and the project alone (sitebuild/checks.py, worker_imports); a
figure that imports anything else draws here and fails in the reader's browser. ``imports``
runs this module in a fresh CPython (the build's own process has imported much else already),
which first imports numpy's submodules (their compiled modules register a few of cython's own
in ``sys.modules``, which are numpy's, not the first figure's), then draws each figure as the
worker does and records

- the top-level packages that appeared in ``sys.modules`` meanwhile, and
- the packages the project's own code (and the figure's module) imported by name, even if
  something had imported them before.

tests/figures/test_imports.py reads ``packages`` from here too.
"""

from __future__ import annotations

import builtins
import contextlib
import importlib
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from sitebuild.wheels import project_spec

PROJECT_ROOT = Path(__file__).resolve().parent.parent
# The project's packages, whose import statements are recorded.
PROJECT = tuple(project_spec(PROJECT_ROOT)[2])


def packages() -> list[str]:
    """Top-level names of the imported modules that come from wheels, sorted.

    The standard library ships whole with Pyodide; everything else comes from a wheel.
    """
    tops = {name.split(".")[0] for name in sys.modules}
    return sorted(tops - set(sys.stdlib_module_names) - set(sys.builtin_module_names))


@contextlib.contextmanager
def imported_by(project: set[str]) -> Iterator[set[str]]:
    """Record the top-level name of every absolute import that code in ``project`` runs."""
    seen: set[str] = set()
    original = builtins.__import__

    def record(name, globals=None, locals=None, fromlist=(), level=0):
        importer = (globals or {}).get("__name__") or ""
        if level == 0 and importer.split(".")[0] in project:
            seen.add(name.split(".")[0])
        return original(name, globals, locals, fromlist, level)

    builtins.__import__ = record
    try:
        yield seen
    finally:
        builtins.__import__ = original


def survey(modules: dict[str, str]) -> dict[str, list[str]]:
    """Figure id -> the top-level names drawing it as the reader's worker does (its module
    imported, its default state drawn) imported, the project's own left out (``modules`` maps
    a figure id to its module's name).

    A figure that fails to draw is left out: the build reports it with its own traceback.
    """
    import numpy.linalg
    import numpy.random  # noqa: F401 (its compiled modules register cython's own in sys.modules)

    from figurekit.figure import Figure

    project = set(PROJECT) | {name.split(".")[0] for name in modules.values()}
    found = {}
    for figure_id, name in modules.items():
        before = set(packages())
        try:
            with imported_by(project) as named:
                Figure(figure_id, importlib.import_module(name)).draw()
        except Exception:
            continue
        found[figure_id] = sorted((set(packages()) - before | named) - project)
    return found


def imports(modules: dict[str, str], path: list[str] | None = None) -> dict[str, list[str]]:
    """``survey`` run in a fresh interpreter that imports from ``path`` (default: ours)."""
    request = {"path": sys.path if path is None else path, "modules": modules}
    done = subprocess.run(
        [sys.executable, "-m", "sitebuild.figure_imports"],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        cwd=PROJECT_ROOT,
    )
    if done.returncode != 0:
        raise RuntimeError(f"surveying the figures' imports failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    request = json.load(sys.stdin)
    sys.path[:0] = request["path"]
    print(json.dumps(survey(request["modules"])))


if __name__ == "__main__":
    main()
