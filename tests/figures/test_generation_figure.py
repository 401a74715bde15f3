"""The generation figure (figures/generation.py): the work is the core's count for the prompt
and N; nothing timed is shown until the reader presses Write and time; then the texts of both
ways, the same, and each way's time and speed from the clock; a prompt it cannot write after
says why."""

import itertools
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import gpt
from figures import generation as g
from formatting import integer
from tests.figures.probe import driven_to, messages, readouts, readouts_in, widgets
from tests.strategies import examples

BUTTON = "Write and time"


def shown(state: g.State, measured=None) -> dict[str, str]:
    return {key: text for key, _, text in g.readouts(state, measured)}


def ticking(step: float = 0.125):
    """A clock that moves ``step`` seconds each time it is read."""
    count = itertools.count()
    return lambda: next(count) * step


def test_before_the_reader_asks_nothing_timed_is_shown():
    rows = shown(g.DEFAULT)
    for key in ("cached-time", "cached-rate", "uncached-time", "uncached-rate", "speed-up"):
        assert rows[key] == g.NOT_YET
    assert rows["same"] == g.NOT_WRITTEN
    drawing = g.draw(g.DEFAULT)
    assert drawing["times"]["data"] == {"token": [], "cached": [], "uncached": []}
    assert "Press Write and time" in drawing["text"]["object"]
    assert drawing["times.title"]["text"] == "time per token: press Write and time"
    assert drawing["times.y_range"] == {"end": 1}


def test_the_work_is_the_cores_count_for_the_prompt_and_n():
    state = g.State(prompt="Hello, I am", tokens=64)
    rows = shown(state)
    for way in g.WAYS:
        counted = gpt.work_per_token(gpt.SMALL, 11, 64, way == "cached")
        assert rows[f"{way}-work"] == integer(sum(counted))
    assert rows["prompt"] == "11"
    assert rows["model"] == "4 layers, 4 heads, d = 64, 227,840 weights"
    assert rows["cache"] == "296 KiB"  # K and V: 2 x 4 layers x 64 x 74 tokens x 8 bytes
    cached = gpt.work_per_token(gpt.SMALL, 11, 64, cached=True)
    assert rows["prompt-pass"] == f"{round(100 * cached[0] / sum(cached))}% of the work"
    work = g.work_columns(state)
    assert work["token"] == list(range(1, 65))
    totals = [work["uncached"][-1], work["cached"][-1]]
    assert g.work_point(work) == {"token": [64, 64], "work": totals}


def test_a_measurement_shows_both_texts_the_same_and_each_ways_speed():
    """With a clock that moves 1/8 s a read, every token takes 125 ms each way: 8 tokens a
    second both ways, a speed-up of 1.0; the texts are the core's greedy continuation."""
    state = g.State(prompt="Hello, I am", tokens=16)
    drawing = g.measure(state, clock=ticking())
    rows = readouts_in(drawing["readout"]["object"])
    assert rows["cached-time"] == rows["uncached-time"] == "2.00 s"
    assert rows["cached-rate"] == rows["uncached-rate"] == "8"
    assert rows["speed-up"] == "1.0×"
    assert rows["prompt-pass"].endswith("of the work, 6% of the time")  # 1 token of 16
    assert rows["same"] == "yes, all 16 tokens"
    written = gpt.decode(gpt.generate(gpt.init(), gpt.encode("Hello, I am"), 16, cached=True))
    assert drawing["text"]["object"].count(f"<mark>{written}</mark>".replace("&", "&amp;")) == 2
    times = drawing["times"]["data"]
    assert times["token"] == list(range(1, 17)) and times["cached"] == [125.0] * 16
    assert drawing["times.title"]["text"] == "time per token, measured in your browser"
    assert drawing["times.y_range"] == {"end": 1.1 * 125}


def test_each_row_reads_its_own_ways_measurement():
    """Two runs timed differently: 4 tokens in 0.1 s with the cache (its first 0.04 s), in
    0.4 s without. Each way's time and rate are its own, and the speed-up is with over without."""
    state = g.State(prompt="Hi", tokens=16)
    measured = {
        "cached": g.Run([1] * 4, [0.04, 0.02, 0.02, 0.02]),
        "uncached": g.Run([1] * 4, [0.1] * 4),
    }
    rows = shown(state, measured)
    assert (rows["cached-time"], rows["uncached-time"]) == ("100.0 ms", "400.0 ms")
    assert (rows["cached-rate"], rows["uncached-rate"]) == ("40", "10")
    assert rows["speed-up"] == "4.0×"
    assert rows["prompt-pass"].endswith("of the work, 40% of the time")


def test_texts_that_part_say_where():
    runs = {"cached": g.Run([1, 2, 3], [0.1] * 3), "uncached": g.Run([1, 5, 3], [0.1] * 3)}
    assert g.same_text(runs) == "no: they part at token 2"


def test_pressing_the_button_times_the_state_shown_and_a_change_clears_it():
    view = driven_to(g, {"Tokens to write N": 64})
    widgets(view)[BUTTON].clicks = 1
    rows = readouts(view)
    assert rows["same"] == "yes, all 64 tokens"
    assert float(rows["cached-rate"].replace(",", "")) > 0
    assert len(view.shown["times"]["data"]["cached"]) == 64
    widgets(view)["Tokens to write N"].value = 16
    assert readouts(view) == shown(g.State(tokens=16))
    assert view.shown["times"]["data"]["token"] == []


def test_a_prompt_it_cannot_write_after_says_why_and_keeps_the_last_drawing():
    view = driven_to(g, {"Prompt": "naïve"})
    assert messages(view) == ["The vocabulary is the printable ASCII characters; 'ï' is not in it."]
    assert readouts(view) == shown(g.DEFAULT)
    view = driven_to(g, {"Prompt": "x" * (g.PROMPT_MAX + 1)})
    assert messages(view) == [
        f"This figure writes after a prompt of at most {g.PROMPT_MAX} characters, and this one "
        f"has {g.PROMPT_MAX + 1}; shorten it."
    ]


def test_the_longest_prompt_and_n_fit_the_models_positions():
    state = g.State(prompt="x" * g.PROMPT_MAX, tokens=max(g.LENGTHS))
    # write checks the room before its first token, so this raises if they do not fit
    gpt.write(gpt.init(), [0] * g.PROMPT_MAX, max(g.LENGTHS), cached=False)
    assert shown(state)["prompt"] == integer(g.PROMPT_MAX)


def test_pressing_the_button_on_a_refused_prompt_says_so_and_times_nothing():
    view = driven_to(g, {"Prompt": "naïve"})
    widgets(view)[BUTTON].clicks = 1
    assert messages(view) == [
        "Write and time needs a state the figure can draw. The vocabulary is the printable "
        "ASCII characters; 'ï' is not in it."
    ]
    assert readouts(view) == shown(g.DEFAULT)


def test_a_clock_that_does_not_move_gets_a_message_not_a_division_by_zero():
    """A browser may round its clock to a millisecond: a run inside one tick reads 0 s."""
    with pytest.raises(ValueError, match="clock did not move while the model wrote"):
        g.measure(g.State(tokens=16), clock=ticking(0))
    view = driven_to(g, {"Tokens to write N": 16})
    view.figure.mod = SimpleNamespace(**(vars(g) | {"measure": lambda s: g.measure(s, ticking(0))}))
    widgets(view)[BUTTON].clicks = 1
    (message,) = messages(view)
    assert message.startswith("Your browser's clock did not move while the model wrote")
    assert readouts(view) == shown(g.State(tokens=16))
    view.figure.mod = g  # a press with a clock that moves measures, and the message goes
    widgets(view)[BUTTON].clicks = 2
    assert messages(view) == []
    assert readouts(view)["same"] == "yes, all 16 tokens"


@settings(max_examples=examples(20), deadline=None)
@given(
    prompt=st.text(alphabet=gpt.VOCAB, min_size=1, max_size=60),
    tokens=st.sampled_from(g.LENGTHS),
)
def test_every_state_of_the_view_shows_the_pure_readouts(prompt, tokens):
    view = driven_to(g, {"Prompt": prompt, "Tokens to write N": tokens})
    assert readouts(view) == shown(g.State(prompt, tokens))
    assert messages(view) == []
