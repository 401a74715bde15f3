"""A figure that declares its state and drawing runs without Panel, Bokeh, param or tornado:
what the reader's worker imports to draw it is numpy and the project."""

import importlib
import json
import subprocess
import sys

import figures

FRAMEWORKS = ("panel", "bokeh", "param", "tornado")

SCRIPT = """
import importlib, json, sys
from figurekit.figure import Figure
from figures import REGISTRY
declared = []
for figure_id in sys.argv[1:]:
    mod = importlib.import_module(REGISTRY[figure_id])
    figure = Figure(figure_id, mod)
    figure.draw()
    for key, control in figure.controls.items():
        figure.change(key, control.get(figure.default))
    declared.append(figure_id)
print(json.dumps({"declared": declared, "modules": sorted(sys.modules)}))
"""


def declared() -> list[str]:
    """The figures that declare their state and drawing (the rest still build with Panel)."""
    return [
        figure_id
        for figure_id, name in figures.REGISTRY.items()
        if not hasattr(importlib.import_module(name), "view")
    ]


def test_declared_figures_draw_without_the_frameworks():
    args = [sys.executable, "-c", SCRIPT, *declared()]
    done = subprocess.run(args, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert "masking" in found["declared"]
    tops = {name.split(".")[0] for name in found["modules"]}
    assert not tops & set(FRAMEWORKS), sorted(tops & set(FRAMEWORKS))


def test_the_check_would_see_a_framework():
    # A module that imports Panel (a layout's kit) is what the check fails on.
    done = subprocess.run(
        [sys.executable, "-c", "import layoutkit.wiring, sys; print('panel' in sys.modules)"],
        capture_output=True,
        text=True,
    )
    assert done.stdout.strip() == "True"
