"""cost: post 2's section 06 ("What T squared costs")."""

import math

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from attention import cost
from attention.fixtures import CH2_BATCH_SHAPE, GPT2_VOCAB

GPT41_WINDOW = 1_047_576  # tokens, GPT-4.1's context window as the post states it


def test_one_head_at_1024_tokens_is_2_mib():
    # Section 06: "At 1,024 tokens and two bytes a score, one head's attention matrix is 2 MiB".
    assert cost.score_matrix_bytes(1024) == 2 * 2**20


def test_gpt41_window_is_about_2_tib():
    # Section 06: "the same formula gives 2,194,830,951,552 bytes, about 2 TiB, for one head".
    n_bytes = cost.score_matrix_bytes(GPT41_WINDOW)
    assert n_bytes == 2_194_830_951_552
    assert isinstance(n_bytes, int)
    assert round(n_bytes / 2**40) == 2


def test_cards_round_up():
    # Section 06: "25 H100 cards at 80 GiB each; the exact ceiling is 26, because the ratio is
    # 25.55".
    ratio, cards = cost.cards_needed(cost.score_matrix_bytes(GPT41_WINDOW), card_gib=80)
    assert round(ratio, 2) == 25.55
    assert cards == 26 and isinstance(cards, int)
    assert cost.cards_needed(80 * 2**30) == (1.0, 1)  # exactly full: no extra card
    assert cost.cards_needed(80 * 2**30 + 1)[1] == 2
    assert cost.card_bytes(80) == 85_899_345_920 and isinstance(cost.card_bytes(80), int)


def test_time_scales_quadratically():
    # Section 06: "The unrounded scaling gives 104,658 seconds, or 29.07 hours."
    seconds, hours = cost.scaled_time(GPT41_WINDOW, ref_tokens=1024, ref_seconds=0.1)
    assert round(seconds) == 104_658
    assert round(hours, 2) == 29.07


def test_rounded_length_ratio_gives_about_28_hours():
    # Section 06: he "rounds the length ratio to a clean thousand, and gets about 28 hours".
    _, hours = cost.scaled_time(1000 * 1024)
    assert round(hours) == 28


def test_multiply_counts_follow_the_three_dimensions_rule():
    # "the cost is the three dimensions multiplied together"; scores are O(n^2 d_k).
    assert cost.matmul_multiplies(6, 3, 2) == 36
    steps = cost.attention_multiplies(n=6, d_in=3, d_k=2, d_v=2)
    assert steps == {"queries": 36, "keys": 36, "values": 36, "scores": 72, "context": 72}


@given(st.integers(1, 10**7), st.integers(1, 8), st.integers(1, 96))
def test_memory_is_quadratic_in_n_and_linear_in_heads(n, bytes_per_score, heads):
    one = cost.score_matrix_bytes(n, bytes_per_score, 1)
    assert cost.score_matrix_bytes(n, bytes_per_score, heads) == heads * one
    assert cost.score_matrix_bytes(2 * n, bytes_per_score, 1) == 4 * one


@given(st.integers(1, 10**7))
def test_doubling_the_context_quadruples_the_time(n):
    assert math.isclose(cost.scaled_time(2 * n)[0], 4 * cost.scaled_time(n)[0], rel_tol=1e-12)


@pytest.mark.parametrize("n", [0, -5, 1.5, True, "1024", None])
def test_bad_token_counts_raise(n):
    with pytest.raises(ValueError, match="n must"):
        cost.score_matrix_bytes(n)
    with pytest.raises(ValueError, match="n must"):
        cost.scaled_time(n)


def test_other_bad_input_raises():
    with pytest.raises(ValueError, match="bytes_per_score"):
        cost.score_matrix_bytes(10, bytes_per_score=0)
    with pytest.raises(ValueError, match="heads"):
        cost.score_matrix_bytes(10, heads=0)
    with pytest.raises(ValueError, match="card_gib"):
        cost.cards_needed(10, card_gib=0)
    with pytest.raises(ValueError, match="n_bytes"):
        cost.cards_needed(0)
    with pytest.raises(ValueError, match="ref_seconds"):
        cost.scaled_time(10, ref_seconds=-1.0)
    with pytest.raises(ValueError, match="ref_seconds"):
        cost.scaled_time(10, ref_seconds=math.nan)
    with pytest.raises(ValueError, match="ref_tokens"):
        cost.scaled_time(10, ref_tokens=0)


def test_worked_example_constants_give_the_sections_numbers():
    # Section 06's example: GPT-4.1's 1,047,576 tokens, 80 GiB cards, 0.1 s at 1,024 tokens.
    assert cost.GPT41_CONTEXT == GPT41_WINDOW
    ratio, cards = cost.cards_needed(cost.score_matrix_bytes(cost.GPT41_CONTEXT))
    assert (round(ratio, 2), cards) == (25.55, 26)
    assert round(cost.scaled_time(cost.GPT41_CONTEXT)[0]) == 104_658


def test_rounded_ratio_time_is_the_back_of_envelope_28_hours():
    # Section 06: "rounds the length ratio to a clean thousand, and gets about 28 hours".
    ratio, seconds, hours = cost.rounded_ratio_time(cost.GPT41_CONTEXT)
    assert ratio == 1000
    assert seconds == pytest.approx(100_000.0)
    assert round(hours) == 28
    assert cost.rounded_ratio_time(1)[0] == 1000  # never rounds to a zero-length ratio
    with pytest.raises(ValueError, match="to must"):
        cost.rounded_ratio_time(10, to=0)


def test_gpt2_block_parameter_counts():
    # Section 07: "one block spends 2,360,064 parameters on attention and 4,722,432 on the
    # feed-forward after it" (GPT-2 small, d = 768, hidden 4 x 768).
    assert cost.feed_forward_params(768, 4 * 768) == 4_722_432
    with pytest.raises(ValueError, match="d_hidden"):
        cost.feed_forward_params(768, 0)


def test_the_token_table_of_chapter_2():
    # Post 1's lede: "a 50,257 by 256 embedding table ... 12,865,792 parameters".
    table = torch.nn.Embedding(GPT2_VOCAB, CH2_BATCH_SHAPE[-1])
    assert cost.embedding_params(GPT2_VOCAB, CH2_BATCH_SHAPE[-1]) == table.weight.numel()
    assert cost.embedding_params(50_257, 256) == 12_865_792
    with pytest.raises(ValueError):
        cost.embedding_params(0, 256)
