"""The decoding figure (figures/decode.py): its readouts are the core's numbers for the model
as shown, the lines are the bound at every length, and the view shows the pure readouts."""

from hypothesis import given, settings
from hypothesis import strategies as st

from attention import decode as dc
from attention.models import LLAMA3_8B, MISTRAL_7B, by_name
from figures import decode
from formatting import bytes_text, integer, percent
from tests.figures.probe import driven, messages, readouts, widgets
from tests.strategies import examples


def shown(state: decode.State) -> dict[str, str]:
    return {key: text for key, _, text in decode.readouts(state)}


def test_the_default_is_the_posts_worked_example():
    state = decode.DEFAULT
    assert (state.model, state.tokens, state.batch) == (
        MISTRAL_7B.name,
        dc.EXAMPLE_TOKENS,
        dc.EXAMPLE_BATCH,
    )
    rows = shown(state)
    assert rows["parameters"] == integer(dc.parameters(MISTRAL_7B))
    assert rows["step-bytes"] == bytes_text(dc.step_bytes(MISTRAL_7B, 4096, 16))
    assert rows["rate"] == integer(round(dc.tokens_per_second(MISTRAL_7B, 4096, 16)))
    assert rows["cache-share"] == percent(dc.cache_share(MISTRAL_7B, 4096, 16))
    mha = dc.as_multi_head(MISTRAL_7B)
    assert rows["other-rate"] == integer(round(dc.tokens_per_second(mha, 4096, 16)))


def test_the_switch_computes_the_model_with_a_kv_head_per_query_head():
    rows = shown(decode.State(multi_head=True))
    mha = dc.as_multi_head(MISTRAL_7B)
    assert rows["kv-heads"].startswith(integer(mha.kv_heads))
    assert rows["rate"] == integer(round(dc.tokens_per_second(mha, 4096, 16)))
    assert rows["other-rate"] == integer(round(dc.tokens_per_second(MISTRAL_7B, 4096, 16)))


def test_the_lines_are_the_bound_at_every_length_and_the_point_is_on_the_shown_line():
    state = decode.State(model=LLAMA3_8B.name, tokens=2**15, batch=4, multi_head=True)
    lines = decode.rate_columns(state)
    assert lines["tokens"] == list(decode.LENGTHS)
    for n, released, mha in zip(
        lines["tokens"], lines["released"], lines["multi_head"], strict=True
    ):
        assert released == dc.tokens_per_second(LLAMA3_8B, n, 4)
        assert mha == dc.tokens_per_second(dc.as_multi_head(LLAMA3_8B), n, 4) < released
    point = decode.point_columns(state)
    assert point["rate"] == [lines["multi_head"][decode.LENGTHS.index(2**15)]]
    # Mistral's line goes flat past its window.
    flat = decode.rate_columns(decode.State())["released"]
    past = [r for n, r in zip(decode.LENGTHS, flat, strict=True) if n >= MISTRAL_7B.window]
    assert len(set(past)) == 1


def test_the_bars_split_a_step_into_weights_and_cache():
    bars = decode.bytes_columns(decode.DEFAULT)
    assert bars["part"] == ["weights", "cache"]
    total = dc.step_bytes(MISTRAL_7B, 4096, 16)
    assert sum(bars["gib"]) * 2**30 == total


@settings(max_examples=examples(40), deadline=None)
@given(
    model=st.sampled_from([m.name for m in decode.DECODERS]),
    tokens=st.sampled_from(decode.LENGTHS),
    batch=st.sampled_from(decode.BATCHES),
    multi_head=st.booleans(),
)
def test_every_state_of_the_view_shows_the_pure_readouts(model, tokens, batch, multi_head):
    view = driven(decode)
    controls = widgets(view)
    names = [c.name for c in decode.CONTROLS]
    for name, value in zip(names, (model, tokens, batch, multi_head), strict=True):
        controls[name].value = value
    state = decode.State(model, tokens, batch, multi_head)
    assert readouts(view) == shown(state)
    assert messages(view) == []
    shown_model = dc.as_multi_head(by_name(model)) if multi_head else by_name(model)
    assert readouts(view)["step-bytes"] == bytes_text(dc.step_bytes(shown_model, tokens, batch))
