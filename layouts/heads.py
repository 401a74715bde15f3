"""The heads figure's layout: three size boxes and two presets; the stripes of W_query, its
legend, the readout and the shape trace."""

import panel as pn
from bokeh.models import ColumnDataSource, Range1d

from figurekit.drawing import INK
from figurekit.figure import Figure
from layoutkit.frame import frame, pane
from layoutkit.plots import data_table, integer_ticker, note, plot, stacked
from layoutkit.wiring import action_button, widget, wire

SIZE = {"width": 110}  # each size box


def _stripe_plot(
    image: ColumnDataSource,
    bounds: ColumnDataSource,
    labels: ColumnDataSource,
    split: ColumnDataSource,
):
    p = plot("W_query, columns coloured by head", height=220)
    p.x_range, p.y_range = Range1d(0, 1), Range1d(0, 1)
    p.image_rgba(image="image", x=0, y=0, dw="dw", dh="dh", source=image)
    p.segment(x0="x", x1="x", y0=0, y1="top", source=bounds, color=INK, line_width=1)
    p.text(
        x="x",
        y="y",
        text="text",
        source=labels,
        text_align="center",
        text_baseline="bottom",
        text_font_size="11px",
        text_color=INK,
    )
    # The stripes' data table: each head's columns. The colours show it; this renderer, never
    # drawn, carries it to the page for a screen reader.
    p.scatter(x="first", y=0, source=split, visible=False)
    columns = [("first", "first column", "int"), ("last", "last column", "int")]
    data_table(p, split, [("head", "head", "text"), *columns])
    p.xaxis.axis_label = "output column (d_out)"
    p.yaxis.axis_label = "input row (d_in)"
    p.xaxis.ticker = integer_ticker()
    p.yaxis.visible = False
    p.grid.visible = False
    return p


def layout(figure: Figure) -> pn.viewable.Viewable:
    """Three sizes and two presets; stripes, shape trace, the two classes."""
    widgets = {key: widget(c, c.get(figure.state), **SIZE)[0] for key, c in figure.controls.items()}
    actions = {key: action_button(a) for key, a in figure.actions.items()}
    image = ColumnDataSource({"image": [], "dw": [], "dh": []})
    bounds = ColumnDataSource({"x": [], "top": []})
    labels = ColumnDataSource({"x": [], "y": [], "text": []})
    split = ColumnDataSource({"head": [], "first": [], "last": []})
    stripe_plot = _stripe_plot(image, bounds, labels, split)
    readout, shapes, message = pane(), pane(), pane()
    legend = note("")
    handles = {
        "image": image,
        "stripes.x_range": stripe_plot.x_range,
        "stripes.y_range": stripe_plot.y_range,
        "bounds": bounds,
        "labels": labels,
        "split": split,
        "legend": legend,
        "readout": readout,
        "shapes": shapes,
        "message": message,
    }
    wire(figure, widgets, actions, handles)
    shape_note = note("<b>Shape trace</b> of the split class, batch of two:")
    return frame(
        [*widgets.values(), *actions.values()],
        [stripe_plot],
        stacked(legend, readout, shape_note, shapes),
        message,
    )
