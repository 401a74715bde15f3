"""A figure's pre-render: its layout, built at build time into a Bokeh document of its own.

``prerender`` serializes it as BokehJS takes it (static/page/drawing.js draws it into the
figure's ``<figure>`` slot), with the wiring the reader's worker updates it through;
``view_of`` builds a layout alone (tests, the benchmark's ``panel convert`` baseline).
"""

import importlib
from types import ModuleType

import panel as pn
from bokeh.document import Document
from bokeh.embed.util import standalone_docs_json_and_render_items

from figurekit.figure import Figure
from figures import module
from layoutkit.wiring import table


def view_of(figure_id: str) -> pn.viewable.Viewable:
    """Figure ``figure_id``'s layout (``layouts/<its module>.py``), showing its default state
    (and live while Panel runs it)."""
    return layout_of(figure_id, module(figure_id))


def layout_of(
    figure_id: str, mod: ModuleType, figure: Figure | None = None
) -> pn.viewable.Viewable:
    """The layout of figure ``figure_id``, whose module is ``mod``, showing ``figure``'s state
    (a new figure's, at its defaults, if None)."""
    layout = importlib.import_module("layouts." + mod.__name__.removeprefix("figures."))
    return layout.layout(figure or Figure(figure_id, mod))


def prerender(figure_id: str, dist_url: str) -> dict:
    """Figure ``figure_id``'s pre-render: a document of its own, serialized, with its wiring
    (``layoutkit.wiring.table``): which of its models the reader's worker updates."""
    figure = Figure(figure_id, module(figure_id))
    view = layout_of(figure_id, figure.mod, figure)
    doc = Document()
    # Panel rewrites its stylesheet links from its CDN to this prefix (self-hosted copy).
    doc._template_variables["dist_url"] = dist_url
    root = view.get_root(doc)
    root.name = figure_id
    doc.add_root(root)
    return {**serialize(doc), "wiring": table(figure, root)}


def slot_id(figure_id: str) -> str:
    """The id of the element a figure's root is rendered into."""
    return f"fig-{figure_id}"


def serialize(doc: Document) -> dict:
    """``{"docs_json", "roots"}`` for the page script, as plain JSON data: the document as
    BokehJS's ``Document.from_json`` takes it (by its id), and its roots' ids by figure."""
    docs_json, _ = standalone_docs_json_and_render_items(doc.roots, suppress_callback_warning=True)
    return {"docs_json": docs_json, "roots": {root.name: root.id for root in doc.roots}}
