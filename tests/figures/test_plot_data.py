"""Every plot declares its data for the table a screen reader reads (layoutkit/plots.py's
``data_table`` and ``data_grid``; static/plot-tables.js draws the tables)."""

import json

import pytest
from bokeh.models import ColumnDataSource
from bokeh.plotting import figure

from figures import REGISTRY
from layoutkit.document import view_of
from layoutkit.plots import DATA_TAG, FORMATS, data_grid, data_table, plot


def data_spec(p: figure) -> dict | None:
    """The data declaration tagged on plot ``p``, or None."""
    tags = [t for t in p.tags if isinstance(t, str) and t.startswith(DATA_TAG)]
    assert len(tags) <= 1, f"{p.title.text!r} declares its data twice"
    return json.loads(tags[0][len(DATA_TAG) :]) if tags else None


def plots_of(figure_id: str) -> list[figure]:
    view = view_of(figure_id)
    return [m for m in view.get_root().references() if isinstance(m, figure)]


def table_rows(p: figure) -> int:
    """How many rows the plot's table has, as a11y.js counts them."""
    spec = data_spec(p)
    data = p.renderers[spec["renderer"]].data_source.data
    if "grid" in spec:
        return len(spec["rows"])
    return max(len(data[field]) for field, _, _ in spec["columns"])


@pytest.mark.parametrize("figure_id", sorted(REGISTRY))
def test_every_plot_declares_columns_its_source_has(figure_id):
    for p in plots_of(figure_id):
        spec = data_spec(p)
        assert spec is not None, f"{figure_id}: plot {p.title.text!r} declares no data"
        data = p.renderers[spec["renderer"]].data_source.data
        if "grid" in spec:
            assert spec["format"] in FORMATS
            assert len(data[spec["grid"]]) == len(spec["rows"]) * len(spec["cols"])
            assert spec["corner"].strip()
            continue
        for field, header, fmt in spec["columns"]:
            assert field in data, f"{figure_id}: {p.title.text!r} has no column {field!r}"
            assert header.strip() and fmt in FORMATS
        lengths = {len(data[field]) for field, _, _ in spec["columns"]}
        assert len(lengths) == 1, f"{figure_id}: {p.title.text!r}'s columns differ in length"
        if not spec.get("empty"):  # a plot of a measurement is empty until it is taken
            assert table_rows(p) > 0, f"{figure_id}: {p.title.text!r} has an empty table"
        if "rows" in spec:
            assert len(spec["rows"]) == lengths.pop() and spec["row_header"].strip()


def test_a_declaration_names_a_source_the_plot_draws_and_a_known_format():
    p = plot("p")
    drawn, other = ColumnDataSource({"x": [1], "y": [2]}), ColumnDataSource({"x": []})
    p.scatter(x="x", y="y", source=drawn)
    with pytest.raises(ValueError, match="draws nothing"):
        data_table(p, other, [("x", "x", "num")])
    with pytest.raises(ValueError, match="unknown format"):
        data_table(p, drawn, [("x", "x", "fancy")])
    data_table(p, drawn, [("x", "x", "int")])
    data_grid(p, drawn, ["a"], ["b"], "a \\ b", field="y")
    assert data_spec(p)["grid"] == "y"  # the later declaration replaces the earlier
