"""Moving a control never imports a package (from a wheel) that building the figures did not,
nor a module of the project's own packages that building the page's figures did not.

A page that restores its memory snapshot has only the packages the build imported (their
modules in the heap, the rest in the shipped files bundle, see sitebuild/snapshot.py); a
package first needed when the reader moves a control would not be there. (That building a
figure imports only what the runtime ships is the build's own check, sitebuild/checks.py.)
The project's own modules do not ship in that bundle at all (sitebuild/bundle.py, PAGE_CODE),
so a page must have imported every one it runs while its figures were built.
"""

import json
import subprocess
import sys

import pytest

import pages

# Run in a fresh interpreter: the test process has imported much else already.
MOVE = """
import json, sys
import panel as pn
from bokeh.document import Document
from figures import REGISTRY
from layoutkit.document import view_of
from sitebuild.figure_imports import PROJECT, packages


def values(widget):
    # What a reader can give the widget: each option, a slider's ends, odd numbers typed.
    options = getattr(widget, "options", None)
    if options:
        return list(options.values()) if isinstance(options, dict) else list(options)
    if isinstance(widget, (pn.widgets.Toggle, pn.widgets.Checkbox)):
        return [not widget.value, widget.value]
    if isinstance(widget, pn.widgets.TextInput):
        return ["", "1, x", "nan, 1e308", widget.value]
    if isinstance(widget, (pn.widgets.IntInput, pn.widgets.FloatInput)):
        # The browser keeps a bounded box within its bounds; an emptied box sends None.
        low = -(10**9) if widget.start is None else widget.start
        high = 10**9 if widget.end is None else widget.end
        return [None, low, high, widget.value]
    return [widget.start, widget.end, widget.value]


def move_every_control(views):
    for view in views:
        for widget in view.select(pn.widgets.Widget):
            if isinstance(widget, pn.widgets.Button):
                widget.clicks += 1
                continue
            for value in values(widget):
                try:
                    widget.value = value
                except (ValueError, TypeError):
                    pass  # a value the widget refuses is not sent to the figure


def project_modules():
    return sorted(m for m in sys.modules if m.split(".")[0] in PROJECT)
"""

SCRIPT = (
    MOVE
    + """
doc = Document()
views = [view_of(figure_id) for figure_id in REGISTRY]
for view in views:
    doc.add_root(view.get_root(doc))
built = packages()
move_every_control(views)
print(json.dumps({"built": built, "moved": packages()}))
"""
)

# One page, as its worker builds it (layoutkit.document.document), then every control of a second
# build of its figures moved (a second build imports nothing: it is what the worker's rehearsal
# does).
PAGE_SCRIPT = (
    MOVE
    + """
from layoutkit.document import document
document(sys.argv[1:], "dist/")
built = project_modules()
doc = Document()
views = [view_of(figure_id) for figure_id in sys.argv[1:]]
for view in views:
    doc.add_root(view.get_root(doc))
move_every_control(views)
print(json.dumps({"built": built, "moved": project_modules()}))
"""
)
POSTS = {page.SLUG: pages.placed_figures(page.TEMPLATE) for page in pages.posts()}


def run(script: str, *args: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_moving_every_control_imports_no_new_package():
    seen = run(SCRIPT)
    assert sorted(set(seen["moved"]) - set(seen["built"])) == []
    assert {"numpy", "bokeh", "panel", "attention", "figures"} <= set(seen["built"])


@pytest.mark.parametrize("slug", POSTS)
def test_a_page_imports_every_project_module_it_runs_while_building(slug):
    seen = run(PAGE_SCRIPT, *POSTS[slug])
    assert sorted(set(seen["moved"]) - set(seen["built"])) == []
    assert "figures.viewstate" in seen["built"]
