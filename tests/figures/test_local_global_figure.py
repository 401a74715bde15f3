"""The local/global figure (figures/local_global.py): its readouts are the core's caches for the
model and length, the lines are those caches at every length, the strip is the model's pattern,
and the view shows the pure readouts."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import interleaved as il
from attention.models import GEMMA2_9B, GEMMA3_12B, INTERLEAVED
from figures import local_global as lg
from formatting import bytes_text, percent
from tests.figures.probe import driven_to, messages, readouts
from tests.strategies import examples


def shown(state: lg.State) -> dict[str, str]:
    return {key: text for key, _, text in lg.readouts(state)}


def test_the_default_is_gemma_3_at_32k():
    rows = shown(lg.DEFAULT)
    assert rows["layers"] == "40 local (window 1,024) + 8 global"
    assert rows["mixed"] == rows["shown"] == bytes_text(il.cache_bytes(GEMMA3_12B, 2**15))
    assert rows["full"] == "12 GiB"  # 48 layers x 32,768 tokens x 8 KiB
    assert rows["global-share"] == percent(il.global_share(GEMMA3_12B, 2**15))


def test_the_switch_shows_every_layer_global_and_a_length_past_the_context_says_so():
    state = lg.State(model=GEMMA2_9B.name, tokens=2**17, every_layer_global=True)
    rows = shown(state)
    assert rows["shown"] == rows["full"] == "42 GiB"
    assert rows["context"] == "8,192 tokens; 131,072 is past it"
    assert set(lg.strip_columns(state)["kind"]) == {il.GLOBAL}
    assert lg.strip_columns(lg.State(model=GEMMA2_9B.name))["kind"][:3] == [
        "local",
        "global",
        "local",
    ]


def test_the_lines_are_the_caches_at_every_length_and_the_point_is_on_the_shown_one():
    state = lg.State(model=GEMMA2_9B.name, tokens=2**13)
    lines = lg.line_columns(state)
    for n, mixed, full in zip(lines["tokens"], lines["mixed"], lines["full"], strict=True):
        assert mixed * 2**30 == il.cache_bytes(GEMMA2_9B, n)
        assert full * 2**30 == il.cache_bytes(GEMMA2_9B, n, every_layer_global=True)
    assert lg.point_columns(state)["gib"] == [lines["mixed"][lg.LENGTHS.index(2**13)]]
    drawing = lg.draw(state)
    assert drawing["context"] == {"location": 8192}
    assert drawing["strip.x_range"] == {"end": 42.5}


def test_an_unknown_model_says_which_there_are():
    with pytest.raises(ValueError, match="Gemma 2 9B, Gemma 3 12B"):
        lg.readouts(lg.State(model="Gemma 1"))


@settings(max_examples=examples(40), deadline=None)
@given(
    model=st.sampled_from([m.name for m in INTERLEAVED]),
    tokens=st.sampled_from(lg.LENGTHS),
    every_layer_global=st.booleans(),
)
def test_every_state_of_the_view_shows_the_pure_readouts(model, tokens, every_layer_global):
    names = [c.name for c in lg.CONTROLS]
    view = driven_to(lg, dict(zip(names, (model, tokens, every_layer_global), strict=True)))
    assert readouts(view) == shown(lg.State(model, tokens, every_layer_global))
    assert messages(view) == []


def test_the_strip_counts_layers_from_1():
    strip = lg.strip_columns(lg.State(model=GEMMA2_9B.name))
    assert strip["layer"] == list(range(1, GEMMA2_9B.layers + 1))
    assert lg.draw(lg.State(model=GEMMA2_9B.name))["strip.x_range"] == {"end": 42.5}
