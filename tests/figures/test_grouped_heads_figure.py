"""The grouped-heads figure in CPython: readouts from the core, every layout and K/V count,
bad input refused with the divisors while the last drawing stays."""

import numpy as np
import pytest

from attention import grouped as gq
from attention.fixtures import book_inputs
from attention.heads import multihead_split
from attention.models import LLAMA2_7B, LLAMA2_70B, MISTRAL_7B
from figurekit.drawing import contrast
from figures import grouped_heads as fig
from formatting import bytes_text, integer, noise_text, percent
from tests.figures.probe import driven, messages, readouts, widgets

LAYOUT, KV = "Head layout", "K/V heads"


def shown(state: fig.State) -> dict[str, str]:
    return {key: text for key, _, text in fig.readouts(state)}


def test_defaults_are_the_toys_core_numbers():
    rows = shown(fig.DEFAULT)
    model, kv = gq.TOY, gq.TOY.kv_heads
    assert rows["heads"] == f"{model.heads} / {kv}"
    assert rows["kind"].startswith("grouped-query")
    assert rows["allowed"] == ", ".join(map(str, gq.allowed_kv_heads(model.heads)))
    assert rows["kv-params"] == integer(gq.model_params(model, kv).key_value)
    assert rows["cache"] == f"{integer(gq.cache_bytes_per_token(model, kv))} bytes"
    assert rows["ratio"] == f"{kv}/{model.heads} = {percent(kv / model.heads)}"


def test_the_difference_readout_is_gqa_against_copied_multihead():
    X = book_inputs()
    W_q, W_k, W_v = gq.toy_weights(8, 2)
    ours = gq.grouped_query_attention(X, W_q, W_k, W_v, 8, 2)
    mha = multihead_split(X, W_q, gq.repeat_kv(W_k, 8, 2), gq.repeat_kv(W_v, 8, 2), 8)
    assert shown(fig.DEFAULT)["difference"] == noise_text(float(np.max(np.abs(ours - mha))))
    assert shown(fig.DEFAULT)["difference"] == "0"


def test_llama2_70b_caches_an_eighth_of_multihead():
    rows = shown(fig.State(LLAMA2_70B.name, LLAMA2_70B.kv_heads))
    assert rows["heads"] == "64 / 8"
    assert rows["ratio"] == f"8/64 = {percent(1 / 8)}"
    assert rows["cache"] == f"{integer(gq.cache_bytes_per_token(LLAMA2_70B))} bytes"
    full = gq.cache_bytes(LLAMA2_70B, LLAMA2_70B.context)
    mha = gq.cache_bytes(LLAMA2_70B, LLAMA2_70B.context, LLAMA2_70B.heads)
    assert rows["cache-context"] == f"{bytes_text(full)} vs {bytes_text(mha)}"
    assert rows["kv-params-mha"] == integer(gq.model_params(LLAMA2_70B, 64).key_value)


@pytest.mark.parametrize("model", [gq.TOY, LLAMA2_7B, MISTRAL_7B, LLAMA2_70B])
def test_the_extremes_multi_query_and_multi_head(model):
    one = shown(fig.State(model.name, 1))
    every = shown(fig.State(model.name, model.heads))
    assert one["kind"].startswith("multi-query") and one["heads"] == f"{model.heads} / 1"
    assert every["kind"].startswith("multi-head")
    assert one["cache"] == f"{integer(gq.cache_bytes_per_token(model, 1))} bytes"
    assert every["ratio"].endswith(percent(1.0))
    assert one["difference"] == every["difference"] == "0"


def test_the_stripes_colour_each_query_head_by_its_kv_head():
    quads, labels = fig.stripes(8, 2)
    colors = quads["color"]
    assert colors[:8] == [fig.KV_COLORS[g] for g in gq.kv_head_of(8, 2)]
    assert colors[8:] == [fig.KV_COLORS[0], fig.KV_COLORS[1]]
    assert labels["text"] == [f"q{h}" for h in range(1, 9)] + ["kv1", "kv2"]
    one, _ = fig.stripes(8, 1)
    assert len(set(one["color"])) == 1  # multi-query: one K/V head, one colour


def test_the_view_shows_its_readouts_for_every_layout_and_count():
    view = driven(fig)
    controls = widgets(view)
    assert readouts(view) == shown(fig.DEFAULT)
    for model in fig.LAYOUTS:
        controls[LAYOUT].value = model.name
        assert controls[KV].value == model.kv_heads  # a layout loads its published count
        assert readouts(view) == shown(fig.State(model.name, model.kv_heads))
        for kv in gq.allowed_kv_heads(model.heads):
            controls[KV].value = kv
            assert readouts(view) == shown(fig.State(model.name, kv))
            assert messages(view) == []


def test_the_two_end_buttons():
    view = driven(fig)
    controls = widgets(view)
    controls[LAYOUT].value = MISTRAL_7B.name
    controls["Multi-query: 1 K/V head"].clicks += 1
    assert controls[KV].value == 1
    assert readouts(view) == shown(fig.State(MISTRAL_7B.name, 1))
    controls["Multi-head: H K/V heads"].clicks += 1
    assert readouts(view) == shown(fig.State(MISTRAL_7B.name, MISTRAL_7B.heads))


@pytest.mark.parametrize("bad", [3, 0, -8, 16, None, 2**63 - 1])
def test_bad_counts_give_a_message_and_keep_the_last_drawing(bad):
    view = driven(fig)
    controls = widgets(view)
    before = readouts(view)
    controls[KV].value = bad
    assert readouts(view) == before
    (message,) = messages(view)
    assert "[1, 2, 4, 8]" in message
    controls[KV].value = gq.TOY.kv_heads
    assert messages(view) == []


def test_a_non_divisor_message_names_the_divisors():
    with pytest.raises(ValueError, match=r"can be one of \[1, 2, 4, 8, 16, 32\]"):
        fig.readouts(fig.State(MISTRAL_7B.name, 5))


@pytest.mark.parametrize("kv_heads", [1, 2, 4, 8])
def test_every_stripe_label_reads_on_its_stripe(kv_heads):
    quads, labels = fig.stripes(fig.TOY.heads, kv_heads)
    fill_of = dict(zip(quads["head"], quads["color"], strict=True))
    for text, color in zip(labels["text"], labels["color"], strict=True):
        assert contrast(color, fill_of[text]) >= 4.5, (text, color, fill_of[text])
