"""The cells' worker side (worker/cells.py) in CPython: what a cell prints, its namespace,
and the bad input the page must survive. The browser runs the same module
(tests/site/test_cells_browser.py)."""

import os

import pytest

from worker import cells


@pytest.fixture(autouse=True)
def real_exit(monkeypatch):
    """run_cell replaces os._exit for good, in a Python that runs only cells: not this one."""
    monkeypatch.setattr(os, "_exit", os._exit)


def run(code: str, key: str = "test", fresh: bool = False) -> tuple[str, str]:
    return cells.run_cell(code, "<cell t>", key, fresh)


def test_a_cell_prints_and_shows_its_last_expression():
    assert run("print('a')\n2 * 21", fresh=True) == ("a\n42", "")
    assert run("None", fresh=True) == ("", "")


def test_cells_named_alike_share_a_namespace_until_fresh():
    run("x = 5", fresh=True)
    assert run("x + 1") == ("6", "")
    assert run("x", key="other", fresh=True)[1].endswith("NameError: name 'x' is not defined")
    assert "NameError" in run("x", fresh=True)[1]


def test_an_error_shows_only_the_readers_frames_with_the_line():
    _, error = run("def f():\n    return 1 / 0\n\nf()", fresh=True)
    assert error.startswith("Traceback (most recent call last):")
    assert 'File "<cell t>", line 2, in f' in error and "return 1 / 0" in error
    assert "worker/cells.py" not in error and error.endswith("ZeroDivisionError: division by zero")


def test_a_syntax_error_is_short():
    _, error = run("def (", fresh=True)
    assert error.startswith('  File "<cell t>", line 1') and "SyntaxError" in error


def test_a_flood_of_output_is_cut_with_a_note():
    output, error = run("while True:\n    print('x' * 100)", fresh=True)
    assert error == ""
    assert output.endswith(f"... output cut: a cell may print {cells.LIMIT:,} characters")
    assert len(output) < cells.LIMIT + 100


def test_exit_ends_the_cell_not_python():
    for code in ("import sys; sys.exit(3)", "import os; os._exit(0)"):
        output, error = run(f"print('before')\n{code}\nprint('after')", fresh=True)
        assert output == "before" and error.startswith("SystemExit: the cell asked Python")


def test_an_array_too_large_for_the_browser_says_so():
    _, error = run("raise ValueError('Maximum allowed dimension exceeded')", fresh=True)
    assert "at most 4 GB in all" in error
