"""Which of KaTeX's fonts a page's math is drawn in, from KaTeX's own stylesheet."""

import pytest

from sitebuild import mathtex

FACES = "".join(
    f"@font-face{{font-family:KaTeX_{family};font-style:{style};font-weight:{weight};"
    f'src:url(fonts/KaTeX_{file}.woff2) format("woff2"),url(fonts/KaTeX_{file}.woff)}}'
    for family, style, weight, file in [
        ("Main", "normal", "400", "Main-Regular"),
        ("Main", "normal", "700", "Main-Bold"),
        ("Math", "italic", "400", "Math-Italic"),
        ("Size1", "normal", "400", "Size1-Regular"),
        ("Fraktur", "normal", "400", "Fraktur-Regular"),
    ]
)
RULES = (
    ".katex{font:normal 1.21em KaTeX_Main,Times New Roman,serif}"
    ".katex .mathnormal{font-family:KaTeX_Math;font-style:italic}"
    ".katex .mathbf{font-family:KaTeX_Main;font-weight:700}"
    ".katex .mathfrak,.katex .textfrak{font-family:KaTeX_Fraktur}"
    ".katex .delimsizing.size1{font-family:KaTeX_Size1}"
    ".katex .delimsizing.mult .delim-size1>span{font-family:KaTeX_Size1}"
)
CSS = FACES + RULES


def test_a_display_equation_is_a_named_box_a_keyboard_can_focus():
    markup = '<span class="katex-display"><span class="katex">x</span></span>'
    assert mathtex.keyboard_scrollable(markup) == (
        '<span class="katex-display" tabindex="0" role="group" aria-label="Equation">'
        '<span class="katex">x</span></span>'
    )
    with pytest.raises(ValueError, match="display markup"):
        mathtex.keyboard_scrollable('<span class="katex">x</span>')


def test_math_is_drawn_in_main_and_in_the_fonts_its_classes_name():
    html = (
        '<span class="katex"><span class="mord mathnormal">x</span>'
        '<span class="mopen delimsizing size1">(</span><span class="mord mathbf">W</span></span>'
    )
    assert mathtex.fonts_used(html, CSS) == [
        "fonts/KaTeX_Main-Bold.woff2",
        "fonts/KaTeX_Main-Regular.woff2",
        "fonts/KaTeX_Math-Italic.woff2",
        "fonts/KaTeX_Size1-Regular.woff2",
    ]


def test_a_rule_applies_only_where_all_its_classes_meet():
    html = '<span class="katex"><span class="delimsizing">(</span><i class="size1"></i></span>'
    assert mathtex.fonts_used(html, CSS) == ["fonts/KaTeX_Main-Regular.woff2"]


def test_a_page_without_math_needs_no_font():
    assert mathtex.fonts_used('<p class="mathnormal">not math</p>', CSS) == []
