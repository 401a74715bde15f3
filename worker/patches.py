"""Bokeh document patches in and out of the worker, without copying the whole document.

Bokeh's serializers start from a copy of every model of the document (some 600 on a page of
six figures): its deserializer maps every id to its model, and the serializer Panel's worker
code builds maps every model the page already has to a reference object. Both are made for
every control change, about a millisecond of the worker's time each time. These two look up
only the models a patch names; what they produce is what Bokeh's produce
(tests/worker/test_patches.py).
"""

import logging
from collections import ChainMap
from typing import Any

from bokeh.core.serialization import Deserializer, Serialized, Serializer, UnknownReferenceError
from bokeh.document import Document
from bokeh.document.events import DocumentPatchedEvent
from bokeh.document.json import PatchJson
from bokeh.model import Model


class DocumentDeserializer(Deserializer):
    """Bokeh's deserializer, finding the document's models by id as a patch names them."""

    def __init__(self, doc: Document, setter: Any = None) -> None:
        super().__init__(setter=setter)
        self._references = ChainMap({}, doc.models)  # models a patch creates go in the first


class DocumentSerializer(Serializer):
    """Bokeh's serializer, sending a model the page already has as a reference."""

    def __init__(self, doc: Document) -> None:
        super().__init__()
        self._synced = doc.models.synced_references  # a set of models, quick to make

    def get_ref(self, obj: Any) -> Any:
        ref = super().get_ref(obj)
        if ref is None and isinstance(obj, Model) and obj in self._synced:
            return obj.ref
        return ref

    def has_ref(self, obj: Any) -> bool:
        return self.get_ref(obj) is not None


def apply_patch(doc: Document, patch: Serialized, setter: Any) -> None:
    """Apply a patch from the page, as ``Document.apply_json_patch`` does."""
    deserializer = DocumentDeserializer(doc, setter)
    try:
        events = deserializer.deserialize(patch)["events"]
    except UnknownReferenceError as error:
        if not doc.models.seen(error.id):
            raise
        # A model removed here while the page changed it: harmless, and Bokeh drops it too.
        logging.warning("dropping a patch for a model no longer in the document (%s)", error.id)
        return
    for event in events:
        DocumentPatchedEvent.handle_event(doc, event, setter)
    doc.models.flush_synced(lambda model: not deserializer.has_ref(model))


def encode_events(doc: Document, events: list) -> tuple[PatchJson, list]:
    """The page's patch for ``events``, and its binary buffers, as Panel's worker code makes."""
    serializer = DocumentSerializer(doc)
    patch = PatchJson(events=serializer.encode(events))
    doc.models.flush_synced(lambda model: not serializer.has_ref(model))
    return patch, serializer.buffers
