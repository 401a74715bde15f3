"""A figure's try-it cell (figurekit/tryit.py) runs on its own and prints the figure's readout,
for the default state and for the state a reader moved the figure to."""

import ast
import contextlib
import io

import pytest

from figurekit import tryit
from figures import REGISTRY, module

WITH_CELLS = [f for f in REGISTRY if tryit.has_cell(module(f))]


def printed(code: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<cell>", "exec"), {"__name__": "__cell__"})
    return out.getvalue()


def readout_lines(mod, state) -> str:
    return "".join(f"{label}: {text}\n" for _, label, text in mod.readouts(state))


def test_every_figure_of_the_posts_has_a_cell():
    """Section 3.3's four figures show the section's matrices, with no State to load."""
    assert sorted(set(REGISTRY) - set(WITH_CELLS)) == [
        "context-matmul",
        "matmul-scores",
        "normalisations-compare",
        "score-matrix",
    ]


@pytest.mark.parametrize("figure_id", WITH_CELLS)
def test_the_cell_prints_the_figures_readout_for_its_default_state(figure_id):
    mod = module(figure_id)
    state = tryit.default_state(mod)
    before, after = tryit.cell_parts(mod)
    assert printed(before + tryit.state_code(state) + after) == readout_lines(mod, state)


@pytest.mark.parametrize("figure_id", WITH_CELLS)
def test_the_state_code_gives_back_the_state(figure_id):
    mod = module(figure_id)
    state = tryit.default_state(mod)
    namespace = {"State": mod.State}
    exec(tryit.state_code(state), namespace)
    assert namespace["state"] == state


def test_the_cell_follows_a_state_the_reader_moved_the_figure_to():
    mod = module("three-steps")
    moved = tryit.default_state(mod)._replace(query="step")
    before, after = tryit.cell_parts(mod)
    code = before + tryit.state_code(moved) + after
    assert "query='step'" in code
    assert printed(code) == readout_lines(mod, moved)
    assert printed(code) != readout_lines(mod, tryit.default_state(mod))


@pytest.mark.parametrize("figure_id", WITH_CELLS)
def test_names_are_imported_from_where_they_are_defined(figure_id):
    """``softmax`` from attention, ``np`` as numpy: only constants and the figure's own
    helpers come from the figure's module."""
    mod = module(figure_id)
    before, _ = tryit.cell_parts(mod)
    for node in ast.parse(before).body:
        if isinstance(node, ast.ImportFrom) and node.module == mod.__name__:
            for alias in node.names:
                value = getattr(mod, alias.name)
                if hasattr(value, "__qualname__"):  # a function or class, not a constant
                    assert value.__module__ == mod.__name__, alias.name


def test_a_figure_without_a_state_has_no_cell():
    with pytest.raises(ValueError, match="no State and readouts"):
        tryit.cell_parts(module("score-matrix"))
