"""Colour arithmetic the figures share: WCAG's luminance and contrast, and the text colour that
reads on a fill."""

import numpy as np
import pytest

from figurekit.drawing import (
    ACCENT,
    INK,
    MUTED,
    TOKEN_COLORS,
    contrast,
    heatmap_data,
    luminance,
    readout_table_html,
    text_on,
)


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


def test_a_readout_table_has_a_header_for_every_cell_and_tags_each_value():
    html = readout_table_html(
        "cache", ["bytes", "share"], [("MHA", [("mha-b", "2 KiB"), ("mha-s", "100%")])]
    )
    assert '<th scope="col">cache</th><th scope="col">bytes</th><th scope="col">share</th>' in html
    assert '<tr><th scope="row">MHA</th><td data-readout="mha-b">2 KiB</td>' in html
    assert 'role="region" tabindex="0" aria-label="cache"' in html  # scrolls, by keyboard too


def test_every_heatmap_cell_label_reads_on_its_colour():
    """A cell of value v takes the palette's colour at index floor(v * 256) (BokehJS's linear
    mapper over 0..1); its label, black or white by heatmap_data's choice, meets AA there."""
    from layoutkit.plots import HEAT

    assert len(HEAT) == 256
    values = (np.arange(256) + 0.5) / 256  # one value inside each colour's stretch
    data = heatmap_data(values.reshape(16, 16), [""] * 256, low=0.0, high=1.0)
    for index, text in enumerate(data["text_color"]):
        assert contrast(text, HEAT[index]) >= 4.5, (index, HEAT[index], text)
