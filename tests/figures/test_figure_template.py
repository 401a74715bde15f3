"""The figure template in docs/, used as a new author uses it, so that it cannot rot.

``docs/figure_template.py`` is loaded as ``figures.my_figure`` (and ``docs/layout_template.py``
as ``layouts.my_figure``) and registered as ``my-figure``; then it is built as the build builds
a page's figures, fuzzed like every registered figure, run as the reader's worker runs it, and
``docs/figure_test_template.py`` is run on it.
"""

import importlib.util
import inspect
import sys
from pathlib import Path

import pytest

import figures
from layoutkit.document import prerender
from tests.figures import probe, test_fuzz
from tests.worker import test_live

DOCS = Path(__file__).resolve().parents[2] / "docs"
FIGURE_ID, NAME = "my-figure", "figures.my_figure"


def load(monkeypatch, path: Path, name: str):
    """The file at ``path`` imported as module ``name``, until the test ends."""
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, mod)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def my_figure(monkeypatch):
    """The template copied in: a module of the figures package, registered under its id."""
    mod = load(monkeypatch, DOCS / "figure_template.py", NAME)
    load(monkeypatch, DOCS / "layout_template.py", "layouts.my_figure")
    monkeypatch.setattr(figures, "my_figure", mod, raising=False)
    monkeypatch.setitem(figures.REGISTRY, FIGURE_ID, NAME)
    return mod


def test_it_registers_and_builds_into_a_prerender(my_figure):
    assert figures.module(FIGURE_ID) is my_figure
    assert figures.figure_id(my_figure) == FIGURE_ID
    assert prerender(FIGURE_ID, "/dist/")["wiring"]["controls"]["query-token"]["prop"] == "value"


def test_its_readout_is_a_function_of_the_state(my_figure):
    shown = probe.readouts(probe.driven(my_figure))
    assert shown == {k: text for k, _, text in my_figure.readouts(my_figure.State("journey"))}
    assert shown["total"] == "1.000"


def test_it_survives_fuzzing_like_every_registered_figure(my_figure):
    test_fuzz.test_every_control_sequence_is_survived_and_undone(FIGURE_ID)


def test_the_worker_draws_it_as_the_build_does(my_figure):
    test_live.test_the_worker_updates_turn_the_prerender_into_the_build_of_each_state(FIGURE_ID)


def test_its_test_template_passes(my_figure, monkeypatch):
    tests = load(monkeypatch, DOCS / "figure_test_template.py", "figure_test_template")
    ran = [f for name, f in inspect.getmembers(tests, inspect.isfunction) if name[:5] == "test_"]
    assert ran
    for test in ran:
        test()
