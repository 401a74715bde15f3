"""The latent-cache figure in CPython: DeepSeek-V2's cache four ways, and the tiny layer's gap."""

import re
from html import unescape

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention.latent import (
    LATENT_WIDTHS,
    TINY_HEADS,
    absorption_gap,
    cache_comparison,
    equivalent_groups,
    tiny_weights,
)
from attention.models import DEEPSEEK_V2
from figures import latent_cache
from formatting import bytes_text, integer, noise_text, num, percent
from tests.figures.probe import driven, messages, readouts, widgets
from tests.strategies import examples

LATENT, GROUPS, CONTEXT, TINY = (
    "Latent width d_c",
    "GQA groups",
    "Context length T",
    "Tiny layer's d_c",
)


def shown(state: latent_cache.State) -> dict[str, str]:
    """What the view should show for ``state``: the pure readouts, by key."""
    return {key: text for key, _, text in latent_cache.readouts(state)}


def expected(state: latent_cache.State) -> dict[str, str]:
    """The readouts computed from the core alone."""
    rows = cache_comparison(DEEPSEEK_V2, state.groups, state.latent, state.context)
    want = {}
    for row in rows:
        want[f"{row.kind}-layer"] = integer(row.per_layer)
        want[f"{row.kind}-token"] = bytes_text(row.token_bytes)
        want[f"{row.kind}-context"] = bytes_text(row.context_bytes)
        want[f"{row.kind}-ratio"] = percent(row.of_mha, 2)
    same = equivalent_groups(DEEPSEEK_V2._replace(kv_latent=state.latent))
    want["groups-equal"] = f"{num(same, 2)} groups"
    X, W = tiny_weights(state.tiny_latent, state.seed)
    want["gap"] = noise_text(absorption_gap(X, W, TINY_HEADS))
    want["seed"] = integer(state.seed)
    return want


def test_the_defaults_are_deepseek_v2s_own_sizes():
    state = latent_cache.DEFAULT
    assert (state.latent, state.context) == (DEEPSEEK_V2.kv_latent, DEEPSEEK_V2.context)
    assert shown(state) == expected(state)
    # The paper's Table 1 at DeepSeek-V2's sizes: (d_c + d_h^R) = 576 per layer, 2.25 groups.
    assert shown(state)["mla-layer"] == integer(DEEPSEEK_V2.kv_latent + DEEPSEEK_V2.rope_head_dim)
    assert shown(state)["groups-equal"] == "2.25 groups"


def test_the_view_shows_its_readouts_at_the_defaults():
    view = driven(latent_cache)
    assert readouts(view) == shown(latent_cache.DEFAULT)
    assert messages(view) == []


@pytest.mark.parametrize(
    "state",
    [
        latent_cache.State(
            min(latent_cache.LATENTS),
            min(latent_cache.GROUPS),
            min(latent_cache.LENGTHS),
            LATENT_WIDTHS[0],
            0,
        ),
        latent_cache.State(
            max(latent_cache.LATENTS),
            max(latent_cache.GROUPS),
            max(latent_cache.LENGTHS),
            LATENT_WIDTHS[-1],
            3,
        ),
    ],
    ids=["smallest", "largest"],
)
def test_readouts_at_the_extremes_are_the_cores(state):
    assert shown(state) == expected(state)


@settings(max_examples=examples(25), deadline=None)
@given(
    latent=st.sampled_from(latent_cache.LATENTS),
    groups=st.sampled_from(latent_cache.GROUPS),
    context=st.sampled_from(latent_cache.LENGTHS),
    tiny=st.sampled_from(LATENT_WIDTHS),
    clicks=st.integers(0, 2),
)
def test_the_view_shows_the_cores_numbers_for_any_controls(latent, groups, context, tiny, clicks):
    view = driven(latent_cache)
    controls = widgets(view)
    for _ in range(clicks):
        controls["Resample"].clicks += 1
    controls[LATENT].value = latent
    controls[GROUPS].value = groups
    controls[CONTEXT].value = context
    controls[TINY].value = tiny
    state = latent_cache.State(latent, groups, context, tiny, latent_cache.FIRST_SEED + clicks)
    assert readouts(view) == shown(state) == expected(state)
    assert messages(view) == []


def test_the_gap_bars_are_the_cores_gaps_and_the_picked_width_stands_out():
    state = latent_cache.State(tiny_latent=6, seed=2)
    columns = latent_cache._gap_columns(state)
    gaps = [absorption_gap(*tiny_weights(d_c, 2), TINY_HEADS) for d_c in LATENT_WIDTHS]
    assert columns["text"] == [noise_text(g) for g in gaps]
    assert columns["gap"] == [max(g, latent_cache.GAP_FLOOR) for g in gaps]
    assert columns["color"].count(latent_cache.ACCENT) == 1
    assert columns["color"][LATENT_WIDTHS.index(6)] == latent_cache.ACCENT
    # Every gap is rounding: within a few units of float64's spacing at 1, on the plot's axis.
    assert all(g < 1e-12 for g in gaps)


def test_the_cache_bars_fit_the_axis_at_every_setting():
    for latent in latent_cache.LATENTS:
        for context in latent_cache.LENGTHS:
            for groups in latent_cache.GROUPS:
                state = latent_cache.State(latent, groups, context)
                heights = latent_cache._cache_columns(state)["bytes"]
                assert all(latent_cache.BYTES_FLOOR < h < 8e12 for h in heights)


def test_a_refused_state_keeps_the_last_drawing():
    # No control can ask for a state the core refuses, so force one: the drawing stays.
    view = driven(latent_cache)
    before = readouts(view)
    controls = widgets(view)
    original = latent_cache.cache_comparison

    def refuse(*args, **kwargs):
        raise ValueError("groups must divide the heads")

    latent_cache.cache_comparison = refuse
    try:
        controls[LATENT].value = 256
    finally:
        latent_cache.cache_comparison = original
    assert messages(view) == ["groups must divide the heads"]
    assert readouts(view) == before
    controls[LATENT].value = 1024
    assert messages(view) == []
    assert readouts(view) == shown(latent_cache.State(latent=1024))


def test_mla_at_deepseek_v2s_sizes_is_under_one_fiftieth_of_mha():
    # MLA's (d_c + d_h^R) against MHA's 2 n_h d_h numbers per token and layer (Table 1).
    ds = DEEPSEEK_V2
    rows = {r.kind: r for r in cache_comparison()}
    assert rows["mla"].of_mha == (ds.kv_latent + ds.rope_head_dim) / (2 * ds.heads * ds.head_dim)
    assert rows["mla"].of_mha < 1 / 50
    assert shown(latent_cache.DEFAULT)["mla-ratio"] == percent(rows["mla"].of_mha, 2)


def test_the_caches_are_compared_in_a_table_kind_by_quantity():
    """One row per kind of cache, one column per quantity, each cell the readout of that key;
    the rest as a list below."""
    state = latent_cache.DEFAULT
    html = unescape(latent_cache.readout(state))
    rows = re.findall(r'<tr><th scope="row">([^<]+)</th>(.*?)</tr>', html)
    kinds = cache_comparison(DEEPSEEK_V2, state.groups, state.latent, state.context)
    assert [label for label, _ in rows] == [row.label for row in kinds]
    values = {key: value for key, _, value in latent_cache.readouts(state)}
    for row, (_, cells) in zip(kinds, rows, strict=True):
        keys = re.findall(r'<td data-readout="([^"]+)">', cells)
        assert keys == [f"{row.kind}-{q}" for q in latent_cache.QUANTITIES]
        assert re.findall(r"<td[^>]*>([^<]*)</td>", cells) == [values[k] for k in keys]
    assert '<dd data-readout="groups-equal">' in html
