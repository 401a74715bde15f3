"""Highlighted code stays readable: every colour in the code stylesheet meets WCAG AA."""

import re
from pathlib import Path

import pytest

from sitebuild.snippets import stylesheet

SITE_CSS = Path(__file__).resolve().parents[2] / "static" / "site.css"
AA = 4.5  # WCAG 2 level AA, normal-size text
# `.code .k { color: #A90D91; font-weight: bold }`: a token class and its declarations.
TOKEN_RULE = re.compile(r"^\.code \.(\w+) \{([^}]*)\}", re.MULTILINE)


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


def code_backgrounds() -> list[str]:
    """The page's background for code (site.css wins) and the theme's own, in case it shows."""
    site = re.search(r"pre\.code \{[^}]*background:\s*(#[0-9A-Fa-f]{3,6})", SITE_CSS.read_text())
    theme = re.search(r"^\.code \{ background:\s*(#[0-9A-Fa-f]{3,6})", stylesheet(), re.MULTILINE)
    return [site.group(1), theme.group(1)]


def token_colours() -> list[tuple[str, str, str | None]]:
    """(token class, colour, its own background or None) for every coloured token rule."""
    rules = []
    for token, body in TOKEN_RULE.findall(stylesheet()):
        colour = declaration(body, "color")
        if colour:
            rules.append((token, colour, declaration(body, "background-color")))
    return rules


def test_contrast_matches_the_wcag_reference_values():
    assert contrast("#000", "#fff") == pytest.approx(21.0)
    assert contrast("#fff", "#fff") == pytest.approx(1.0)
    # #767676 is the lightest grey that passes AA on white; #777777 just fails.
    assert contrast("#767676", "#ffffff") >= AA > contrast("#777777", "#ffffff")


def test_the_stylesheet_colours_the_common_tokens():
    tokens = {token for token, _, _ in token_colours()}
    # Keywords, strings, numbers, comments, namespaces: the parsing found the rules.
    assert {"k", "s", "m", "c", "nn"} <= tokens, tokens


@pytest.mark.parametrize("background", code_backgrounds())
def test_every_token_colour_reads_at_aa_on_the_code_background(background):
    failing = [
        (token, colour, round(contrast(colour, own or background), 2))
        for token, colour, own in token_colours()
        if contrast(colour, own or background) < AA
    ]
    assert failing == []
