"""Highlighted code stays readable: every colour in the code stylesheet meets WCAG AA, in both
colour schemes."""

import re
from pathlib import Path

import pytest

from sitebuild.snippets import stylesheet

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
