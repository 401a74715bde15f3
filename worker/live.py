"""The worker side of a live page (runs in Pyodide only).

The page's Web Worker calls ``start`` once (or, restoring a build-time memory snapshot taken
right after ``start``, calls ``render``), ``link`` when the main thread has rendered the
document, then ``apply`` for every batch of control changes (and ``view_state``,
``apply_view`` and ``reset_view`` for links to a figure's view, figures/viewstate.py, and
``state_code`` for its try-it cell, figures/tryit.py).
Everything the figures change in answer to one batch goes back to the main thread as ONE
patch, so the page re-lays out each figure once per control change rather than once per
property.
"""

import asyncio
import json

from bokeh.events import DocumentReady
from js import Map
from panel.io.pyodide import _convert_json_patch, _dict_converter, _serialize_buffers, init_doc
from panel.io.state import state
from pyodide.ffi import to_js

from figures import module, tryit, viewstate
from figures.tryit import SHOWN
from layoutkit.document import document, serialize, view_of
from worker.patches import apply_patch, encode_events

_built = ""  # the JSON start() returned: a restored snapshot returns it again
_pending: list = []  # document events made by Python since the last flush
_send = None  # the worker's function that posts a patch to the main thread


def start(figure_ids: list[str], dist_url: str) -> str:
    """Build the page's figures into Panel's worker document; return it as JSON."""
    global _built
    init_doc()
    doc = document(list(figure_ids), dist_url, state.curdoc)
    data = _built = json.dumps(serialize(doc))
    # Panel's mock server session is only needed while building; without it, a control
    # change runs the figure's callback at once instead of waiting for a server tick.
    doc._session_context = None
    return data


def render() -> str:
    """What ``start`` returned, for a worker that restored a snapshot taken right after it.

    Nothing has changed the document since, so the JSON made then still describes it.
    """
    return _built


def rehearse(figure_id: str) -> None:
    """Build one of the figures again, off the page, and throw it away.

    A worker that restored a snapshot has run almost no Python yet, so the browser has not
    optimised the interpreter's hot paths: the reader's first changes would take several
    times longer than later ones. Building a figure's widgets and plots and drawing it once
    runs much of the code a change runs (numpy, the core, Panel, Bokeh) without touching the
    page's document.
    """
    shown = dict(SHOWN)
    view_of(figure_id)
    SHOWN.clear()  # the thrown-away build's state is not what the page shows
    SHOWN.update(shown)


def state_code(figure_id: str) -> str:
    """The state figure ``figure_id`` shows now, as the ``state = ...`` lines of its try-it
    cell (figures/tryit.py)."""
    return tryit.state_code(SHOWN[module(figure_id).__name__])


def _collect(event) -> None:
    if getattr(event, "setter", None) == "js":  # changes from the page need no echo
        return
    if not _pending:  # Panel may finish a callback later: flush whatever is left then
        asyncio.get_event_loop().call_soon(_flush)
    _pending.append(event)


def _flush() -> None:
    if not _pending:
        return
    events = _pending.copy()
    _pending.clear()
    patch, buffers = encode_events(state.curdoc, events)
    arrays = {buffer.id: to_js(buffer.to_bytes()).buffer for buffer in buffers}
    patch = _serialize_buffers(patch, buffers=arrays)
    # A plain Map of ArrayBuffers: postMessage cannot clone the proxy to_js returns.
    _send(to_js(patch, dict_converter=_dict_converter), Map.new(to_js(arrays)))


def link(send_patch) -> None:
    """Start forwarding Python's changes to the main thread through ``send_patch``."""
    global _send
    _send = send_patch
    doc = state.curdoc
    # Releasing the hold replays the build's own events (the roots being added): the page
    # already has those from the serialized document, so they are not forwarded.
    doc.unhold()
    doc.on_change(_collect)
    doc.callbacks.trigger_event(DocumentReady())
    _flush()


def apply(patch) -> None:
    """Apply one batch of control changes, run the figures' callbacks, send one patch back."""
    apply_patch(state.curdoc, _convert_json_patch(patch), setter="js")
    _flush()


def view_state(figure_id: str) -> str:
    """Figure ``figure_id``'s controls that differ from its defaults, as JSON key -> text."""
    return json.dumps(viewstate.view(figure_id).encode())


def apply_view(figure_id: str, params_json: str) -> str:
    """Show the view a link describes (JSON key -> text); send what changed as one patch.

    Returns '' or the one-line note saying why the figure shows its defaults instead.
    """
    try:
        note = viewstate.view(figure_id).apply(json.loads(params_json))
    finally:
        _flush()
    return note


def reset_view(figure_id: str) -> None:
    """Put figure ``figure_id`` back to its defaults; send what changed as one patch."""
    try:
        viewstate.view(figure_id).reset()
    finally:
        _flush()
