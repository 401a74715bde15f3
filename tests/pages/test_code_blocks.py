"""A page's code blocks read as a notebook's cells: each imports what it uses, or says in a
comment which earlier block defined it (``# from cell 1: inputs, show; from cell 2: scores``),
so that a block copied away or read on its own says what it needs. A page's blocks are
numbered from 1 in page order, as the page names them ("cell 3") and as the notebook counts
them. That they then run top to bottom in a fresh interpreter is tests/site/test_notebooks.py's
kernel run."""

import builtins
import io
import re
import symtable
import tokenize

import pytest

import pages
from sitebuild.notebook import page_blocks
from tests.pages.render import prose

# One comment may name several cells: "from cell 1: np, inputs; from cell 2: scores_2".
FROM_CELL = re.compile(r"from cell (\d+): ([\w ,]+)")


def free_names(code: str) -> set[str]:
    """The names ``code`` uses, at any depth, that it neither defines nor imports."""
    top = symtable.symtable(code, "<block>", "exec")
    bound = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported()}
    used: set[str] = set()

    def walk(table: symtable.SymbolTable) -> None:
        for symbol in table.get_symbols():
            if symbol.is_referenced() and (table is top or symbol.is_global()):
                used.add(symbol.get_name())
        for child in table.get_children():
            walk(child)

    walk(top)
    return {name for name in used - bound if not hasattr(builtins, name)}


def defined_names(code: str) -> set[str]:
    """The names ``code`` leaves defined for the blocks after it."""
    top = symtable.symtable(code, "<block>", "exec")
    return {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported()}


def said_sources(code: str) -> dict[str, str]:
    """Name -> the cell a comment of ``code`` says defined it."""
    said = {}
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        if token.type == tokenize.COMMENT:
            for cell, names in FROM_CELL.findall(token.string):
                said |= {name.strip(): cell for name in names.split(",") if name.strip()}
    return said


def unexplained(blocks) -> list[str]:
    """Each name a block uses without importing it or naming the earlier block that defined
    it last, and each name a comment credits to another block, or does not use."""
    found, last = [], {}  # last: name -> the latest cell that defined it
    for code, number, _ in blocks:
        said = said_sources(code)
        for name in sorted(free_names(code)):
            if name not in said:
                found.append(f"cell {number} uses {name} without importing it or naming its cell")
            elif said[name] != last.get(name):
                found.append(
                    f"cell {number} says cell {said[name]} defined {name}; "
                    f"it was {'cell ' + last[name] if name in last else 'no earlier cell'}"
                )
        for name in sorted(set(said) - free_names(code)):
            found.append(f"cell {number}'s comment names {name}, which it does not use")
        last |= dict.fromkeys(defined_names(code), number)
    return found


@pytest.mark.parametrize("page", pages.posts(), ids=lambda p: p.SLUG)
def test_each_block_imports_what_it_uses_or_names_the_cell_that_defined_it(page):
    blocks = page_blocks(prose(page))
    assert blocks
    assert unexplained(blocks) == []


def test_the_check_finds_a_name_from_nowhere_and_a_wrong_cell():
    blocks = [
        ("import numpy as np\nx = np.ones(3)", "1", ""),
        ("# from cell 1: x\ny = x + z", "2", ""),
        ("# from cell 1: y, np\nprint(np.sum(y))", "3", ""),
        ("def f():\n    return np.pi  # from cell 1: np", "4", ""),
        ("x = 2", "5", ""),
        ("# from cell 1: x, y\nprint(x)", "6", ""),
    ]
    assert unexplained(blocks) == [
        "cell 2 uses z without importing it or naming its cell",
        "cell 3 says cell 1 defined y; it was cell 2",
        "cell 6 says cell 1 defined x; it was cell 5",
        "cell 6's comment names y, which it does not use",
    ]
