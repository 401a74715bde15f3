"""Each layer imports only the layers below it.

    attention/  <-  formatting/  <-  figurekit/  <-  figures/  <-  worker/  (the browser's)
                                                              <-  layoutkit/  <-  layouts/
    pages/  (the core's numbers)  <-  sitebuild/, build.py

The core is numpy alone, so a reader can import it in a notebook; the figures and the worker
that runs them in the reader's browser are numpy and the project alone (Panel and Bokeh draw
the layouts at build time); a page quotes numbers from the core, never from a figure's UI
module; only the build side knows about the build.
"""

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROJECT = {
    "attention",
    "formatting",
    "figurekit",
    "figures",
    "layoutkit",
    "layouts",
    "worker",
    "pages",
    "sitebuild",
    "build",
    "bench",
    "harness",
    "tests",
}

# layer -> (project layers it may import, third-party packages it may import)
ALLOWED: dict[str, tuple[set[str], set[str]]] = {
    "attention": ({"attention"}, {"numpy"}),
    "formatting": ({"attention", "formatting"}, {"numpy"}),
    "figurekit": ({"attention", "formatting", "figurekit"}, {"numpy"}),
    "figures": ({"attention", "formatting", "figurekit", "figures"}, {"numpy"}),
    "layoutkit": (
        {"attention", "formatting", "figurekit", "figures", "layoutkit"},
        {"numpy", "panel", "bokeh", "param"},
    ),
    "layouts": (
        {"attention", "formatting", "figurekit", "figures", "layoutkit", "layouts"},
        {"numpy", "panel", "bokeh"},
    ),
    "worker": (
        {"attention", "formatting", "figurekit", "figures", "worker"},
        {"numpy", "js", "pyodide"},
    ),
    "pages": ({"attention", "formatting", "pages"}, {"numpy"}),
}


def imported_tops(path: Path) -> set[str]:
    """The top-level names of every module ``path`` imports, at any depth of the file."""
    tops: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            tops.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            tops.add(node.module.split(".")[0])
    return tops


def violations(layer: str) -> list[str]:
    """Every import in ``layer`` that reaches above it or outside its allowed packages."""
    project, third_party = ALLOWED[layer]
    found = []
    for path in sorted((ROOT / layer).rglob("*.py")):
        for top in sorted(imported_tops(path) - set(sys.stdlib_module_names)):
            allowed = project if top in PROJECT else third_party
            if top not in allowed:
                found.append(f"{path.relative_to(ROOT)} imports {top}")
    return found


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_a_layer_imports_only_what_lies_below_it(layer):
    assert violations(layer) == []


def test_the_check_sees_an_import_that_climbs(tmp_path, monkeypatch):
    # A page that borrows a figure's formatter is exactly what the layer rule forbids.
    (tmp_path / "pages").mkdir()
    (tmp_path / "pages" / "bad.py").write_text("def f():\n    from figures import cost\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert violations("pages") == ["pages/bad.py imports figures"]


# Test files kept outside tests/ to be copied into it (README, "Add a figure").
TEST_TEMPLATES = {"docs/figure_test_template.py"}


def importers_of_tests(root: Path) -> list[str]:
    """Every file outside ``tests/`` that imports the tests (the harness the tests and the
    benchmark share is ``harness/``, so that nothing else needs to)."""
    return [
        str(path.relative_to(root))
        for path in sorted(root.rglob("*.py"))
        if path.relative_to(root).parts[0] not in {"tests", ".venv", "site", ".cache"}
        and str(path.relative_to(root)) not in TEST_TEMPLATES
        and "tests" in imported_tops(path)
    ]


def test_nothing_outside_the_tests_imports_them():
    assert importers_of_tests(ROOT) == []


def test_the_check_sees_a_benchmark_importing_the_tests(tmp_path):
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "browser.py").write_text("from tests.site.conftest import BASE\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text("import tests.site\n")
    assert importers_of_tests(tmp_path) == ["bench/browser.py"]
