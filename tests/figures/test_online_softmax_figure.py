"""The online-softmax figure in CPython: readouts against the core, the stepper, bad input."""

import pytest

from attention.models import LLAMA2_7B
from attention.online import (
    EXAMPLE_T,
    MEMORY_TILE,
    example,
    full_row,
    max_difference,
    memory,
    online_row,
    row_normalizer,
    tile_bounds,
)
from figures import online_softmax as fig
from formatting import bytes_text, integer, noise_text, num, vec
from layoutkit.document import view_of
from tests.figures.probe import driven, messages, readouts, widgets

Q, K, V = example()
QUERY, TILE, SEEN, CAUSAL = (
    "Query row i",
    "Keys per tile",
    "Tiles seen",
    "Causal: keys after i hidden",
)
LENGTH, NEXT, PREVIOUS = "Context length T (memory)", "Next tile", "Previous tile"


def shown(state: fig.State) -> dict[str, str]:
    return {key: text for key, _, text in fig.readouts(state)}


def core(state: fig.State):
    """The core's steps and full output for the state's query row (the figure counts rows
    from 1, numpy from 0)."""
    i = state.query - 1
    position = i if state.causal else None
    _, steps = online_row(Q[i], K, V, state.tile, state.causal, position)
    return steps, full_row(Q[i], K, V, state.causal, position)


@pytest.mark.parametrize(
    "state",
    [
        fig.DEFAULT,
        fig.State(1, 1, 1, False, 1024),
        fig.State(12, 12, 1, False, 2**20),
        fig.State(12, 1, 12, True, 2**20),
        fig.State(1, 5, 12, True, 1024),
        fig.State(6, 5, 3, False, 4096),
    ],
)
def test_readouts_are_the_cores_numbers(state):
    steps, want = core(state)
    k = min(state.seen, len(steps))
    texts = shown(state)
    assert texts["seen"].startswith(f"{k} of {len(steps)} ")
    assert texts["m"] == num(steps[k - 1].m)
    assert texts["ell"] == num(steps[k - 1].ell)
    assert texts["partial"] == vec(steps[k - 1].o)
    assert texts["full"] == vec(want)
    position = state.query - 1 if state.causal else None
    m, ell = row_normalizer(Q[state.query - 1], K, state.causal, position)
    assert texts["full-m"] == f"{num(m)}, {num(ell)}"
    gap = max_difference(steps[k - 1].o, want)
    if k == len(steps):
        assert texts["difference"].startswith(noise_text(gap))
    else:
        assert texts["difference"].startswith(num(gap))
    mem = memory(state.length, LLAMA2_7B.head_dim, MEMORY_TILE, LLAMA2_7B.bytes_per_value)
    assert texts["length"] == integer(state.length)
    assert texts["matrix"] == bytes_text(mem.scores)
    assert texts["tiled"] == bytes_text(mem.tiled)
    assert texts["output"] == bytes_text(mem.output)


def test_one_tile_of_every_key_is_exact():
    texts = shown(fig.State(query=4, tile=EXAMPLE_T, seen=1))
    assert texts["difference"] == "0 (bit for bit)"
    assert texts["partial"] == texts["full"]


def test_at_the_last_tile_the_running_values_are_the_full_rows():
    state = fig.State(query=8, tile=3, seen=4)
    steps, want = core(state)
    assert len(steps) == 4
    m, ell = row_normalizer(Q[7], K)
    texts = shown(state)
    assert texts["m"] == num(m) and texts["ell"] == num(ell)
    assert texts["partial"] == vec(want)
    assert texts["difference"].endswith("(rounding)") or texts["difference"] == "0 (bit for bit)"


def test_the_slider_past_the_last_tile_shows_the_last():
    assert shown(fig.State(tile=6, seen=9)) == shown(fig.State(tile=6, seen=2))
    assert shown(fig.State(tile=6, seen=2))["seen"] == "2 of 2 (this one: keys 7 to 12)"


def test_the_tiles_seen_slider_runs_to_the_tiles_there_are():
    view = driven(fig)
    w = widgets(view)
    w[SEEN].value = 4  # the last of the default's 4 tiles
    w[TILE].value = 6  # 2 tiles now: the slider follows, and so does the readout
    assert view.figure.state.seen == 2
    assert readouts(view)["seen"].startswith("2 of 2")
    assert fig.seen_slider(view.figure.state) == {"end": 2, "disabled": False}
    w[TILE].value = fig.EXAMPLE_T  # one tile: nothing to step through
    assert fig.seen_slider(view.figure.state) == {"end": 2, "disabled": True}
    assert readouts(view)["seen"].startswith("1 of 1")


def test_the_view_shows_its_readouts_for_several_control_values():
    view = driven(fig)
    w = widgets(view)
    assert readouts(view) == shown(fig.DEFAULT)
    for query, tile, seen, causal, length in [
        (1, 1, 1, True, 1024),
        (12, 12, 1, False, 2**20),
        (7, 4, 3, True, 8192),
        (4, 5, 12, False, 65536),
    ]:
        # The switch first: it sets how many tiles there are, which the tiles seen stay within.
        w[CAUSAL].value, w[QUERY].value, w[TILE].value = causal, query, tile
        w[SEEN].value, w[LENGTH].value = seen, length
        assert readouts(view) == shown(fig.State(query, tile, seen, causal, length))
        assert messages(view) == []


def test_next_and_previous_step_through_the_tiles():
    view = driven(fig)
    w = widgets(view)
    w[TILE].value, w[SEEN].value = 3, 1
    n = len(tile_bounds(EXAMPLE_T, 3))
    for k in range(2, n + 1):
        w[NEXT].clicks += 1
        assert w[SEEN].value == k
        assert readouts(view) == shown(fig.State(fig.DEFAULT.query, 3, k))
    w[NEXT].clicks += 1  # no tile after the last
    assert w[SEEN].value == n
    for k in range(n - 1, 0, -1):
        w[PREVIOUS].clicks += 1
        assert w[SEEN].value == k
    w[PREVIOUS].clicks += 1
    assert w[SEEN].value == 1
    assert messages(view) == []


def test_the_plots_follow_the_stepper():
    """The running plot has one point per tile seen; the current tile's bars are orange."""
    import panel as pn

    view = view_of("online-softmax")
    w = widgets(view)
    w[TILE].value, w[SEEN].value = 4, 2
    figures = [p.object for p in view.select(pn.pane.Bokeh)]
    sources = [r.data_source.data for f in figures for r in f.renderers]
    bars = sources[0]
    assert [c == fig.ACCENT for c in bars["color"]] == [4 <= j < 8 for j in range(EXAMPLE_T)]
    running = [s for s in sources if list(s["x"]) == [1, 2]]
    assert running, "no running-state line with the two tiles seen"


def test_bad_input_keeps_the_last_drawing():
    """The core refuses a tile of 0 keys; the figure says so and keeps its readouts."""
    view = driven(fig)
    before = readouts(view)
    widgets(view)[TILE].value = 0  # below the slider's range, as a bad link might send
    assert messages(view) and "tile must be at least 1" in messages(view)[0]
    assert readouts(view) == before
    widgets(view)[NEXT].clicks += 1  # nothing to step through: no error escapes the button
    assert readouts(view) == before
    widgets(view)[TILE].value = 3
    assert messages(view) == []


def test_the_query_row_counts_from_1():
    """Row 1 is numpy's row 0; a row 0 (or 13) is refused, not wrapped round to the last row."""
    assert fig.row(fig.State(query=1)) == 0 and fig.row(fig.State(query=EXAMPLE_T)) == 11
    for query in (0, EXAMPLE_T + 1):
        with pytest.raises(ValueError, match="counted from 1"):
            fig.readouts(fig.State(query=query))
