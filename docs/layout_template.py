"""The layout of docs/figure_template.py: copy it to ``layouts/my_figure.py``.

The build runs it once, with Panel and Bokeh, to draw the figure for the page; the reader's
browser never does. It makes the widgets for the figure's controls, the plots and the panes,
names each model the figure's ``draw`` sets (its handles), and wires them.
"""

import panel as pn
from bokeh.models import ColumnDataSource

from attention.fixtures import TOKENS
from figurekit.figure import Figure
from layoutkit.frame import frame, pane
from layoutkit.plots import bar_chart
from layoutkit.wiring import widget, wire


def layout(figure: Figure) -> pn.viewable.Viewable:
    """A query picker, one bar chart, the readout."""
    query = figure.controls["query-token"]
    picker, _ = widget(query, query.get(figure.state), width=160)
    bars = ColumnDataSource({"label": [], "weight": [], "color": [], "edge": [], "edge_width": []})
    chart = bar_chart("softmax weights", bars, TOKENS, "weight", "weight")
    readout, message = pane(), pane()
    wire(
        figure, {"query-token": picker}, {}, {"bars": bars, "readout": readout, "message": message}
    )
    return frame([picker], [chart], readout, message)
