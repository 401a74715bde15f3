"""The worker side of a live page (runs in Pyodide only).

The page's Web Worker calls ``start`` once, then ``link`` when the main thread has
rendered the document, then ``apply`` for every batch of control changes.
"""

import json

from panel.io.pyodide import _convert_json_patch, _link_docs_worker, init_doc
from panel.io.state import state

from figures.page import document, serialize


def start(figure_ids: list[str], dist_url: str) -> str:
    """Build the page's figures into Panel's worker document; return it as JSON."""
    init_doc()
    doc = document(list(figure_ids), dist_url, state.curdoc)
    data = json.dumps(serialize(doc))
    # Panel's mock server session is only needed while building; without it, a control
    # change runs the figure's callback at once instead of waiting for a server tick.
    doc._session_context = None
    return data


def link(send_patch) -> None:
    """Forward every change made in Python to the main thread through ``send_patch``."""
    _link_docs_worker(state.curdoc, send_patch, setter="js")


def apply(patch) -> None:
    """Apply a patch of control changes from the main thread (runs the figures' callbacks)."""
    state.curdoc.apply_json_patch(_convert_json_patch(patch), setter="js")
