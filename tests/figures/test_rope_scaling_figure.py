"""The rope-scaling figure (figures/rope_scaling.py): its readouts are the core's counts for the
model and method, its columns every pair's period before and after, and the view shows the
pure readouts."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import rope_scaling as rs
from figures import rope_scaling as fig
from tests.figures.probe import driven_to, messages, readouts
from tests.strategies import examples


def shown(state: fig.State) -> dict[str, str]:
    return {key: text for key, _, text in fig.readouts(state)}


def test_the_default_is_llama_3_1s_own_rule():
    rows = shown(fig.DEFAULT)
    assert rows["pairs"] == "64 of a 128-wide part, base 500,000"
    assert rows["lengths"] == "8,192 × 8 = 65,536 tokens"
    assert (rows["kept"], rows["stretched"], rows["blended"]) == ("29", "29", "6")
    assert rows["first"] == "6.28 → 6.28"  # 2 pi: pair 1 turns a radian per token, kept
    assert rows["temperature"] == "1.2079"  # the paper's formula at s = 8


def test_deepseek_v2_under_interpolation():
    rows = shown(fig.State(model=rs.DEEPSEEK_V2_ROPE.name, method="interpolation"))
    assert (rows["kept"], rows["stretched"], rows["blended"]) == ("0", "32", "0")
    assert rows["first"] == "6.28 → 251"  # 2 pi x 40
    assert rows["temperature"] == "1.3689"


def test_the_columns_are_the_periods_and_their_ratio():
    state = fig.State(method="ntk")
    columns = fig.period_columns(state)
    before = np.array(columns["before"])
    assert columns["pair"] == list(range(1, 65))
    np.testing.assert_allclose(columns["after"], rs.scaled_periods(rs.LLAMA31_8B, "ntk"))
    np.testing.assert_allclose(columns["stretch"], np.array(columns["after"]) / before)
    drawing = fig.draw(state)
    assert drawing["target"] == {"location": 65536.0}
    assert drawing["periods.x_range"] == {"end": 64.5}


def test_an_unknown_model_says_which_there_are():
    with pytest.raises(ValueError, match=r"Llama 3\.1 8B, DeepSeek-V2"):
        fig.readouts(fig.State(model="Llama 2"))


@settings(max_examples=examples(20), deadline=None)
@given(
    model=st.sampled_from([sc.name for sc in rs.SCALINGS]),
    method=st.sampled_from(list(fig.METHODS.values())),
)
def test_every_state_of_the_view_shows_the_pure_readouts(model, method):
    names = [c.name for c in fig.CONTROLS]
    view = driven_to(fig, dict(zip(names, (model, method), strict=True)))
    assert readouts(view) == shown(fig.State(model, method))
    assert messages(view) == []
