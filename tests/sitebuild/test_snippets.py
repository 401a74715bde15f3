"""Highlighted code stays readable: every colour in the code stylesheet meets WCAG AA, in both
colour schemes, and a token drawn as plain text gets no element of its own."""

import re
from html import unescape
from pathlib import Path

import numpy as np
import pytest
from pygments import highlight
from pygments.lexers import PythonLexer

import build
import pages
from formatting import DECIMALS
from sitebuild import hashed
from sitebuild.snippets import _FORMATTER, highlighted, runner, stylesheet
from tests.pages.render import unhashed

SITE_CSS = Path(__file__).resolve().parents[2] / "static" / "site.css"
AA = 4.5  # WCAG 2 level AA, normal-size text
# The selector each scheme's token rules start with, in the generated stylesheet.
SCHEMES = {"light": ".code", "dark": ':root[data-scheme="dark"] .code'}


def rgb(hex_colour: str) -> tuple[float, float, float]:
    h = hex_colour.lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    return tuple(int(h[i : i + 2], 16) / 255 for i in (0, 2, 4))


def luminance(hex_colour: str) -> float:
    """Relative luminance, as WCAG 2 defines it."""
    r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb(hex_colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def declaration(body: str, prop: str) -> str | None:
    found = re.search(rf"(?:^|;)\s*{prop}:\s*(#[0-9A-Fa-f]{{3,6}})", body)
    return found and found.group(1)


def code_background(scheme: str) -> str:
    """The site's background for code in ``scheme``: site.css's light-dark(light, dark) pair."""
    pair = re.search(
        r"--code-bg:\s*light-dark\((#[0-9A-Fa-f]{3,6}),\s*(#[0-9A-Fa-f]{3,6})\)",
        SITE_CSS.read_text(),
    )
    assert pair, "site.css no longer sets --code-bg as light-dark(light, dark)"
    assert re.search(r"pre\.code \{[^}]*background:\s*var\(--code-bg\)", SITE_CSS.read_text())
    return pair.group(1 if scheme == "light" else 2)


def token_colours(scheme: str) -> list[tuple[str, str, str | None]]:
    """(token class, colour, its own background or None) for every coloured token rule."""
    rule = re.compile(rf"^{re.escape(SCHEMES[scheme])} \.(\w+) \{{([^}}]*)\}}", re.MULTILINE)
    rules = []
    for token, body in rule.findall(stylesheet()):
        colour = declaration(body, "color")
        if colour:
            rules.append((token, colour, declaration(body, "background-color")))
    return rules


def code_colour(scheme: str) -> str:
    """The colour of the code's plain text in ``scheme``, from the stylesheet."""
    rule = rf"^{re.escape(SCHEMES[scheme])} \{{ color: (#[0-9A-Fa-f]{{3,6}}) \}}"
    found = re.search(rule, stylesheet(), re.M)
    assert found, f"the stylesheet gives the code no colour of its own in {scheme}"
    return found.group(1)


def drawn(html: str, scheme: str) -> list[tuple[str, tuple]]:
    """(character, colour) for each character of highlighted code, as the stylesheet colours
    it in ``scheme``: its token's colour, or the code's own where its token has none."""
    colours = {token: colour for token, colour, _ in token_colours(scheme)}
    plain = code_colour(scheme)
    out = []
    for token, inside, bare in re.findall(r'<span class="(\w+)">([^<]*)</span>|([^<]+)', html):
        colour = rgb(colours.get(token, plain))
        out += [(char, colour) for char in unescape(inside or bare)]
    return out


def test_code_drawn_as_plain_text_looks_the_same_without_its_elements():
    code = (Path(__file__).resolve().parents[2] / "figures" / "kv_cache.py").read_text()
    every_token = highlight(code, PythonLexer(), _FORMATTER)
    fewer = highlighted(code)
    assert fewer.count("<span") < every_token.count("<span") / 2
    for scheme in SCHEMES:
        before, after = drawn(every_token, scheme), drawn(fewer, scheme)
        assert [c for c, _ in after] == [c for c, _ in before]  # the same code
        assert [x for x in after if not x[0].isspace()] == [x for x in before if not x[0].isspace()]
    # Names, punctuation and whitespace are drawn as the code's text in both themes.
    assert not re.search(r'<span class="(n|p|w)">', fewer)


def test_contrast_matches_the_wcag_reference_values():
    assert contrast("#000", "#fff") == pytest.approx(21.0)
    assert contrast("#fff", "#fff") == pytest.approx(1.0)
    # #767676 is the lightest grey that passes AA on white; #777777 just fails.
    assert contrast("#767676", "#ffffff") >= AA > contrast("#777777", "#ffffff")


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_stylesheet_colours_the_common_tokens(scheme):
    tokens = {token for token, _, _ in token_colours(scheme)}
    # Keywords, strings, numbers, comments, namespaces: the parsing found the rules.
    assert {"k", "s", "m", "c", "nn"} <= tokens, tokens


@pytest.mark.parametrize("scheme", SCHEMES)
def test_every_token_colour_reads_at_aa_on_the_code_background(scheme):
    background = code_background(scheme)
    failing = [
        (token, colour, round(contrast(colour, own or background), 2))
        for token, colour, own in token_colours(scheme)
        if contrast(colour, own or background) < AA
    ]
    assert failing == []


# --- what a snippet prints follows the page's rule for numbers --------------------------------

# A snippet that prints wider on purpose says so in a comment: "# full precision" (float64's
# last digits are the point) or "# N decimals" (the prose quotes that many); nothing else may
# print more than formatting's DECIMALS.
FULL_PRECISION = "# full precision"
WIDER = re.compile(r"#.*?\b(\d+) decimals\b")
# A printed float: its decimals (a mantissa's, in scientific notation).
FLOAT = re.compile(r"(?<![\w.])[-+]?\d+\.(\d+)(?:e[-+]?\d+)?")
# A snippet the build ran (sitebuild.snippets.cell_html; not an exercise's starter, a cell of
# its own): its code, its cell's controls, its output.
SNIPPET = re.compile(
    r'<div class="snippet"(?![^>]*data-cell-solo)[^>]*>'
    r'<pre class="code"[^>]*><code>(.*?)</code></pre><div class="cell-bar".*?</div>'
    r'<pre class="code-output"[^>]*>(.*?)</pre></div>',
    re.S,
)


def snippets(html: str) -> list[tuple[str, str]]:
    """(code, printed output) of every snippet in a rendered page, as plain text."""
    text = [(re.sub(r"<[^>]+>", "", code), out or "") for code, out in SNIPPET.findall(html)]
    return [(unescape(code), unescape(out)) for code, out in text]


def allowed_decimals(code: str) -> float:
    if FULL_PRECISION in code:
        return float("inf")
    return max([DECIMALS, *(int(n) for n in WIDER.findall(code))])


def too_precise(code: str, printed: str) -> list[str]:
    """The numbers ``printed`` shows with more decimals than ``code`` is allowed."""
    limit = allowed_decimals(code)
    return [m.group(0) for m in FLOAT.finditer(printed) if len(m.group(1)) > limit]


@pytest.fixture(scope="module")
def rendered() -> dict[str, str]:
    """Every page's prose with its snippets run, as the build renders it (no figures drawn)."""
    env = build.environment(build.ROOT / "templates")
    env.globals["asset"] = hashed.urls(unhashed(), "/")
    return {page.SLUG or "index": build.render_prose(env, page, "/")[0] for page in pages.posts()}


def test_every_page_with_code_is_checked(rendered):
    with_code = {slug for slug, html in rendered.items() if snippets(html)}
    assert len(with_code) == len(pages.posts()), with_code
    assert all(out for html in rendered.values() for _, out in snippets(html))


@pytest.mark.parametrize("page", [p.SLUG for p in pages.posts()])
def test_no_snippet_prints_more_decimals_than_the_rule(rendered, page):
    for code, printed in snippets(rendered[page]):
        assert too_precise(code, printed) == [], f"{page}: {code}\nprinted:\n{printed}"


def ragged_rows(printed: str) -> list[str]:
    """Printed rows of numbers (``[...]``) whose floats do not all show the same decimals, as
    numpy's default prints them: ``[0.9544 1.495 1.4754]`` for the prose's 1.4950."""
    rows = re.findall(r"\[[^\[\]]*\]", printed)
    return [r for r in rows if len({len(m.group(1)) for m in FLOAT.finditer(r)}) > 1]


@pytest.mark.parametrize("page", [p.SLUG for p in pages.posts()])
def test_every_printed_row_has_fixed_decimals(rendered, page):
    for code, printed in snippets(rendered[page]):
        assert ragged_rows(printed) == [], f"{page}: {code}\nprinted:\n{printed}"


def test_a_ragged_row_is_found():
    assert ragged_rows("scores [0.9544 1.495  1.4754]\n[2.56  2.564]") == [
        "[0.9544 1.495  1.4754]",
        "[2.56  2.564]",
    ]
    assert ragged_rows("[0.9544 1.4950] [0.43, 0.15] [1, 2, 4] [nan nan]") == []


def test_a_wider_snippet_says_so():
    """The exceptions on the pages: rotary's shifted score (float64 rounding in the last
    digits) and post 1's weight asymmetry, which the prose quotes to six decimals."""
    assert too_precise("print(x)", "4.148107581103837 8.9e-14 0.0877") == ["4.148107581103837"]
    assert too_precise("print(x)  # full precision", "4.148107581103837") == []
    assert too_precise("# 6 decimals\nprint(x)", "0.087657 0.0876571") == ["0.0876571"]
    assert too_precise("print(x)", "1.1e-16 [0.9544 1.4950] 1.00000e+3") == ["1.00000e+3"]


def test_arrays_print_the_prose_digits_and_the_build_keeps_its_own():
    before = np.get_printoptions()
    run = runner()
    shown = run("import numpy as np\nprint(np.array([1 / 3, 1.0, 0.074, 1e-17]))")
    assert "[0.3333 1.0000 0.0740 0.0000]" in shown
    run("np.set_printoptions(precision=8)")  # a snippet's own options end with it
    assert np.get_printoptions() == before
    assert "[0.3333]" in run("print(np.array([1 / 3]))")
    # A float64 scalar prints every digit whatever the options: snippets print it through
    # formatting, and the check above catches one that does not.
    printed = run("print(np.float64(0.1) + 0.2)")
    assert "0.30000000000000004" in printed and too_precise("", "0.30000000000000004")
