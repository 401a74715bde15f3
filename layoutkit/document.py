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


def view_of(figure_id: str) -> pn.viewable.Viewable:
    """Figure ``figure_id``'s layout (``layouts/<its module>.py``), showing its default state
    (and live while Panel runs it)."""
    return layout_of(figure_id, module(figure_id))


def layout_of(figure_id: str, mod: ModuleType) -> pn.viewable.Viewable:
    """The layout of figure ``figure_id``, whose module is ``mod``."""
    name = "layouts." + mod.__name__.removeprefix("figures.")
    try:
        layout = importlib.import_module(name)
    except ModuleNotFoundError as err:
        if err.name != name:
            raise
        return mod.view()  # a figure that still builds itself with Panel
    return layout.layout(Figure(figure_id, mod))


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
