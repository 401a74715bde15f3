"""The reader's code cells, on the worker side (runs in the cells' own Pyodide; see
static/cells.js and the cell-run message in static/worker.js).

A cell runs like a notebook's: in a namespace it shares with the cells named alike, printing
what it prints and the value of its last expression. Whatever it does, the page's Python goes
on: output past a limit is cut (a print loop must not fill the memory), an error shows only
the frames of the reader's code, and ``sys.exit`` or ``os._exit`` ends the cell, not Python.
"""

import ast
import contextlib
import io
import linecache
import os
import traceback

LIMIT = 20_000  # characters of output a cell may print
CELL_FILE = "<cell"  # the start of each cell's file name, "<cell 3>"
_namespaces: dict[str, dict] = {}  # name -> the globals of the cells that share it


class OutputFlood(BaseException):
    """Raised inside the cell when it prints past LIMIT. A BaseException, so that the reader's
    ``except Exception`` does not swallow it."""


class Output(io.TextIOBase):
    """A cell's stdout and stderr, up to LIMIT characters."""

    def __init__(self):
        self.parts: list[str] = []
        self.size = 0

    def write(self, text: str) -> int:
        room = LIMIT - self.size
        if len(text) > room:
            self.parts.append(text[:room])
            self.size = LIMIT
            raise OutputFlood
        self.parts.append(text)
        self.size += len(text)
        return len(text)

    def text(self) -> str:
        return "".join(self.parts).rstrip("\n")


def _exit(status: int = 0):
    raise SystemExit(status)


def short_error(err: BaseException) -> str:
    """The exception as Python prints it, with only the reader's frames, and what to do for the
    errors a browser's Python adds."""
    frames = [
        f for f in traceback.extract_tb(err.__traceback__) if f.filename.startswith(CELL_FILE)
    ]
    head = (
        ["Traceback (most recent call last):\n", *traceback.format_list(frames)] if frames else []
    )
    text = "".join(head + traceback.format_exception_only(type(err), err))
    if isinstance(err, MemoryError) or "Maximum allowed dimension" in str(err):
        # numpy on 32-bit WebAssembly refuses a 10 GB array with a ValueError.
        text += (
            "\nMemoryError: too much memory. Python here runs in your browser, in 32-bit "
            "WebAssembly: at most 4 GB in all, and one array at most 2 GB.\n"
        )
    if isinstance(err, SystemExit):
        text = (
            f"SystemExit: the cell asked Python to exit ({err.code}); the page's Python goes on.\n"
        )
    return text.rstrip("\n")


def run_cell(code: str, name: str, key: str, fresh: bool) -> tuple[str, str]:
    """Run ``code`` (file name ``name``) in namespace ``key``, emptied first if ``fresh``;
    return (what it printed and its last expression's value, the short error or "")."""
    if fresh or key not in _namespaces:
        _namespaces[key] = {"__name__": "__main__"}
    namespace = _namespaces[key]
    linecache.cache[name] = (len(code), None, code.splitlines(True), name)
    out, error = Output(), ""
    os._exit = _exit  # this Python runs only cells (its worker's): a later call is a cell's too
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            tree = ast.parse(code, name)
            last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
            exec(compile(tree, name, "exec"), namespace)
            if last is not None:
                value = eval(compile(ast.Expression(last.value), name, "eval"), namespace)
                if value is not None:
                    print(repr(value))
    except OutputFlood:
        out.parts.append(f"\n... output cut: a cell may print {LIMIT:,} characters")
    except BaseException as err:
        error = short_error(err)
    return out.text(), error
