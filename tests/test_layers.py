"""Each layer imports only the layers below it.

    attention/  <-  formatting/  <-  figures/  <-  pages/  <-  sitebuild/, build.py

The core is numpy alone, so a reader can import it in a notebook; a page quotes numbers from
the core, never from a figure's UI module; only the build side knows about the build.
"""

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROJECT = {"attention", "formatting", "figures", "pages", "sitebuild", "build", "bench", "tests"}

# layer -> (project layers it may import, third-party packages it may import)
ALLOWED: dict[str, tuple[set[str], set[str]]] = {
    "attention": ({"attention"}, {"numpy"}),
    "formatting": ({"attention", "formatting"}, {"numpy"}),
    "figures": (
        {"attention", "formatting", "figures"},
        {"numpy", "panel", "bokeh", "param", "js", "pyodide"},
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
