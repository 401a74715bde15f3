"""A figure's "try it" cell: the state the figure shows and the function its readout comes
from, as Python a reader can run and change.

A figure that has a ``State`` and a pure ``readouts(state)`` gets one. The build writes the
cell around the figure's default state (``cell_parts``, which reads the function's source);
once the page is live, the worker gives the state the figure shows now (``state_code``, of
its ``Figure.shown``), and the page puts it between the parts.
"""

import builtins
import inspect
import pprint
import sys
import textwrap
from types import CodeType, ModuleType

# The cell's lines fit this many characters where the build writes them: the editor shows about
# as many without scrolling.
WIDTH = 76

# The cell's last lines: the readout as the figure prints it, a row per line.
PRINT_READOUTS = """
for key, label, text in readouts(state):
    print(f"{label}: {text}")
"""


def has_cell(mod: ModuleType) -> bool:
    """Whether figure module ``mod`` gets a try-it cell: it has a State and readouts(state)."""
    return hasattr(mod, "State") and callable(getattr(mod, "readouts", None))


def default_state(mod: ModuleType) -> tuple:
    """The state figure module ``mod`` draws first."""
    return mod.DEFAULT


def state_code(state: tuple) -> str:
    """A figure's state as an assignment, a field per line, a long one over several lines:
    ``State(query='journey', ...)`` -> ``"state = State(\\n    query='journey',\\n ...)\\n"``."""
    fields = ""
    for name, value in state._asdict().items():
        indent = " " * (4 + len(name) + 1)  # under the field's value
        text = pprint.pformat(value, width=WIDTH - len(indent) - 1, compact=True)
        text = text.replace("\n", "\n" + indent)
        fields += f"    {name}={text},\n"
    return f"state = {type(state).__name__}(\n{fields})\n"


def _global_names(code: CodeType) -> set[str]:
    """The names a function's code (and the code nested in it) may look up as globals."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, CodeType):
            names |= _global_names(const)
    return names


def _import_lines(mod: ModuleType, names: list[str]) -> list[str]:
    """Import each name from where it is defined: ``from attention.basics import softmax``,
    a module as ``import numpy as np``; constants and the figure's helpers from its module."""
    sources: dict[str, list[str]] = {}
    lines = []
    for name in names:
        value = vars(mod)[name]
        if inspect.ismodule(value):
            alias = "" if value.__name__ == name else f" as {name}"
            lines.append(f"import {value.__name__}{alias}")
            continue
        home = getattr(value, "__module__", None)
        defined_there = home in sys.modules and getattr(sys.modules[home], name, None) is value
        sources.setdefault(home if defined_there else mod.__name__, []).append(name)
    lines += [f"from {home} import {', '.join(sorted(n))}" for home, n in sorted(sources.items())]
    return lines


def cell_parts(mod: ModuleType) -> tuple[str, str]:
    """The try-it cell's code before and after its ``state = ...`` lines (build time: reads
    the source of ``mod.readouts``)."""
    if not has_cell(mod):
        raise ValueError(f"{mod.__name__} has no State and readouts(state) for a try-it cell")
    used = {"State"} | {
        n
        for n in _global_names(mod.readouts.__code__)
        if n in vars(mod) and n != "readouts" and not hasattr(builtins, n)
    }
    why = (
        f"{mod.TITLE}: the state the figure shows, and the function its readout comes from."
        " Change either and run the cell; the figure's full source is above."
    )
    comment = textwrap.fill(why, WIDTH, initial_indent="# ", subsequent_indent="# ")
    before = comment + "\n" + "\n".join(_import_lines(mod, sorted(used))) + "\n\n"
    after = "\n\n" + inspect.getsource(mod.readouts) + PRINT_READOUTS
    return before, after
