"""The page script's modules (static/page/): joined by imports without a circle, each reached
from main.js, and bundled into the one script a page runs."""

import re
import shutil
import subprocess
from graphlib import CycleError, TopologicalSorter

import pytest

from sitebuild import pagescript


def imported_from(start: str, graph: dict[str, list[str]]) -> set[str]:
    """The modules ``start`` imports, directly or through others, and itself."""
    seen, todo = set(), [start]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(graph[name])
    return seen


def test_every_import_names_a_module_of_the_folder():
    graph = pagescript.modules()
    assert "main.js" in graph
    for name, imports in graph.items():
        assert set(imports) <= set(graph), f"{name} imports {set(imports) - set(graph)}"


def test_the_modules_import_each_other_without_a_circle():
    TopologicalSorter(pagescript.modules()).prepare()  # raises CycleError on a circle


def test_a_circle_is_found(tmp_path):
    folder = tmp_path / pagescript.SOURCE
    folder.mkdir(parents=True)
    (folder / "main.js").write_text('import { a } from "./a.js";\n')
    (folder / "a.js").write_text('import {\n  b,\n} from "./b.js";\nexport const a = 1;\n')
    (folder / "b.js").write_text('import { a } from "./a.js";\nexport const b = 2;\n')
    graph = pagescript.modules(tmp_path)
    assert graph == {"a.js": ["b.js"], "b.js": ["a.js"], "main.js": ["a.js"]}
    with pytest.raises(CycleError):
        TopologicalSorter(graph).prepare()


def test_main_reaches_every_module_and_nothing_imports_main():
    graph = pagescript.modules()
    assert imported_from("main.js", graph) == set(graph)
    assert not [name for name, imports in graph.items() if "main.js" in imports]


def test_the_modules_set_no_window_globals():
    """They share what they share by imports; the page's other scripts are not theirs to call."""
    for name in pagescript.modules():
        text = (pagescript.ROOT / pagescript.SOURCE / name).read_text()
        assert not re.search(r"\bwindow\.\w+\s*=[^=]", text), name


def test_the_bundle_is_one_script_with_every_module(cache):
    """The bundle is made by the esbuild npm installs in the cache, so not in the fast tier."""
    text = pagescript.bundle(cache, print).decode()
    assert text.startswith('"use strict";')
    for name in pagescript.modules():
        assert f"// {pagescript.SOURCE}/{name}" in text, name
    assert not re.search(r"^\s*(import|export)\b", text, re.MULTILINE)
    # A syntax check by Node, which the build has since npm needs it.
    subprocess.run([shutil.which("node"), "--check", "-"], input=text, text=True, check=True)


def test_a_syntax_error_names_its_module_and_line(cache, tmp_path):
    """The build (and the watch loop, which shows it over the open pages) says where."""
    folder = tmp_path / pagescript.SOURCE
    folder.mkdir(parents=True)
    (folder / "main.js").write_text('import { a } from "./a.js";\nconsole.log(a);\n')
    (folder / "a.js").write_text("// a module\nexport const a = ;\n")
    with pytest.raises(RuntimeError, match=r"static/page/a\.js:2:"):
        pagescript.bundle(cache, print, root=tmp_path)
