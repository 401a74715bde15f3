"""Moving a control never imports a package (from a wheel) that drawing the figures did not,
nor a module of the project's own packages that drawing the page's figures did not; and the
figures' worker never imports Panel, Bokeh, param or tornado.

A page that restores its memory snapshot has only what the build's worker imported (its
modules in the heap, the rest in the shipped files bundle, see sitebuild/snapshot.py); a
package first needed when the reader moves a control would not be there. (That drawing a
figure imports only what the worker loads is the build's own check, sitebuild/checks.py.)
The project's own modules do not ship in that bundle at all (sitebuild/bundle.py, PAGE_CODE),
so a page must have imported every one it runs while its figures were drawn.
"""

import json
import subprocess
import sys

import pytest

import pages

# Run in a fresh interpreter, as the worker runs: worker.live drawing the page's figures, then
# every control of every figure moved to each value a reader can give it, and every button
# pressed.
SCRIPT = """
import json, sys
from figurekit.controls import Choice, Clicks, Number, Slider, Switch, Text
from sitebuild.figure_imports import PROJECT, packages
from worker import live


def values(control, now):
    if isinstance(control, Choice):
        return control.values
    if isinstance(control, Switch):
        return [not now, now]
    if isinstance(control, Text):
        return ["", "1, x", "nan, 1e308", now]
    if isinstance(control, Number):
        low = -(10**9) if control.start is None else control.start
        high = 10**9 if control.end is None else control.end
        return [None, low, high, now]
    if isinstance(control, Clicks):
        return [now + 1]
    return [control.start, control.end, now]


def project_modules():
    return sorted(m for m in sys.modules if m.split(".")[0] in PROJECT)


live.start(sys.argv[1:])
built, built_project = packages(), project_modules()
for figure in live.FIGURES.values():
    for key, control in figure.controls.items():
        for value in values(control, control.get(figure.state)):
            figure.change(key, value)
    for key in figure.actions:
        figure.act(key)
print(json.dumps({"built": built, "moved": packages(), "built_project": built_project,
                  "moved_project": project_modules(), "modules": sorted(sys.modules)}))
"""
POSTS = {page.SLUG: pages.placed_figures(page.TEMPLATE) for page in pages.posts()}
FRAMEWORKS = {"panel", "bokeh", "param", "tornado", "pandas"}


def run(*figure_ids: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, *figure_ids], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def every_figure_moved() -> dict:
    return run(*[fid for ids in POSTS.values() for fid in ids])


def test_moving_every_control_imports_no_new_package_and_no_framework(every_figure_moved):
    seen = every_figure_moved
    assert sorted(set(seen["moved"]) - set(seen["built"])) == []
    assert {"numpy", "attention", "figures", "figurekit", "worker"} <= set(seen["built"])
    assert not FRAMEWORKS & set(seen["moved"]), sorted(FRAMEWORKS & set(seen["moved"]))


def test_no_figure_imports_numpys_masked_arrays(every_figure_moved):
    """numpy.ma is the largest of numpy's packages, and only np.median asked for it (numpy 2.0
    imports it to check a median for NaN): every module imported is in the worker's heap, so
    the figures take the median as np.quantile's 0.5 (the same number) and leave it out."""
    masked = [m for m in every_figure_moved["modules"] if m.split(".")[:2] == ["numpy", "ma"]]
    assert masked == []


@pytest.mark.parametrize("slug", POSTS)
def test_a_page_imports_every_project_module_it_runs_while_drawing(slug):
    seen = run(*POSTS[slug])
    assert sorted(set(seen["moved_project"]) - set(seen["built_project"])) == []
    assert "figurekit.figure" in seen["built_project"]


def test_the_check_would_see_a_framework():
    # A figure module that imports Panel is what the first test fails on.
    done = subprocess.run(
        [sys.executable, "-c", "import layoutkit.wiring, sys; print('panel' in sys.modules)"],
        capture_output=True,
        text=True,
    )
    assert done.stdout.strip() == "True"
