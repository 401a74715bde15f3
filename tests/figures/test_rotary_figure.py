"""The rotary figure in CPython: its readouts are the core's numbers, at the defaults and ends."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import rotary
from attention.models import LLAMA2_7B, LLAMA3_8B
from figures import rotary as fig
from formatting import integer, num, sci
from tests.figures.probe import driven, messages, readouts, widgets
from tests.strategies import examples

Q, K = rotary.example_query_key(LLAMA3_8B.head_dim, fig.SEED)
# Every state the controls can reach.
STATES = st.builds(
    fig.State,
    m=st.integers(0, fig.MAX_POSITION),
    n=st.integers(0, fig.MAX_POSITION),
    s=st.integers(0, fig.MAX_POSITION),
    i=st.integers(1, fig.PAIRS),
    model=st.sampled_from(list(fig.BASE_OPTIONS.values())),
)


def shown(state: fig.State) -> dict[str, str]:
    """What the view should show for ``state``: the pure readouts, by key."""
    return {key: text for key, _, text in fig.readouts(state)}


def set_state(view, state: fig.State) -> None:
    controls = widgets(view)
    controls["Query position m"].value = state.m
    controls["Key position n"].value = state.n
    controls["Move both by s"].value = state.s
    controls["Pair i"].value = state.i
    controls["Base of the frequencies"].value = state.model


def expected(state: fig.State) -> dict[str, str]:
    """The rows computed straight from the core, independently of the figure's code."""
    model = LLAMA2_7B if state.model == LLAMA2_7B.name else LLAMA3_8B
    base, d = model.rope_base, model.head_dim
    before = rotary.score(Q, K, state.m, state.n, base)
    after = rotary.score(Q, K, state.m + state.s, state.n + state.s, base)
    theta = rotary.frequencies(d, base)[state.i - 1]
    q_m, k_n = rotary.rotate(Q, state.m, base), rotary.rotate(K, state.n, base)
    angle = rotary.angle_between(rotary.pair(q_m, state.i), rotary.pair(k_n, state.i))
    difference = after - before
    return {
        "offset": integer(state.m - state.n),
        "theta": fig.rate_text(theta),
        "wavelength": fig.length_text(rotary.wavelengths(d, base)[state.i - 1]),
        "angle": f"{num(math.degrees(angle), 1)}°",
        "score": num(before, 15),
        "shifted": num(after, 15),
        "difference": "0 (exact)" if difference == 0 else sci(difference, 1),
        "norm": fig.difference_text(float(np.linalg.norm(q_m) - np.linalg.norm(Q))),
        "turns": f"{rotary.full_turns_within(d, model.context, base)} of {d // 2}",
    }


def test_defaults_are_the_cores_numbers():
    want = expected(fig.DEFAULT)
    got = shown(fig.DEFAULT)
    assert {k: got[k] for k in want} == want
    assert got["theta"] == "1.0000"  # pair 1 turns one radian per token at any base
    assert got["offset"] == "3"


def test_the_default_shift_changes_the_score_by_rounding_only():
    # In exact arithmetic the two scores are equal; in float64 they differ in the last digits.
    before = rotary.score(Q, K, fig.DEFAULT.m, fig.DEFAULT.n)
    after = rotary.score(Q, K, fig.DEFAULT.m + fig.DEFAULT.s, fig.DEFAULT.n + fig.DEFAULT.s)
    assert 0 < abs(after - before) < 1e-12 * abs(before)
    assert num(before, 4) == num(after, 4)


def test_no_shift_is_exactly_no_change():
    got = shown(fig.State(s=0))
    assert got["difference"] == "0 (exact)"
    assert got["score"] == got["shifted"]


def test_the_angle_depends_on_the_offset_alone():
    a = shown(fig.State(m=5, n=2, i=7))["angle"]
    assert shown(fig.State(m=105, n=102, i=7))["angle"] == a
    assert shown(fig.State(m=6, n=2, i=7))["angle"] != a


def test_the_base_select_names_both_models_and_their_bases():
    assert fig.BASE_OPTIONS == {
        "Llama 2 (base 10,000)": LLAMA2_7B.name,
        "Llama 3 (base 500,000)": LLAMA3_8B.name,
    }


def test_extremes():
    last = fig.State(m=fig.MAX_POSITION, n=0, s=fig.MAX_POSITION, i=fig.PAIRS, model=LLAMA3_8B.name)
    want = expected(last)
    got = shown(last)
    assert {k: got[k] for k in want} == want
    assert got["offset"] == integer(LLAMA3_8B.context - 1)
    first = fig.State(m=0, n=fig.MAX_POSITION, s=0, i=1, model=LLAMA2_7B.name)
    assert {k: shown(first)[k] for k in expected(first)} == expected(first)


def test_the_view_shows_its_readouts_for_several_states():
    view = driven(fig)
    assert readouts(view) == shown(fig.DEFAULT)
    for state in [
        fig.State(m=0, n=0, s=0, i=1),
        fig.State(m=100, n=40, s=4000, i=20, model=LLAMA3_8B.name),
        fig.State(m=fig.MAX_POSITION, n=3, s=fig.MAX_POSITION, i=fig.PAIRS),
    ]:
        set_state(view, state)
        assert readouts(view) == shown(state)
        assert messages(view) == []


@settings(max_examples=examples(40), deadline=None)
@given(state=STATES)
def test_every_state_reads_the_core(state):
    got = shown(state)
    want = expected(state)
    assert {k: got[k] for k in want} == want
    # the float error is tiny against the score's size, never a real change
    assert abs(float(got["shifted"]) - float(got["score"])) < 1e-10 * max(
        1.0, np.abs(Q) @ np.abs(K)
    )


def test_a_pair_out_of_range_is_refused_and_the_last_drawing_kept():
    view = driven(fig)
    before = readouts(view)
    pair = widgets(view)["Pair i"]
    pair.value = fig.PAIRS + 1  # no reader can do this: the slider stops at the last pair
    assert any("pair i must be an integer from 1 to 64" in m for m in messages(view))
    assert readouts(view) == before
    pair.value = 3
    assert messages(view) == []


@given(state=STATES)
def test_every_arrow_is_seen_and_no_two_heads_meet(state):
    """At every state, each arrow is at least a third of the plane's radius long, points along
    its pair, and no two arrowheads (nor the labels drawn at them) are closer than 0.15."""
    arrows = fig.draw(state)["arrows"]["data"]
    tips = np.column_stack([arrows["x1"], arrows["y1"]])
    pairs = np.column_stack([arrows["px"], arrows["py"]])
    assert (np.linalg.norm(tips, axis=1) >= 1 / 3).all()
    directions = pairs / np.linalg.norm(pairs, axis=1, keepdims=True)
    np.testing.assert_allclose(tips / np.linalg.norm(tips, axis=1, keepdims=True), directions)
    gaps = np.linalg.norm(tips[:, None] - tips[None, :], axis=2) + np.eye(4)
    assert gaps.min() >= 0.15, gaps


def test_the_default_pair_was_too_short_to_see_when_drawn_at_its_length():
    """Why the arrows are drawn at lengths of their own: pair 1 of the example query is a
    small fraction of its typical length (a standard normal pair's is about 1.25)."""
    assert np.linalg.norm(rotary.pair(Q, 1)) < 0.25
