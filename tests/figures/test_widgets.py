"""The slider over chosen values: the page sees labels, Python sees the values themselves."""

import panel as pn
import pytest
from bokeh.document import Document
from bokeh.models import CategoricalSlider

from layoutkit.widgets import SWITCH_CSS, ChoiceSlider, switch


def rendered(widget: ChoiceSlider) -> tuple[Document, CategoricalSlider]:
    doc = Document()
    doc.add_root(pn.Column(widget).get_root(doc))
    return doc, widget._models[next(iter(widget._models))][0]


def from_page(doc: Document, model: CategoricalSlider, label: str) -> None:
    """The reader moves the handle to ``label``: the page's patch for it."""
    event = {"kind": "ModelChanged", "model": {"id": model.id}, "attr": "value", "new": label}
    doc.apply_json_patch({"events": [event]}, setter="js")


def test_a_list_of_values_shows_each_as_its_label():
    widget = ChoiceSlider(name="Key width d_k", options=[2, 64, 4096], value=64)
    doc, model = rendered(widget)
    assert model.title == "Key width d_k"
    assert (model.categories, model.value) == (["2", "64", "4096"], "64")
    seen = []
    widget.param.watch(lambda event: seen.append(event.new), "value")
    from_page(doc, model, "4096")
    assert widget.value == 4096 and seen == [4096]
    widget.value = 2
    assert model.value == "2"


def test_a_dict_gives_the_labels():
    options = {"1,024": 1024, "2,048": 2048}
    widget = ChoiceSlider(name="Context length T", options=options, value=2048)
    doc, model = rendered(widget)
    assert (model.categories, model.value) == (["1,024", "2,048"], "2,048")
    from_page(doc, model, "1,024")
    assert widget.value == 1024


def test_the_first_value_is_the_default():
    assert ChoiceSlider(name="n", options=[7, 8]).value == 7


@pytest.mark.parametrize("value", [3, "1", None])
def test_any_other_value_is_refused(value):
    widget = ChoiceSlider(name="x", options=[1, 2], value=2)
    with pytest.raises(ValueError, match="does not accept"):
        widget.value = value
    assert widget.value == 2
    with pytest.raises(ValueError, match="does not accept"):
        ChoiceSlider(name="x", options=[1, 2], value=value if value is not None else 3)


def test_a_switch_is_outlined_while_off():
    on, off = switch("on", True), switch("off", False)
    assert (on.value, off.value) == (True, False) and on.button_type == "primary"
    assert ":not(.bk-active)" in SWITCH_CSS and SWITCH_CSS in off.stylesheets
