"""The page's figures in its Web Worker: numpy and the project only (no Panel, no Bokeh).

The page drew each figure at build time (its pre-render) and keeps those models as the live
figures; here, each figure is its ``figurekit.figure.Figure``: the reader's change to a
control comes in as the value the control's Bokeh model now holds, the figure draws the new
state with numpy, and what changed goes back as new values for models the page has, by id.
The page says which model is which once, with ``connect`` (the wiring the build recorded:
``layoutkit.document.wiring``).

static/worker.js calls ``start`` once (or, restoring the build's memory snapshot taken right
after ``start``, nothing), ``connect`` when the page shows its figures, ``whole`` for each
figure the page has drawn (then, or later as the reader nears it), ``change`` and ``act`` for
the reader's changes, ``view_state``, ``apply_view`` and ``reset_view`` for links to a
figure's view, ``state_code`` for its try-it cell and ``rehearse`` to warm up. Those that
answer with the page's updates give model id -> {property: value}, with a data source's
changed columns under ``data``.
"""

import json
import sys
from collections.abc import Callable, Iterator, Mapping
from html import escape
from typing import Any

import numpy as np

from figurekit import tryit
from figurekit.controls import Choice, Clicks, Control, Number, Slider, Switch
from figurekit.drawing import Drawing
from figurekit.figure import CONTROL, Figure
from figures import module

FIGURES: dict[str, Figure] = {}  # figure id -> the figure, as the page shows it
WIRING: dict[str, dict] = {}  # figure id -> its models on the page (layoutkit.document.wiring)


def start(figure_ids: list[str]) -> None:
    """Make the figures and draw each once at its defaults, as the pre-render shows them."""
    for figure_id in figure_ids:
        figure = Figure(figure_id, module(figure_id))
        figure.draw()
        FIGURES[figure_id] = figure


# The project's own packages, whose functools caches ``forget_caches`` empties.
PROJECT = ("attention", "figures", "figurekit", "formatting")


def project_caches() -> Iterator[Callable]:
    """Every function the project's modules cache (``functools.lru_cache``)."""
    for name, mod in list(sys.modules.items()):
        if name.split(".")[0] in PROJECT:
            for value in vars(mod).values():
                if getattr(value, "__module__", None) == name and hasattr(value, "cache_clear"):
                    yield value


def forget_caches() -> None:
    """Empty every cache the project's modules keep, before the build saves the heap: some hold
    draws of random numbers, which a saved heap cannot compress, and each takes milliseconds to
    fill again, on the first change or the warm-up (``rehearse``)."""
    for cached in project_caches():
        cached.cache_clear()


def has_figure(figure_id: str) -> bool:
    """Whether this worker has figure ``figure_id`` (a restored heap has the figures the build
    drew; a page naming one it lacks starts the ordinary way, which says what is wrong)."""
    return figure_id in FIGURES


def connect(wiring_json: str) -> None:
    """The page's figures and their models (JSON: figure id -> wiring); others are dropped."""
    WIRING.clear()
    WIRING.update(json.loads(wiring_json))
    for figure_id in [f for f in FIGURES if f not in WIRING]:
        del FIGURES[figure_id]
    if missing := [f for f in WIRING if f not in FIGURES]:
        start(missing)


def whole(figure_id: str) -> dict[str, dict]:
    """Figure ``figure_id``'s whole drawing as it stands, as the page's updates: model id ->
    {property: value}, for every model it draws.

    The page asks once the figure is drawn on it (as it goes live, or later, as the reader
    nears it): the page shows the build's numbers and this numpy may round a float's last bit
    otherwise, and the figure may have moved since (a link's view), so the page takes the
    values that differ, and later changes and a Reset never show digits it did not show before.
    """
    return updates(figure_id, FIGURES[figure_id].sent)


def decode(control: Control, wired: Mapping[str, Any], raw: Any):
    """The value control ``control`` holds when its model's property is ``raw``."""
    if isinstance(control, Choice):
        return control.values[wired["raws"].index(raw)]
    if isinstance(control, Clicks):
        return control.first + int(raw)
    if isinstance(control, Switch):
        return bool(raw)
    if isinstance(control, Slider) or (isinstance(control, Number) and raw is not None):
        whole = control.whole
        return int(raw) if whole else float(raw)
    return raw


def encode(control: Control, wired: Mapping[str, Any], value: Any):
    """The property value of control ``control``'s model that shows ``value``."""
    if isinstance(control, Choice):
        return wired["raws"][control.values.index(value)]
    if isinstance(control, Clicks):
        return value - control.first
    return value


def _plain(value: Any) -> Any:
    """``value`` as the page takes it: tuples and 1-D arrays as lists; an array of more
    dimensions (an image) as {"ndarray": its values in order, "dtype", "shape"}, which the page
    turns back into the array BokehJS draws an image from."""
    if isinstance(value, np.ndarray) and value.ndim > 1:
        return {
            "ndarray": value.ravel().tolist(),
            "dtype": value.dtype.name,
            "shape": list(value.shape),
        }
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    return value


def updates(figure_id: str, drawing: Drawing) -> dict[str, dict]:
    """A figure's drawing as the page's updates: model id -> {property: value}."""
    wiring, figure = WIRING[figure_id], FIGURES[figure_id]
    out: dict[str, dict] = {}
    for handle, props in drawing.items():
        if handle.startswith(CONTROL):
            key = handle[len(CONTROL) :]
            wired = wiring["controls"][key]  # a button's "clicks": the page keeps its count
            out.setdefault(wired["id"], {})[wired["prop"]] = _plain(
                encode(figure.controls[key], wired, props["value"])
            )
            continue
        model_id, kind = wiring["handles"][handle]
        for prop, value in props.items():
            if kind == "html" and prop == "object":
                out.setdefault(model_id, {})["text"] = escape(value)
            else:
                out.setdefault(model_id, {})[prop] = _plain(value)
    return out


def change(figure_id: str, key: str, raw: Any) -> dict[str, dict]:
    """The reader set control ``key`` of figure ``figure_id``; its model now holds ``raw``."""
    figure = FIGURES[figure_id]
    control = figure.controls[key]
    value = decode(control, WIRING[figure_id]["controls"][key], raw)
    return updates(figure_id, figure.change(key, value))


def act(figure_id: str, key: str) -> dict[str, dict]:
    """The reader pressed action button ``key`` of figure ``figure_id``."""
    return updates(figure_id, FIGURES[figure_id].act(key))


def view_state(figure_id: str) -> str:
    """Figure ``figure_id``'s controls that differ from its defaults, as JSON key -> text."""
    return json.dumps(FIGURES[figure_id].link())


def apply_view(figure_id: str, params_json: str) -> tuple[dict[str, dict], str]:
    """Show the view a link describes (JSON key -> text): the updates, and '' or the one-line
    note saying why the figure shows its defaults instead."""
    drawing, note = FIGURES[figure_id].follow(json.loads(params_json))
    return updates(figure_id, drawing), note


def reset_view(figure_id: str) -> dict[str, dict]:
    """Put figure ``figure_id`` back to its defaults."""
    return updates(figure_id, FIGURES[figure_id].reset())


def state_code(figure_id: str) -> str:
    """The state figure ``figure_id`` shows, as the ``state = ...`` lines of its try-it cell."""
    return tryit.state_code(FIGURES[figure_id].shown)


def rehearse(figure_id: str) -> None:
    """Draw one of the figures again, off the page, and throw the drawing away.

    A worker that restored a snapshot has run almost no Python yet, so the browser has not
    optimised the interpreter's hot paths: the reader's first changes would take several times
    longer than later ones. Drawing a figure runs the code a change runs.
    """
    figure = FIGURES[figure_id]
    spare = Figure(figure_id, figure.mod)
    spare.draw()
    for key, control in spare.controls.items():
        spare.change(key, control.get(spare.default))
