"""The key/value cache figure in CPython: its readouts are the core's numbers, at every state."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from attention.fixtures import TOKENS
from attention.kv_cache import book_generation, kv_cache_bytes, total_work
from attention.models import LLAMA2_7B, MISTRAL_7B, MODELS, by_name
from figures import kv_cache
from formatting import bytes_text, integer, vec
from tests.figures.probe import driven, messages, readouts, widgets
from tests.strategies import examples

T = len(TOKENS)
NAMES = ("Step t", "Key/value cache on", "Model", "Tokens in the cache")


def shown(state: kv_cache.State) -> dict[str, str]:
    return {key: text for key, _, text in kv_cache.readouts(state)}


def test_readouts_are_the_cores_numbers_at_the_defaults():
    without, with_cache = book_generation()
    state = kv_cache.DEFAULT
    rows = shown(state)
    plain, cached = without[state.step - 1], with_cache[state.step - 1]
    assert rows["work-without"] == integer(sum(plain.work.values()))
    assert rows["work-with"] == integer(sum(cached.work.values()))
    assert rows["total-without"] == integer(total_work(list(without)))
    assert rows["total-with"] == integer(total_work(list(with_cache)))
    assert rows["output-without"] == vec(plain.output, kv_cache.DIGITS)
    assert rows["output-with"] == rows["output-without"]
    assert rows["difference"] == "0 (identical floats)"
    assert rows["per-token"] == f"{integer(kv_cache_bytes(LLAMA2_7B, 1))} bytes"
    assert rows["per-token-binary"] == bytes_text(kv_cache_bytes(LLAMA2_7B, 1))
    assert rows["at-context"] == bytes_text(kv_cache_bytes(LLAMA2_7B, LLAMA2_7B.context))


def test_the_extremes():
    # The first step costs the same either way; the last is where the routes part most.
    first, last = shown(kv_cache.State(step=1)), shown(kv_cache.State(step=T))
    assert first["work-without"] == first["work-with"]
    without, with_cache = book_generation()
    assert last["work-without"] == integer(sum(without[-1].work.values()))
    assert last["work-with"] == integer(sum(with_cache[-1].work.values()))
    assert last["token"] == f"{T} of {T}: {TOKENS[-1]}"
    one = shown(kv_cache.State(model=MODELS[0].name, tokens=1))
    assert one["at-tokens"] == bytes_text(kv_cache_bytes(MODELS[0], 1))
    most = shown(kv_cache.State(model=MODELS[-1].name, tokens=max(kv_cache.LENGTHS)))
    assert most["at-tokens"] == bytes_text(kv_cache_bytes(MODELS[-1], max(kv_cache.LENGTHS)))


def test_every_step_prints_the_same_floats_on_both_routes():
    without, with_cache = book_generation()
    for t in range(1, T + 1):
        for cached in (False, True):
            rows = shown(kv_cache.State(step=t, cached=cached))
            assert rows["output-with"] == rows["output-without"]
            assert rows["output-with"] == vec(with_cache[t - 1].output, kv_cache.DIGITS)
            assert np.array_equal(without[t - 1].output, with_cache[t - 1].output)
            assert rows["difference"] == "0 (identical floats)"


def test_the_grid_marks_new_and_cached_rows():
    values, text = kv_cache.grid(kv_cache.State(step=4, cached=True))
    assert [text[3 * i + 1] for i in range(T)] == ["cache"] * 3 + ["new"] + [""] * 2
    assert [text[3 * i] for i in range(T)] == [""] * 3 + ["new"] + [""] * 2  # one query
    values, text = kv_cache.grid(kv_cache.State(step=4, cached=False))
    assert [text[3 * i + c] for i in range(T) for c in range(3)] == ["new"] * 12 + [""] * 6
    assert np.isnan(values[4:]).all()


def test_the_bars_are_each_steps_work():
    columns = kv_cache.work_columns(kv_cache.State(step=2))
    without, with_cache = book_generation()
    assert columns["without"] == [sum(s.work.values()) for s in without]
    assert columns["with"] == [sum(s.work.values()) for s in with_cache]
    assert columns["edge_alpha"] == [0.0, 1.0, 0.0, 0.0, 0.0, 0.0]


def test_a_bar_past_its_models_context_is_marked():
    tokens = 8192  # past Llama 2's 4,096, within the others'
    columns = kv_cache.model_columns(kv_cache.State(tokens=tokens))
    for model, text, alpha in zip(MODELS, columns["text"], columns["alpha"], strict=True):
        past = tokens > model.context
        assert text == f" {bytes_text(kv_cache_bytes(model, tokens))}" + (
            ", past its context" if past else ""
        )
        assert alpha < 1.0 if past else alpha == 1.0
    assert [a < 1.0 for a in columns["alpha"]] == [m.context < tokens for m in MODELS]


def test_notes_for_lengths_past_the_context_and_the_window():
    assert kv_cache.notes(kv_cache.DEFAULT) == ""
    past = kv_cache.notes(kv_cache.State(model=LLAMA2_7B.name, tokens=2 * LLAMA2_7B.context))
    assert integer(LLAMA2_7B.context) in past
    window = kv_cache.notes(kv_cache.State(model=MISTRAL_7B.name, tokens=2 * MISTRAL_7B.window))
    assert bytes_text(kv_cache_bytes(MISTRAL_7B, MISTRAL_7B.window)) in window


def test_the_view_shows_its_readouts():
    view = driven(kv_cache)
    controls = widgets(view)
    assert set(NAMES) <= set(controls)
    assert readouts(view) == shown(kv_cache.DEFAULT)
    assert messages(view) == []


@settings(max_examples=examples(40), deadline=None)
@given(
    step=st.integers(1, T),
    cached=st.booleans(),
    model=st.sampled_from([m.name for m in MODELS]),
    tokens=st.sampled_from(kv_cache.LENGTHS),
)
def test_every_state_of_the_view_shows_the_pure_readouts(step, cached, model, tokens):
    view = driven(kv_cache)
    controls = widgets(view)
    for name, value in zip(NAMES, (step, cached, model, tokens), strict=True):
        controls[name].value = value
    state = kv_cache.State(step, cached, model, tokens)
    assert readouts(view) == shown(state)
    assert readouts(view)["at-tokens"] == bytes_text(kv_cache_bytes(by_name(model), tokens))
    assert [kv_cache.notes(state)] == (messages(view) or [""])
