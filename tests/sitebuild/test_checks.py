"""Build failures point: each names the file and line, the module, or the page and figure id.

Every test builds the prose of a small fake tree (pages and figure modules in a temporary
folder, templates beside a copy of the real ``_figure.html``) with one deliberate fault, the
way ``build.render_pages`` does, without installing the runtime.
"""

import importlib
import shutil
import sys
import textwrap

import pytest

import build
import figures
import layouts
import pages
from layoutkit.document import prerender
from sitebuild import checks

PAGE = """
SLUG = "fake"
TEMPLATE = "fake.html"
TITLE = "A fake page"
SUMMARY = "One fault."


def context():
    return {"count": 3}
"""
FIGURE = """
from typing import NamedTuple

from figurekit.drawing import html

TITLE = "A fake figure"
CAPTION = "Nothing to try."


class State(NamedTuple):
    n: int = 1


DEFAULT = State()
CONTROLS = ()


def draw(state):
    return {"readout": html("fake")}
"""
# Every fake figure's layout (layouts/<module>.py): its readout and message panes, wired.
LAYOUT = """
from layoutkit.frame import frame, pane
from layoutkit.wiring import wire


def layout(figure):
    readout, message = pane(), pane()
    wire(figure, {}, {}, {"readout": readout, "message": message})
    return frame([], [], readout, message)
"""


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """A fake site: ``write(name, text)`` adds a file, ``page(template, module=PAGE)`` a page
    using ``template`` as the only page; figure modules join the registry as ``fake-*`` ids."""
    (tmp_path / "templates").mkdir()
    (tmp_path / "layouts").mkdir()
    monkeypatch.setattr(layouts, "__path__", [*layouts.__path__, str(tmp_path / "layouts")])
    shutil.copy(build.ROOT / "templates" / "_figure.html", tmp_path / "templates")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(pages, "POSTS", ())
    monkeypatch.setattr(pages, "OTHER", ("fake_page",))

    class Tree:
        root = tmp_path
        env = build.environment(tmp_path / "templates")

        def write(self, name: str, text: str) -> None:
            (tmp_path / name).write_text(textwrap.dedent(text).lstrip("\n"))

        def figure(self, figure_id: str, module: str, text: str = FIGURE) -> None:
            self.write(f"{module}.py", text)
            self.write(f"layouts/{module}.py", LAYOUT)
            monkeypatch.setitem(figures.REGISTRY, figure_id, module)

        def page(self, template: str, module: str = PAGE):
            self.write("templates/fake.html", template)
            self.write("fake_page.py", module)
            for name in [n for n in sys.modules if n.startswith("fake_")]:
                monkeypatch.delitem(sys.modules, name)
            return importlib.import_module("fake_page")

        def fails(self, template: str, module: str = PAGE) -> str:
            page = self.page(template, module)
            with pytest.raises(checks.BuildError) as failed:
                build.render_prose(self.env, page, "/")
            return str(failed.value)

    return Tree()


def test_an_attribute_the_context_lacks_names_the_file_line_and_page(tree):
    message = tree.fails("<p>{{ n.count }}</p>\n<p>{{ n.h4 }}</p>\n")
    assert message.startswith(f"{tree.root}/templates/fake.html:2 (page fake_page): ")
    assert "n.h4 is not in fake_page.context()" in message
    assert f"in {tree.root}/fake_page.py" in message


def test_a_variable_nobody_provides_names_the_file_line_and_the_variables_given(tree):
    message = tree.fails("<p>{{ n.count }}</p>\n\n<p>{{ nope }}</p>\n")
    assert "fake.html:3 (page fake_page): 'nope' is undefined" in message
    assert "render_prose passes" in message


def test_a_syntax_error_names_the_file_and_line(tree):
    message = tree.fails("<p>\n{{ n. }}</p>\n")
    assert "fake.html:2 (page fake_page): template syntax error" in message


def test_an_unknown_figure_id_names_the_file_line_and_the_known_ids(tree):
    message = tree.fails('<p>{{ n.count }}</p>\n{{ figure("no-such") }}\n')
    assert "fake.html:2 (page fake_page): unknown figure id 'no-such'" in message
    assert "depth, divisor, dropout" in message
    assert "REGISTRY" in message


@pytest.mark.parametrize("name", ["TITLE", "CAPTION", "draw"])
def test_a_figure_module_without_a_name_it_needs_names_it_and_who_placed_it(tree, name):
    text = FIGURE.replace(f"{name} =", "_ =").replace(f"def {name}(", "def _(")
    tree.figure("fake-lacking", "fake_lacking", text)
    message = tree.fails('<h1>{{ page.TITLE }}</h1>\n\n{{ figure("fake-lacking") }}\n')
    assert "fake.html:3 (page fake_page): figure module fake_lacking ('fake-lacking')" in message
    assert f"lacks {name}:" in message


def test_a_figure_whose_drawing_raises_names_the_figure_the_page_and_its_own_line(tree):
    broken = FIGURE.replace(
        'return {"readout": html("fake")}', "return helper()\n\n\ndef helper():\n    return 1 / 0"
    )
    tree.figure("fake-ok", "fake_ok")
    tree.figure("fake-broken", "fake_broken", broken)
    page = tree.page('{{ figure("fake-ok") }}\n{{ figure("fake-broken") }}\n')
    _, ids = build.render_prose(tree.env, page, "/")
    with pytest.raises(checks.BuildError) as failed:
        with checks.building_figures(page, {fid: figures.module(fid) for fid in ids}):
            for fid in ids:
                prerender(fid, "/vendor/panel/dist/")
    message = str(failed.value)
    assert message.startswith("figure 'fake-broken' on page fake_page: ")
    assert "ZeroDivisionError: division by zero" in message
    line = broken.lstrip("\n").splitlines().index("    return 1 / 0") + 1
    assert f"at {tree.root}/fake_broken.py:{line} in helper()" in message


@pytest.mark.parametrize("name", ["SLUG", "TEMPLATE", "TITLE", "SUMMARY", "context"])
def test_a_page_module_without_a_name_it_needs_is_named(tree, name):
    text = PAGE.replace(f"{name} =", "_ =").replace(f"def {name}(", "def _(")
    tree.page("<p></p>\n", text)
    with pytest.raises(checks.BuildError) as failed:
        build.render_pages(tree.env, "/", None)
    message = str(failed.value)
    assert message.startswith(f"page module fake_page ({tree.root}/fake_page.py) lacks {name}:")


def test_a_context_that_raises_names_the_page_module_and_line(tree):
    text = PAGE.replace('return {"count": 3}', 'return {"count": {}["missing"]}')
    message = tree.fails("<p>{{ n.count }}</p>\n", text)
    line = text.lstrip("\n").splitlines().index('    return {"count": {}["missing"]}') + 1
    assert message.startswith("fake_page.context() raised KeyError: 'missing'")
    assert f"at {tree.root}/fake_page.py:{line}" in message


def test_a_failing_snippet_names_the_file_line_and_its_own_line(tree):
    template = "<p>{{ n.count }}</p>\n{% call code() %}\nx = 1\nprint(x / 0)\n{% endcall %}\n"
    message = tree.fails(template)
    assert "fake.html:2 (page fake_page): a code snippet failed at its line 2" in message
    assert "ZeroDivisionError" in message
    assert "   2 | print(x / 0)" in message


def test_an_unknown_glossary_term_names_the_file_line_and_the_nearest_terms(tree):
    message = tree.fails('<p>{{ term("softmax") }}</p>\n<p>{{ term("sofmax") }}</p>\n')
    assert "fake.html:2 (page fake_page): unknown glossary term 'sofmax'" in message
    assert "did you mean 'softmax'" in message


def test_python_build_py_prints_one_build_failed_block(tree, monkeypatch, capsys):
    tree.page("<p>{{ n.count }}</p>\n<p>{{ n.h4 }}</p>\n")
    monkeypatch.setattr(build, "build", lambda *a, **k: build.render_pages(tree.env, "/", None))
    with pytest.raises(SystemExit) as exited:
        build.main(["--no-snapshots", "--out", str(tree.root / "site")])
    assert str(exited.value).startswith("build failed: ")
    assert "fake.html:2 (page fake_page): n.h4 is not in fake_page.context()" in str(exited.value)


def test_a_figure_importing_what_the_runtime_lacks_fails_naming_it_and_the_page(tree, cache):
    # The prose step is shared by builds with and without snapshots, so both fail alike.
    tree.figure("fake-ok", "fake_ok")
    needs = FIGURE.replace("from typing", "import pygments\nimport sqlite3\nfrom typing")
    tree.figure("fake-needs", "fake_needs", needs)
    tree.page('{{ figure("fake-ok") }}\n{{ figure("fake-needs") }}\n')
    with pytest.raises(checks.BuildError) as failed:
        build.render_pages(tree.env, "/", cache)
    message = str(failed.value)
    assert (
        "figure 'fake-needs' (fake_needs, on page fake_page) imports pygments, sqlite3" in message
    )
    assert "fake-ok" not in message
    assert "sitebuild/pins.py" in message


def test_the_worker_loads_numpy_the_projects_browser_packages_and_the_standard_library(cache):
    provided = checks.worker_imports(cache)
    assert {"numpy", "attention", "figures", "figurekit", "worker", "json", "math"} <= provided
    build_only = {"panel", "bokeh", "param", "tornado", "layoutkit", "layouts"}
    assert not build_only & provided
    assert not {"pygments", "pandas", "sqlite3", "ssl"} & provided
