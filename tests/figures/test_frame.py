"""The loop every figure draws through: draw now, redraw on change, a refusal as a message."""

import panel as pn
import pytest

from figures.frame import message_html, pane, recompute
from tests.figures.probe import messages


def _figure(note: str | None = None):
    """A one-slider figure that refuses negative values and records what it drew."""
    scale = pn.widgets.FloatSlider(name="Scale", start=-1.0, end=1.0, value=0.5)
    message, drawn = pane(), []

    def draw() -> str | None:
        if scale.value < 0:
            raise ValueError("the scale must be at least 0")
        drawn.append(scale.value)
        return note

    redraw = recompute([scale], message, draw, explain=lambda err: f"{err}. Pick another.")
    return scale, message, drawn, redraw


def test_draws_now_redraws_on_change_and_shows_a_refusal_until_a_good_value():
    scale, message, drawn, _ = _figure()
    assert drawn == [0.5]  # the first call draws
    assert messages(message) == []

    scale.value = 0.25
    assert drawn == [0.5, 0.25]

    scale.value = -0.5
    assert drawn == [0.5, 0.25], "a refused state leaves the last drawing alone"
    assert messages(message) == ["the scale must be at least 0. Pick another."]
    assert "fig-message-warning" in message.object

    scale.value = 1.0
    assert drawn[-1] == 1.0
    assert message.object == "", "the next good value clears the message"


def test_a_good_state_shows_the_note_draw_returns_and_the_redraw_serves_buttons():
    info = message_html("Just so you know.", kind="info")
    scale, message, drawn, redraw = _figure(note=info)
    assert message.object == info
    scale.value = -1.0
    assert messages(message) == ["the scale must be at least 0. Pick another."]
    scale.value = 0.5
    assert message.object == info
    redraw()  # a button that changes no value, such as a resample
    assert drawn == [0.5, 0.5, 0.5]


def test_other_errors_are_bugs_and_still_raise():
    toggle = pn.widgets.Toggle(name="Break", value=False)

    def draw() -> None:
        if toggle.value:
            raise KeyError("a bug, not a refusal")

    recompute([toggle], pane(), draw)
    with pytest.raises(KeyError):
        toggle.value = True
