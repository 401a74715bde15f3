"""The heads figure in CPython: the book's toy, the GPT-2 preset, impossible splits."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention.heads import head_columns, output_shapes, param_counts, shape_trace
from figures import heads
from formatting import integer, shape_text
from tests.figures.probe import driven, messages, readouts, widgets
from tests.strategies import examples

BOOK = "Book toy (3, 2, 2 heads)"
GPT2 = "GPT-2 small (768, 768, 12 heads)"


def _set(view, d_in, d_out, num_heads):
    controls = widgets(view)
    controls["d_in"].value, controls["d_out"].value, controls["num_heads"].value = (
        d_in,
        d_out,
        num_heads,
    )


def test_default_is_the_books_degenerate_toy():
    # Section 05: d_out = 2 with num_heads = 2 gives head_dim = 1, and the printed shapes are
    # [2, 6, 4] (wrapper) against [2, 6, 2] (split class).
    shown = readouts(driven(heads))
    assert shown["head-dim"] == "1"
    assert shown["wrapper-shape"] == "[2, 6, 4]"
    assert shown["split-shape"] == "[2, 6, 2]"
    assert shown["wrapper-params"] == shown["split-params"]
    assert shown["matmuls"] == "6 vs 3"


def test_gpt2_preset_divides_by_8_not_27_7():
    # Section 05: "GPT-2 divides its attention scores by 8, not by 27.7 ... 768 dimensions over 12
    # heads is head_dim 64."
    view = driven(heads)
    widgets(view)[GPT2].clicks += 1
    shown = readouts(view)
    assert shown["head-dim"] == "64"
    assert shown["divisor"] == "√64 = 8"
    assert shown["not-divisor"] == "√768 = 27.7"
    assert shown["split-shape"] == "[2, 6, 768]"
    assert shown["trace-3"] == "[2, 6, 12, 64]"
    assert shown["trace-4"] == "[2, 12, 6, 64]"
    widgets(view)[BOOK].clicks += 1
    assert readouts(view)["head-dim"] == "1"
    assert messages(view) == []


def test_impossible_split_is_explained_then_recovered():
    view = driven(heads)
    _set(view, 3, 10, 3)
    (message,) = messages(view)
    assert "cannot be split into 3 heads" in message and "[1, 2, 5, 10]" in message
    assert readouts(view)["head-dim"] == "not a whole number"
    widgets(view)["num_heads"].value = 5
    assert messages(view) == []
    assert readouts(view)["head-dim"] == "2"


def test_an_empty_box_is_explained():
    view = driven(heads)
    widgets(view)["num_heads"].value = None
    assert "need a value" in messages(view)[0]
    widgets(view)["num_heads"].value = 1
    assert messages(view) == []


@pytest.mark.parametrize("box", ["d_in", "d_out", "num_heads"])
@pytest.mark.parametrize("value", [0, -5, heads.MAX_SIZE + 1, 10**20])
def test_a_size_out_of_range_is_explained_and_the_figure_recovers(box, value):
    # The boxes have no browser-side bounds (which drop an entry silently): the range is said.
    view = driven(heads)
    before = readouts(view)
    widgets(view)[box].value = value
    (message,) = messages(view)
    assert f"between 1 and {heads.MAX_SIZE:,}" in message
    assert readouts(view) == before  # the last good drawing stays
    widgets(view)[box].value = {"d_in": 3, "d_out": 2, "num_heads": 2}[box]
    assert messages(view) == []


@settings(max_examples=examples(50), deadline=None)
@given(
    d_in=st.integers(1, heads.MAX_SIZE) | st.sampled_from([1, heads.MAX_SIZE]),
    d_out=st.integers(1, heads.MAX_SIZE) | st.sampled_from([1, 768, heads.MAX_SIZE]),
    num_heads=st.integers(1, heads.MAX_SIZE) | st.integers(1, 16),
)
def test_any_sizes_give_the_cores_shapes_or_a_message(d_in, d_out, num_heads):
    view = driven(heads)
    _set(view, d_in, d_out, num_heads)
    shown = readouts(view)
    if d_out % num_heads:
        assert messages(view) and shown["head-dim"] == "not a whole number"
        return
    assert messages(view) == []
    wrapper, split = output_shapes(2, 6, d_out, num_heads)
    counts = param_counts(d_in, d_out, num_heads)
    assert shown["wrapper-shape"] == shape_text(wrapper)
    assert shown["split-shape"] == shape_text(split)
    assert shown["wrapper-params"] == shown["split-params"] == integer(counts.split)
    trace = shape_trace(2, 6, d_in, d_out, num_heads)
    assert [shown[f"trace-{k + 1}"] for k in range(len(trace))] == [shape_text(s) for _, s in trace]


def test_stripes_give_each_head_its_own_colour():
    W = heads.query_weights(4, 6)
    image = heads.stripes_rgba(W, head_columns(6, 3)).view(np.uint8).reshape(4, 6, 4)
    rgb = image[..., :3].astype(int)
    # within a head the hue is shared; across heads the dominant channel changes
    dominant = [tuple(np.argsort(rgb[0, c])) for c in range(6)]
    assert dominant[0] == dominant[1] and dominant[2] == dominant[3] and dominant[4] == dominant[5]
    assert len({dominant[0], dominant[2], dominant[4]}) == 3
    # an impossible split: every column in the one muted colour
    grey = heads.stripes_rgba(W, None).view(np.uint8).reshape(4, 6, 4)[..., :3].astype(int)
    assert len({tuple(np.argsort(grey[r, c])) for r in range(4) for c in range(6)}) == 1


def test_weights_are_the_books_first_linear_layer():
    # MultiHeadAttention(3, 2, ...) after seed 123 starts W_query as nn.Linear(3, 2)'s weight.
    from attention.torch_rng import linear_weight, stream

    assert np.array_equal(heads.query_weights(3, 2), linear_weight(stream(123), 3, 2).T)


def _rows(items) -> dict[str, str]:
    return {key: value for key, _, value in items}


def test_readouts_are_functions_of_the_state_alone():
    # No Panel: GPT-2's sizes read off the core; an impossible split says so, and why.
    gpt2 = heads.State(768, 768, 12)
    shown = _rows(heads.readouts(gpt2))
    assert shown["head-dim"] == "64"
    assert shown["split-params"] == integer(param_counts(768, 768, 12).split)
    assert [value for _, _, value in heads.trace(gpt2)] == [
        shape_text(s) for _, s in shape_trace(2, 6, 768, 768, 12)
    ]
    assert heads.message(gpt2) == ""
    odd = heads.State(3, 10, 3)
    assert _rows(heads.readouts(odd)) == {"head-dim": "not a whole number"}
    assert heads.trace(odd) == []
    with pytest.raises(ValueError) as err:
        head_columns(10, 3)
    assert heads.message(odd) == str(err.value)


@pytest.mark.parametrize("state", [heads.State(None, 2, 2), heads.State(3, 2, heads.MAX_SIZE + 1)])
def test_sizes_out_of_range_are_refused_and_named_in_the_message(state):
    with pytest.raises(ValueError):
        heads.readouts(state)
    assert heads.message(state)
