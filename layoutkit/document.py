"""One Bokeh document per page, holding every figure on it as a root.

``document`` builds it (at build time for the pre-render, in the worker for the live page)
and ``serialize`` turns it into what ``Bokeh.embed.embed_items`` needs, with each root
mapped to its ``<figure>`` slot by figure id rather than by position.
"""

import importlib
import json
from collections.abc import Sequence
from types import ModuleType

import panel as pn
from bokeh.document import Document
from bokeh.embed.util import standalone_docs_json_and_render_items

from figurekit.figure import Figure
from figures import module, viewstate
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
    name = "layouts." + mod.__name__.removeprefix("figures.")
    try:
        layout = importlib.import_module(name)
    except ModuleNotFoundError as err:
        if err.name != name:
            raise
        return mod.view()  # a figure that still builds itself with Panel
    return layout.layout(figure or Figure(figure_id, mod))


def prerender(figure_id: str, dist_url: str) -> dict:
    """Figure ``figure_id``'s pre-render: a document of its own, serialized, with its wiring
    (``layoutkit.wiring.table``): which of its models the reader's worker updates."""
    mod = module(figure_id)
    figure = Figure(figure_id, mod)
    layout = importlib.import_module("layouts." + mod.__name__.removeprefix("figures."))
    view = layout.layout(figure)
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


def document(figure_ids: Sequence[str], dist_url: str, doc: Document | None = None) -> Document:
    """Build every figure into one document; Panel's CSS is linked from ``dist_url``."""
    doc = doc or Document()
    # Panel rewrites its stylesheet links from its CDN to this prefix (self-hosted copy).
    doc._template_variables["dist_url"] = dist_url
    for figure_id in figure_ids:
        view = view_of(figure_id)
        viewstate.track(figure_id, view)  # its defaults, for links to a view of it
        root = view.get_root(doc)
        root.name = figure_id
        doc.add_root(root)
    return doc


def serialize(doc: Document) -> dict:
    """``{"docs_json", "render_items", "roots"}`` for the page script, as plain JSON data."""
    docs_json, render_items = standalone_docs_json_and_render_items(
        doc.roots, suppress_callback_warning=True
    )
    roots = {root.name: root.id for root in doc.roots}
    item = render_items[0].to_json()
    item["roots"] = {root_id: slot_id(name) for name, root_id in roots.items()}
    item["root_ids"] = list(roots.values())
    return {"docs_json": docs_json, "render_items": [item], "roots": roots}


def to_json(data: dict) -> str:
    """JSON that is safe inside a ``<script type="application/json">`` element."""
    return json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
