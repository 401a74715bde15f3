"""No legend covers a plot's data: every legend of every figure sits above its plot, in one
row, with no box of its own (layoutkit/plots.py's ``legend_above``), where neither a bar nor a
line can run under it and the dark scheme has no light box to show; its labels take the page's
text colour, so they can be read in either scheme."""

import pytest
from bokeh.models import Legend

from figures import REGISTRY
from layoutkit.plots import LEGEND_CSS
from tests.figures.test_plot_data import plots_of


@pytest.mark.parametrize("figure_id", sorted(REGISTRY))
def test_every_legend_is_above_its_plot(figure_id):
    for p in plots_of(figure_id):
        inside = [m for m in p.center if isinstance(m, Legend)]
        assert not inside, f"{figure_id}: plot {p.title.text!r} draws its legend over its data"
        for legend in p.above:
            if isinstance(legend, Legend):
                assert legend.background_fill_alpha == 0.0 and legend.border_line_color is None
                assert LEGEND_CSS in legend.stylesheets  # labels in the page's text colour
