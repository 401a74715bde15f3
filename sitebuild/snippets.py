"""Code shown on a page is run at build time; its printed output is shown beneath it."""

import ast
import contextlib
import io
import json
import textwrap
import traceback

import numpy as np
from markupsafe import Markup, escape
from pygments import highlight
from pygments.filter import Filter
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer
from pygments.styles import get_style_by_name
from pygments.token import STANDARD_TYPES, Token

from figurekit import tryit
from formatting import ARRAY_PRINT
from sitebuild.checks import BuildError

_FORMATTER = HtmlFormatter(nowrap=True)
# The file name a snippet's code is compiled under, so its frames can be told apart.
SNIPPET = "<page snippet>"


# A Pygments theme per colour scheme; every colour of each reads at WCAG AA (4.5:1) on that
# scheme's code background (a browser test measures it).
CODE_STYLE = "xcode"
DARK_CODE_STYLE = "monokai"


# A block scrolls sideways where its lines are wider than the column (on a phone), so a reader
# without a mouse must be able to focus it to scroll it with the arrow keys; the role and name
# say what the focused block is.
def focusable(name: str) -> str:
    """The attributes of a block a keyboard can focus, named ``name``."""
    return f'tabindex="0" role="group" aria-label="{escape(name)}"'


# The dark theme applies where static/scheme.js chose dark, or, on a page without scripts,
# where the system prefers dark.
_DARK_SCHEME = ':root[data-scheme="dark"] .code'
_DARK_WITHOUT_SCRIPTS = ":root:not([data-scheme]) .code"


def _token_rules(style: str, selector: str) -> str:
    """The theme's rules for the code under ``selector``: its plain text's colour, if it has
    one, and its tokens'; the backgrounds are the site's."""
    rules = HtmlFormatter(style=style).get_style_defs(selector).splitlines()
    plain = f"{selector} {{ color: #{_text_colour(style)} }}"
    return "\n".join([plain] + [rule for rule in rules if rule.startswith(selector + " .")])


def stylesheet() -> str:
    """The CSS for highlighted code in both colour schemes, generated from the two themes."""
    return "\n".join(
        [
            _token_rules(CODE_STYLE, ".code"),
            _token_rules(DARK_CODE_STYLE, _DARK_SCHEME),
            "@media (prefers-color-scheme: dark) {",
            _token_rules(DARK_CODE_STYLE, _DARK_WITHOUT_SCRIPTS),
            "}",
        ]
    )


def _text_colour(style: str) -> str:
    """The colour a theme draws plain text in, as hex digits (one that names none: black)."""
    return get_style_by_name(style).style_for_token(Token.Text)["color"] or "000000"


def _drawn(style: str, ttype) -> dict:
    """How a theme draws tokens of ``ttype``: its colour, the text's if it names none, and the
    rest of its style (weight, slant, background...)."""
    look = dict(get_style_by_name(style).style_for_token(ttype))
    look["color"] = look["color"] or _text_colour(style)
    return look


def _looks_like_text(ttype) -> bool:
    """Whether both themes draw tokens of ``ttype`` as they draw plain text."""
    return all(
        _drawn(style, ttype) == _drawn(style, Token.Text) for style in (CODE_STYLE, DARK_CODE_STYLE)
    )


# The token types both themes draw as plain text (names, punctuation, whitespace): wrapping each
# in an element of its own changes nothing the reader sees, and a page's code is most of its
# elements.
PLAIN = frozenset(ttype for ttype in STANDARD_TYPES if _looks_like_text(ttype))


class _PlainAsText(Filter):
    """Tokens of a PLAIN type, as plain text (which the formatter writes without an element)."""

    def filter(self, lexer, stream):
        for ttype, value in stream:
            yield (Token.Text if ttype in PLAIN else ttype), value


def highlighted(code: str) -> str:
    """Python ``code`` as highlighted HTML: a span for each token the themes colour."""
    lexer = PythonLexer()
    lexer.add_filter(_PlainAsText())
    return highlight(code, lexer, _FORMATTER)


def runner():
    """A function that runs page snippets in one shared namespace, like notebook cells.

    Returns ``run(code) -> Markup`` (also usable as a Jinja call block): the highlighted
    code followed by what it printed.
    A snippet that raises fails the build, so no page shows code that does not run.
    Arrays print by formatting's rule (``ARRAY_PRINT``: four fixed decimals), the digits the
    prose quotes; a page's first snippet sets the same options, so a notebook prints alike.
    Each snippet runs inside the options, which restore the build's own when it ends.
    """
    namespace: dict = {"__name__": "__snippet__"}
    cells: list[str] = []  # the page's snippets so far, numbered from 1 in page order

    def run(code: str = "", caller=None) -> Markup:
        # Used as {% call code() %}...{% endcall %}: the block's text is the code.
        code = textwrap.dedent(str(caller()) if caller else code).strip("\n")
        printed = execute(code, namespace)
        cells.append(code)
        return cell_html(str(len(cells)), code, printed)

    return run


def execute(code: str, namespace: dict) -> str:
    """Run ``code`` in ``namespace``; return what it printed. A failure fails the build."""
    return execute_cell(code, namespace)[0]


def execute_cell(code: str, namespace: dict) -> tuple[str, str | None]:
    """Run ``code`` in ``namespace`` as a notebook runs a cell: return what it printed and the
    repr of its last line's value, if that line is an expression with one (else None). A
    failure fails the build."""
    out = io.StringIO()
    shown = None
    try:
        with contextlib.redirect_stdout(out), np.printoptions(**ARRAY_PRINT):
            tree = ast.parse(code, SNIPPET)
            last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
            exec(compile(tree, SNIPPET, "exec"), namespace)
            if last is not None:
                value = eval(compile(ast.Expression(last.value), SNIPPET, "eval"), namespace)
                shown = None if value is None else repr(value)
    except Exception as err:
        raise BuildError(failure(code, err)) from err
    return out.getvalue().rstrip("\n"), shown


def cell_html(key: str, code: str, printed: str, label: str = "", solo: bool = False) -> Markup:
    """A snippet as the page shows it: the highlighted code and its printed output (hidden when
    it printed nothing). Once the page is live, static/cells.js makes it an editable cell
    (``data-cell``) and reveals its controls, which a page without scripts never shows.
    ``label`` names it for a screen reader ("cell 3"); a ``solo`` cell (an exercise's) runs
    in a namespace of its own instead of the page's."""
    label = label or f"cell {key}"
    output = f'<pre class="code-output" data-cell-output {focusable(f"output of {label}")}'
    output += f"{'' if printed else ' hidden'}>{escape(printed)}</pre>"
    note = f"cell-{key}-note"
    return Markup(
        f'<div class="snippet" data-cell="{key}" data-cell-label="{label}"'
        f"{' data-cell-solo' if solo else ''}>"
        f'<pre class="code" data-cell-code {focusable(f"Python code of {label}")}>'
        f"<code>{highlighted(code)}"
        f"</code></pre>"
        f'<div class="cell-bar" hidden>'
        f'<button type="button" data-cell-run aria-describedby="{note}">Run</button>'
        f'<button type="button" data-cell-stop hidden>Stop</button>'
        f'<button type="button" data-cell-reset hidden>Reset</button>'
        f'<span class="cell-note" id="{note}" role="status"></span>'
        f"</div>{output}</div>"
    )


def exercise_html(exercise) -> Markup:
    """An exercise (pages/exercises.py): its task, its starter code as a cell of its own, Check,
    Hint and Show solution (revealed by static/cells.js once live), the verdict, and the check
    the page runs after the reader's code."""
    key = f"exercise-{exercise.number}"
    title = f"Exercise {exercise.number} · {escape(exercise.title)}"
    solution = highlighted(exercise.solution)
    check = json.dumps(exercise.check_source()).replace("</", "<\\/")
    return Markup(
        f'<section class="exercise" data-exercise="{exercise.number}" '
        f'aria-labelledby="{key}-title">'
        f'<h3 id="{key}-title">{title}</h3><p>{exercise.task}</p>'
        f"{cell_html(key, exercise.starter, '', f'exercise {exercise.number}', solo=True)}"
        f'<div class="exercise-bar" hidden>'
        f'<button type="button" data-exercise-check>Check</button>'
        f'<button type="button" data-exercise-hint aria-expanded="false">Hint</button>'
        f'<button type="button" data-exercise-solution aria-expanded="false">Show solution'
        f"</button></div>"
        f'<p class="exercise-verdict" data-exercise-verdict role="status"></p>'
        f'<p class="exercise-hint" data-exercise-hint-text hidden>{escape(exercise.hint)}</p>'
        f'<pre class="code exercise-solution" data-exercise-solution-code hidden><code>'
        f"{solution}</code></pre>"
        f'<script type="application/json" data-exercise-check-code>{check}</script>'
        f"</section>"
    )


def tryit_html(figure_id: str, mod, number: int) -> Markup:
    """A figure's try-it cell (figurekit/tryit.py), for its source panel: a "Try it" button and,
    revealed by it, a cell of its own with the figure's default state and the function its
    readout comes from; static/cells.js puts the figure's live state in it. "" for a figure
    without one."""
    if not tryit.has_cell(mod):
        return Markup("")
    before, after = tryit.cell_parts(mod)
    code = before + tryit.state_code(tryit.default_state(mod)) + after
    printed = execute(code, {"__name__": "__snippet__"})
    label = f"figure {number}'s try-it cell"
    parts = json.dumps({"before": before, "after": after}).replace("</", "<\\/")
    return Markup(
        f'<div class="tryit" data-tryit="{figure_id}">'
        f'<button type="button" data-tryit-open hidden>Try it: figure {number}\'s readout as '
        f"Python, in its state now</button>"
        f"<div data-tryit-cell hidden>{cell_html(f'tryit-{figure_id}', code, printed, label, True)}"
        f"</div>"
        f'<script type="application/json" data-tryit-parts>{parts}</script></div>'
    )


def failure(code: str, err: Exception) -> str:
    """Which line of a snippet failed and how; the build adds the template's file and line."""
    lines = [f.lineno for f in traceback.extract_tb(err.__traceback__) if f.filename == SNIPPET]
    if isinstance(err, SyntaxError) and err.filename == SNIPPET:
        lines.append(err.lineno)
    at = f" at its line {lines[-1]}" if lines and lines[-1] else ""
    numbered = "\n".join(f"{i:4} | {line}" for i, line in enumerate(code.splitlines(), 1))
    return (
        f"a code snippet failed{at}: {type(err).__name__}: {err}; every snippet on a page runs "
        f"at build time, in order, sharing one namespace:\n{numbered}"
    )


def source_view(path) -> Markup:
    """A file's source, highlighted, for a figure's "view source" panel."""
    code = highlighted(path.read_text())
    return Markup(f'<pre class="code" {focusable("Python code")}><code>{code}</code></pre>')
