"""Colour arithmetic the figures share: WCAG's luminance and contrast, and the text colour that
reads on a fill."""

import pytest

from figurekit.drawing import ACCENT, INK, MUTED, TOKEN_COLORS, contrast, luminance, text_on


def test_luminance_and_contrast_are_wcags():
    assert luminance("#000000") == 0.0 and luminance("#ffffff") == pytest.approx(1.0)
    assert contrast("#ffffff", "#000000") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)  # WCAG's own example


@pytest.mark.parametrize("fill", [*TOKEN_COLORS, INK, MUTED, ACCENT])
def test_text_on_any_figure_fill_meets_aa(fill):
    assert contrast(text_on(fill), fill) >= 4.5, fill


def test_white_on_the_orange_fill_did_not():
    """Why labels choose their colour: white on the second token colour is about 2:1."""
    assert contrast("#ffffff", TOKEN_COLORS[1]) < 3
    assert text_on(TOKEN_COLORS[1]) == "#000000"
