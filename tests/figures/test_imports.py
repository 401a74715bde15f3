"""Moving a control never imports a package (from a wheel) that building the figures did not.

A page that restores its memory snapshot has only the packages the build imported (their
modules in the heap, the rest in the shipped files bundle, see sitebuild/snapshot.py); a
package first needed when the reader moves a control would not be there. (That building a
figure imports only what the runtime ships is the build's own check, sitebuild/checks.py.)
"""

import json
import subprocess
import sys

# Run in a fresh interpreter: the test process has imported much else already.
SCRIPT = """
import json, sys
import panel as pn
from bokeh.document import Document
from figures import REGISTRY, module
from sitebuild.figure_imports import packages


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


doc = Document()
views = [module(figure_id).view() for figure_id in REGISTRY]
for view in views:
    doc.add_root(view.get_root(doc))
built = packages()
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
print(json.dumps({"built": built, "moved": packages()}))
"""


def test_moving_every_control_imports_no_new_package():
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True
    )
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert sorted(set(seen["moved"]) - set(seen["built"])) == []
    assert {"numpy", "bokeh", "panel", "attention", "figures"} <= set(seen["built"])
