"""The worker's patches in and out are exactly what Bokeh's own (de)serializers make."""

from types import SimpleNamespace

import pytest
from bokeh.core.serialization import Buffer, Deserializer, Serializer, UnknownReferenceError
from bokeh.document import Document
from bokeh.document.json import PatchJson
from bokeh.models import CategoricalSlider, Plot, Slider, Title

from layoutkit.document import document, view_of
from tests.figures import probe
from worker.patches import DocumentDeserializer, apply_patch, encode_events


def page() -> tuple[Document, list]:
    """Post 2's divisor and dropout figures in one document, and the events Python makes."""
    doc = document(["divisor", "dropout"], "/dist/")
    events: list = []
    doc.on_change(events.append)
    return doc, events


def first(doc: Document, kind: type, test=lambda model: True):
    return next(m for m in doc.models if isinstance(m, kind) and test(m))


def change(model, attr: str, new) -> dict:
    """The page's patch for one property change."""
    event = {"kind": "ModelChanged", "model": {"id": model.id}, "attr": attr, "new": new}
    return {"events": [event]}


def plain(value):
    """A patch with each binary buffer as its bytes (buffer ids differ per encoding)."""
    if isinstance(value, Buffer):
        return value.to_bytes()
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def is_whole_model(event: dict) -> bool:
    return isinstance(event.get("new"), dict) and event["new"].get("type") == "object"


def test_outgoing_patches_are_bokehs():
    doc, events = page()
    rate = first(doc, Slider, lambda m: m.title.startswith("Dropout"))
    doc.apply_json_patch(change(rate, "value", 0.2), setter="js")
    first(doc, Plot).title = Title(text="a model the page does not have yet")
    theirs = Serializer(references=doc.models.synced_references)
    expected = PatchJson(events=theirs.encode(events))
    patch, buffers = encode_events(doc, events)
    assert plain(patch) == plain(expected) and len(patch["events"]) > 3
    assert [b.to_bytes() for b in buffers] == [b.to_bytes() for b in theirs.buffers] != []
    assert any(is_whole_model(e) for e in patch["events"])
    again, _ = encode_events(doc, events)  # the page has the new title now: a reference
    assert not any(is_whole_model(e) for e in again["events"])


def test_incoming_patches_decode_as_bokehs():
    doc, _ = page()
    slider = first(doc, CategoricalSlider)
    patch = change(slider, "value", "4096")
    ours = DocumentDeserializer(doc, "js").deserialize(patch)
    theirs = Deserializer(list(doc.models), setter="js").deserialize(patch)
    assert ours == theirs and ours["events"][0]["model"] is slider


def test_a_patch_from_the_page_moves_the_figure():
    view = view_of("divisor")
    doc = Document()
    doc.add_root(view.get_root(doc))
    before = probe.readouts(view)["sqrt-dk"]
    apply_patch(doc, change(first(doc, CategoricalSlider), "value", "4096"), setter="js")
    assert probe.widgets(view)["Key width d_k"].value == 4096
    assert (before, probe.readouts(view)["sqrt-dk"]) == ("8.000", "64.0")


def test_a_patch_that_creates_a_model_leaves_the_document_as_bokeh_does():
    title = {"type": "object", "name": "Title", "id": "made-here", "attributes": {"text": "t"}}
    results = []
    for apply in (Document.apply_json_patch, apply_patch):
        doc, _ = page()
        plot = first(doc, Plot)
        apply(doc, change(plot, "title", title), setter="js")
        results.append((plot.title.text, "made-here" in doc.models, len(doc.models)))
    assert results[0] == results[1] and results[0][:2] == ("t", True)


def test_a_patch_naming_no_model_of_the_document_is_refused():
    doc, _ = page()
    ghost = SimpleNamespace(id="never-in-this-document")
    with pytest.raises(UnknownReferenceError):
        apply_patch(doc, change(ghost, "value", 1), setter="js")
