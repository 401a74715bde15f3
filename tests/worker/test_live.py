"""The worker's figures in CPython, as the page drives them: the updates worker.live sends for
a reader's changes, set on the pre-render's own models, make them the models the build draws
for that state, for every figure and the states the fuzzing reaches."""

import json
import re

import numpy as np
import pytest
from bokeh.document import Document
from bokeh.model import Model
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import figures
from figurekit.controls import Choice, Clicks
from figurekit.figure import Figure
from layoutkit.document import layout_of
from layoutkit.wiring import table
from tests.figures.test_fuzz import control_strategy
from worker import live

MODEL_ID = re.compile(r"id='p\d+'")
# Random sequences of changes per figure: each builds the figure twice, a second or so.
EXAMPLES = 3
# Set by Panel or Bokeh as a model is made, and different from one build of a figure to the next.
UNSTABLE = {"id", "name"}


def built(figure_id: str, state=None) -> tuple[Document, dict]:
    """Figure ``figure_id``'s pre-render document drawn at ``state`` (its default if None),
    and its wiring. The document is read back from its JSON, as the page reads it: its models
    are Bokeh's alone, with no Panel object behind them to answer a change."""
    figure = Figure(figure_id, figures.module(figure_id))
    if state is not None:
        figure.state = state
    doc = Document()
    root = layout_of(figure_id, figure.mod, figure).get_root(doc)
    doc.add_root(root)
    return Document.from_json(doc.to_json()), table(figure, root)


def models(doc: Document) -> list[Model]:
    """The document's models in the order they were made: Bokeh numbers them as it makes them
    ("p9" before "p10"), and two builds of a figure make the same models in the same order."""
    return sorted(doc.models, key=lambda m: (len(m.id), m.id))


def comparable(value):
    """A property's value with each model in it named by its type (ids differ per build) and
    every number as its repr (arrays and lists alike)."""
    if isinstance(value, Model):
        return type(value).__name__
    if isinstance(value, dict):
        return {k: comparable(v) for k, v in value.items()}
    if hasattr(value, "tolist"):  # a numpy array or scalar
        value = value.tolist()
    if isinstance(value, (list, tuple, set)):
        return [comparable(v) for v in value]
    if isinstance(value, (str, int, bool)) or value is None:
        return value
    return MODEL_ID.sub("id=?", repr(value))  # a float, or a value holding a model (a Field)


def values(model: Model) -> dict:
    """The model's properties set away from their defaults, comparable across builds."""
    props = model.properties_with_values(include_defaults=True)
    return {name: comparable(v) for name, v in props.items() if name not in UNSTABLE}


def arrays(column: list) -> list:
    """A data source's column with its images as arrays again, as static/page/updates.js
    makes them."""
    return [
        np.array(v["ndarray"], dtype=v["dtype"]).reshape(v["shape"])
        if isinstance(v, dict) and "ndarray" in v
        else v
        for v in column
    ]


def apply(doc: Document, updates: dict) -> None:
    """Set the worker's updates on the document's models, as static/page/updates.js does."""
    for model_id, props in updates.items():
        model = doc.get_model_by_id(model_id)
        for prop, value in props.items():
            if prop == "clicks":
                continue  # the page keeps a button's count, not its model
            if prop == "data":
                model.data = {**model.data, **{k: arrays(v) for k, v in value.items()}}
            else:
                setattr(model, prop, value)


def started(figure_id: str) -> tuple[Document, dict]:
    doc, wiring = built(figure_id)
    live.start([figure_id])
    live.connect(json.dumps({figure_id: wiring}))
    return doc, wiring


def raw_of(control, wired, value):
    return live.encode(control, wired, value)


@pytest.mark.parametrize("figure_id", list(figures.REGISTRY))
def test_the_worker_updates_turn_the_prerender_into_the_build_of_each_state(figure_id):
    figure = Figure(figure_id, figures.module(figure_id))
    strategies = {  # a click on a button whose count is state: its count goes up by one
        key: st.just(None) if isinstance(c, Clicks) else control_strategy(c)
        for key, c in figure.controls.items()
    }
    change = st.sampled_from(sorted(strategies)).flatmap(
        lambda k: st.tuples(st.just(k), strategies[k])
    )

    # No shrinking: each example builds the figure twice, and a failure names its changes.
    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
              phases=[Phase.explicit, Phase.generate],
              suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
    @given(st.lists(change, min_size=1, max_size=4))
    def run(changes):
        doc, wiring = started(figure_id)
        for key, value in changes:
            control = live.FIGURES[figure_id].controls[key]
            wired = wiring["controls"][key]
            if isinstance(control, Clicks):
                value = control.get(live.FIGURES[figure_id].state) + 1
            raw = json.loads(json.dumps(raw_of(control, wired, value)))  # as the page sends it
            apply(doc, live.change(figure_id, key, raw))
        shown = live.FIGURES[figure_id]
        if shown.refused or shown.shown != shown.state:
            return  # the figure keeps an earlier drawing: no build draws exactly that
        want, _ = built(figure_id, shown.state)
        got_models, want_models = models(doc), models(want)
        assert [type(m) for m in got_models] == [type(m) for m in want_models]
        for got_model, want_model in zip(got_models, want_models, strict=True):
            assert values(got_model) == values(want_model), type(got_model).__name__

    run()


def test_a_choice_travels_as_the_property_its_widget_gives_its_model():
    _, wiring = started("masking")
    fill = live.FIGURES["masking"].controls["future-scores-set-to"]
    assert isinstance(fill, Choice)
    wired = wiring["controls"]["future-scores-set-to"]
    assert wired["prop"] == "active" and wired["raws"] == [0, 1]
    assert live.decode(fill, wired, 1) == "zero"
    updates = live.change("masking", "future-scores-set-to", 1)
    readout = wiring["handles"]["readout"][0]
    assert "0.8029" in updates[readout]["text"] and "&lt;dd" in updates[readout]["text"]


def test_links_resets_and_cells_answer_from_the_figure():
    started("masking")
    live.change("masking", "step", 3)
    assert json.loads(live.view_state("masking")) == {"step": "3"}
    assert "step=3," in live.state_code("masking")
    _, note = live.apply_view("masking", json.dumps({"step": "99"}))
    assert "'99' is outside 1 to" in note and json.loads(live.view_state("masking")) == {}
    assert live.reset_view("masking") == {}  # already at the defaults


def test_connect_keeps_only_the_pages_figures():
    live.start(["masking", "depth"])
    _, wiring = built("masking")
    live.connect(json.dumps({"masking": wiring}))
    assert set(live.FIGURES) == {"masking"}


def test_a_figures_whole_drawing_is_every_model_it_draws():
    """The page sets, once a figure is drawn on it, the values the worker's numpy drew that
    differ from the build's: every model the figure draws, each with everything it shows."""
    doc, wiring = built("masking")
    live.start(["masking"])
    assert live.has_figure("masking") and not live.has_figure("no-such-figure")
    live.connect(json.dumps({"masking": wiring}))
    whole = live.whole("masking")
    drawn = {model_id for model_id, _ in wiring["handles"].values()}
    drawn |= {c["id"] for c in wiring["controls"].values()}
    assert set(whole) == drawn
    before = [values(m) for m in models(doc)]
    apply(doc, whole)
    assert [values(m) for m in models(doc)] == before  # CPython draws what the build drew


def test_a_figure_drawn_after_its_view_moved_shows_the_view():
    """A link's view is applied as the page goes live, and the page may draw that figure only
    later, as the reader nears it: the whole drawing it then asks for is the view's."""
    doc, _ = started("masking")
    live.apply_view("masking", json.dumps({"step": "3"}))
    apply(doc, live.whole("masking"))
    want, _ = built("masking", live.FIGURES["masking"].state)
    assert live.FIGURES["masking"].state != Figure("masking", figures.module("masking")).state
    assert [values(m) for m in models(doc)] == [values(m) for m in models(want)]


def test_the_heap_is_saved_with_the_projects_caches_empty_and_they_fill_again_alike():
    """The build empties the project's caches before it saves the heap (some hold random draws,
    which do not compress): a change after that answers as it did with them full."""
    live.start(list(figures.REGISTRY))
    caches = list(live.project_caches())
    assert sum(c.cache_info().currsize for c in caches) >= 10  # the figures filled them
    full = {}
    for fid in ("divisor", "dropout"):
        live.FIGURES[fid].change(*first_change(fid))
        full[fid] = json.dumps(live.FIGURES[fid].sent, default=repr)
        live.FIGURES[fid].reset()
    live.forget_caches()
    assert [c for c in caches if c.cache_info().currsize] == []
    for fid, drawing in full.items():
        live.FIGURES[fid].change(*first_change(fid))
        assert json.dumps(live.FIGURES[fid].sent, default=repr) == drawing


def first_change(figure_id: str) -> tuple[str, object]:
    """Figure ``figure_id``'s first control and a value of it other than the default."""
    figure = live.FIGURES[figure_id]
    key, control = next(iter(figure.controls.items()))
    values = getattr(control, "values", None) or [control.get(figure.default)]
    current = control.get(figure.state)
    return key, next((v for v in values if v != current), current)
