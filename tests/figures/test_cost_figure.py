"""The cost figure in CPython: exact integers at 1,024 and 1,047,576 tokens, every stop."""

from hypothesis import given, settings
from hypothesis import strategies as st

from attention.cost import REF_TOKENS, cards_needed, scaled_time, score_matrix_bytes
from figures import cost
from formatting import hours_text, integer, ratio_text, seconds_text
from tests.figures.probe import driven, messages, readouts, widgets
from tests.strategies import examples


def test_gpt41s_window():
    # Section 06: "2,194,830,951,552 bytes, about 2 TiB ... the exact ceiling is 26, because the
    # ratio is 25.55 ... The unrounded scaling gives 104,658 seconds, or 29.07 hours."
    view = driven(cost)
    widgets(view)["Context length T"].value = max(cost.LENGTHS)
    shown = readouts(view)
    assert shown["tokens"] == "1,047,576"
    assert shown["bytes"] == "2,194,830,951,552"
    assert shown["bytes-binary"] == "2.00 TiB"
    assert shown["card-ratio"] == "25.55"
    assert shown["cards"] == "26"
    assert shown["seconds"] == "104,658"
    assert shown["hours"] == "29.07"


def test_1024_tokens_is_2_mib():
    # Section 06: "At 1,024 tokens and two bytes a score, one head's attention matrix is 2 MiB".
    view = driven(cost)
    widgets(view)["Context length T"].value = 1024
    assert readouts(view)["bytes-binary"] == "2 MiB"
    assert readouts(view)["bytes"] == "2,097,152"


def test_the_slider_runs_from_one_token_to_the_window_on_a_log_scale():
    assert cost.LENGTHS[0] == 1 and cost.LENGTHS[-1] == 1_047_576
    ratios = [b / a for a, b in zip(cost.LENGTHS, cost.LENGTHS[1:], strict=False)]
    assert all(r > 1.9 for r in ratios)


@settings(max_examples=examples(60), deadline=None)
@given(
    n=st.sampled_from(cost.LENGTHS),
    per_score=st.sampled_from(list(cost.BYTES_PER_SCORE.values())),
    card=st.sampled_from(list(cost.CARD_SIZES.values())),
)
def test_every_stop_gives_the_cores_integers(n, per_score, card):
    view = driven(cost)
    controls = widgets(view)
    controls["Context length T"].value = n
    controls["Bytes per score"].value = per_score
    controls["Card memory"].value = card
    n_bytes = score_matrix_bytes(n, per_score)
    ratio, cards = cards_needed(n_bytes, card)
    seconds, hours = scaled_time(n)
    shown = readouts(view)
    assert shown["bytes"] == integer(n_bytes)
    assert shown["scores"] == integer(n * n)
    assert shown["cards"] == integer(cards)
    assert shown["card-ratio"] == ratio_text(ratio)
    assert shown["seconds"] == seconds_text(seconds)
    assert shown["hours"] == hours_text(hours)
    assert messages(view) == []


def _rows(state: cost.State) -> dict[str, str]:
    return {key: value for key, _, value in cost.readouts(state)}


def test_readouts_are_a_function_of_the_state_alone():
    # No Panel: the state the controls stand at gives the readout, from the core's integers.
    shown = _rows(cost.State(n=1024, per_score=2, card_gib=80))
    assert shown["bytes"] == integer(score_matrix_bytes(1024, 2)) == "2,097,152"
    assert shown["bytes-binary"] == "2 MiB"
    assert shown["scores"] == integer(1024**2)
    assert shown["cards"] == "1"


@given(
    n=st.sampled_from(cost.LENGTHS),
    per_score=st.sampled_from(list(cost.BYTES_PER_SCORE.values())),
    card_gib=st.sampled_from(list(cost.CARD_SIZES.values())),
)
def test_every_state_reads_the_core(n, per_score, card_gib):
    shown = _rows(cost.State(n, per_score, card_gib))
    ratio, cards = cards_needed(score_matrix_bytes(n, per_score), card_gib)
    seconds, hours = scaled_time(n)
    assert shown["card-ratio"] == ratio_text(ratio)
    assert shown["cards"] == integer(cards)
    assert shown["seconds"] == seconds_text(seconds)
    assert shown["hours"] == hours_text(hours)
    assert [key for key, _, _ in cost.readouts(cost.State(n, per_score, card_gib))] == list(shown)


def test_the_figure_starts_where_the_drag_makes_sense():
    """The caption says drag from one token to a million: it starts at the prose's small length."""
    assert cost.DEFAULT.n == REF_TOKENS < max(cost.LENGTHS)
    view = driven(cost)
    assert widgets(view)["Context length T"].value == REF_TOKENS
    assert readouts(view)["bytes"] == integer(score_matrix_bytes(REF_TOKENS))
