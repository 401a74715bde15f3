"""Number and text boxes (issue 20, item 5): on every post, each bad entry in every box (empty,
not a number, 1e999, a lone minus, out of range) keeps what the reader typed, says what the box
expects under it (the box's description, the box marked invalid) and leaves the figure's
readouts as they were; then a good entry updates the readouts and clears the message.

"As they were" is read once the figures' worker has answered every change the page sent (the
harness counts them), so an update that must not come cannot land after the check."""

import panel as pn
import pytest

from figures import generation, grouped_heads, heads, masking
from formatting import integer
from harness.site import path
from harness.visit import until
from layoutkit.document import view_of
from pages import placed_figures, post1, post2, post3

pytestmark = pytest.mark.browser

BOXES = (pn.widgets.IntInput, pn.widgets.FloatInput, pn.widgets.TextInput)
NOT_NUMBERS = ["", "abc", "1e999", "-"]


def _refusal(module, state) -> str:
    """The warning a figure shows for ``state``: the ValueError its readouts raise."""
    with pytest.raises(ValueError) as err:
        module.readouts(state)
    return str(err.value)


def _masking_says(text: str) -> str:
    return masking.message(masking.DEFAULT._replace(row_text=text))


def _prompt_says(text: str) -> str:
    with pytest.raises(ValueError) as err:
        generation.checked(generation.DEFAULT._replace(prompt=text))
    return generation.explain(err.value)


def cases(figure_id: str, box: pn.widgets.Widget) -> tuple[list[tuple[str, str]], str]:
    """The bad entries for ``box`` with what it must say for each, and a good entry."""
    if figure_id == "generation":  # a prompt the model cannot write after
        bad = ["", "naïve", "x" * generation.SMALL.context]
        return [(text, _prompt_says(text)) for text in bad], "Hello, I am"
    if isinstance(box, pn.widgets.TextInput):  # Python reads it, and says what is wrong
        bad = ["", "abc", "1, two", "1e999", ", ".join(["1"] * (masking.MAX_SCORES + 1))]
        return [(text, _masking_says(text)) for text in bad], "1, 2, 3"
    if figure_id == "heads":
        says = f"Type a whole number from 1 to {integer(heads.MAX_SIZE)}."
        good = {"d_in": "5", "d_out": "4", "num_heads": "1"}[box.name]
        return [(text, says) for text in [*NOT_NUMBERS, "0", str(heads.MAX_SIZE + 1)]], good
    if figure_id == "grouped-heads":
        refused = [
            (text, _refusal(grouped_heads, grouped_heads.DEFAULT._replace(kv_heads=int(text))))
            for text in ("0", "3")  # no K/V heads; a count that does not divide the 8 heads
        ]
        return [(t, "Type a whole number.") for t in NOT_NUMBERS] + refused, "4"
    assert isinstance(box, pn.widgets.FloatInput), (figure_id, box.name)
    return [(text, "Type a number.") for text in NOT_NUMBERS], "0.5"


def boxes_of(post) -> list[tuple[str, pn.widgets.Widget]]:
    """Every number and text box on the post's figures, from the figures' Python."""
    found = []
    for figure_id in placed_figures(post.TEMPLATE):
        view = view_of(figure_id)
        found += [(figure_id, w) for w in view.select(pn.widgets.Widget) if isinstance(w, BOXES)]
    return found


_SAYS = """(input) => {
  const id = input.getAttribute("aria-describedby");
  const described = id ? input.getRootNode().getElementById(id)?.textContent ?? "" : "";
  const shown = input.closest(".bk-input-group")?.nextElementSibling?.textContent ?? "";
  return [described, shown];
}"""


def state_of(box) -> dict:
    described, shown = box.evaluate(_SAYS)
    return {
        "text": box.input_value(),
        "invalid": box.get_attribute("aria-invalid"),
        "says": described,
        "shown": shown,
    }


def readouts(fig) -> list[str]:
    return fig.locator("[data-readout]").all_text_contents()


@pytest.mark.parametrize("post", [post1, post2, post3], ids=lambda m: m.SLUG)
def test_bad_entries_say_what_the_box_expects_and_keep_the_figure(live, post):
    expected = boxes_of(post)
    assert expected, f"{post.SLUG} has no number or text box"
    v = live(path(post))
    for figure_id in {f for f, _ in expected}:
        fig = v.page.locator(f'[data-figure="{figure_id}"]')
        named = [w.name for f, w in expected if f == figure_id]
        assert fig.get_by_role("textbox").count() == len(named), figure_id  # only these boxes
        for name in named:
            assert fig.get_by_role("textbox", name=name, exact=True).count() == 1, name
    for figure_id, widget in expected:
        fig = v.page.locator(f'[data-figure="{figure_id}"]')
        box = fig.get_by_role("textbox", name=widget.name, exact=True)
        bad, good = cases(figure_id, widget)
        before = readouts(fig)
        for text, says in bad:
            assert says, (figure_id, widget.name, text)
            box.fill(text)
            box.press("Enter")
            where = (figure_id, widget.name, text)
            now = until(v.page, lambda: (s := state_of(box))["says"] == says and s, what=where)  # noqa: B023
            assert now == {"text": text, "invalid": "true", "says": says, "shown": says}, where
            v.wait_idle()  # an update that must not come would have come by now
            assert readouts(fig) == before, where
        box.fill(good)
        box.press("Enter")
        where = (figure_id, widget.name)
        until(v.page, lambda: readouts(fig) != before, what=where)  # noqa: B023
        now = until(v.page, lambda: not (s := state_of(box))["invalid"] and s, what=where)  # noqa: B023
        assert now == {"text": good, "invalid": None, "says": "", "shown": ""}, (
            figure_id,
            widget.name,
        )
    assert v.errors == []
