"""Positions as rotations, post 3's sections 06 and 07: rotary embeddings and their stretching
past the training length.
"""

import numpy as np

from attention import rope_scaling as rs
from attention import rotary
from attention.models import LLAMA2_7B, LLAMA3_8B
from formatting import integer, num, sci

LLAMA31_POSITIONS = 131072  # Llama 3.1 8B's max_position_embeddings (its configuration)


def _rotary() -> dict:
    """Section 04: the score depends on the offset alone; the pairs' speeds for two bases."""
    q, k = rotary.example_query_key(LLAMA3_8B.head_dim)
    f2 = rotary.frequencies(LLAMA2_7B.head_dim, LLAMA2_7B.rope_base)
    f3 = rotary.frequencies(LLAMA3_8B.head_dim, LLAMA3_8B.rope_base)
    slowest2 = rotary.wavelengths(LLAMA2_7B.head_dim, LLAMA2_7B.rope_base)[-1]
    slowest3 = rotary.wavelengths(LLAMA3_8B.head_dim, LLAMA3_8B.rope_base)[-1]
    return {
        "rope_head_dim": integer(LLAMA3_8B.head_dim),
        "rope_pairs": integer(LLAMA3_8B.head_dim // 2),
        "rope_score": num(rotary.score(q, k, 5, 2), 4),
        "rope_shift_error_near": sci(rotary.shift_error(q, k, 5, 2, np.arange(1, 11)), 1),
        "rope_shifts": integer(LLAMA3_8B.context - 1),
        "rope_shift_error": sci(rotary.shift_error(q, k, 5, 2, np.arange(LLAMA3_8B.context)), 1),
        "rope_fastest_wavelength": num(
            rotary.wavelengths(LLAMA2_7B.head_dim, LLAMA2_7B.rope_base)[0], 1
        ),
        "rope_step_llama2": num(f2[0] / f2[1], 3),
        "rope_step_llama3": num(f3[0] / f3[1], 3),
        "rope_slowest_llama2": integer(round(slowest2)),
        "rope_slowest_llama3": integer(round(slowest3)),
        "rope_base_paper": integer(rotary.ROPE_BASE),
        "rope_base_llama3": integer(LLAMA3_8B.rope_base),
        "llama3_context": integer(LLAMA3_8B.context),
        "rope_turns_llama2": integer(
            rotary.full_turns_within(LLAMA2_7B.head_dim, LLAMA2_7B.context, LLAMA2_7B.rope_base)
        ),
        "rope_turns_llama3": integer(
            rotary.full_turns_within(LLAMA3_8B.head_dim, LLAMA3_8B.context, LLAMA3_8B.rope_base)
        ),
    }


def _rope_scaling() -> dict:
    """Section 07: how each way of stretching the rotations treats Llama 3.1 8B's pairs, and
    what DeepSeek-V2's configuration asks for."""
    llama, ds = rs.LLAMA31_8B, rs.DEEPSEEK_V2_ROPE
    before = rs.periods(rotary.frequencies(llama.width, llama.base))
    own, ds_own = rs.changes(llama, "own"), rs.changes(ds, "own")
    return {
        "rs_pairs": integer(llama.width // 2),
        "rs_L": integer(llama.trained),
        "rs_never": integer(rs.never_turned(llama)),
        "rs_s": num(llama.factor, 0),
        "rs_first": num(before[0], 2),
        "rs_first_pi": num(rs.scaled_periods(llama, "interpolation")[0], 2),
        "rs_low": num(llama.alpha, 0),
        "rs_high": num(llama.beta, 0),
        "rs_kept": integer(own.kept),
        "rs_stretched": integer(own.stretched),
        "rs_blended": integer(own.blended),
        "rs_kept_below": integer(round(llama.trained / llama.beta)),
        "rs_positions": integer(LLAMA31_POSITIONS),
        "rs_ds_s": num(ds.factor, 0),
        "rs_ds_L": integer(ds.trained),
        "rs_ds_target": integer(round(ds.trained * ds.factor)),
        "rs_ds_pairs": integer(ds.width // 2),
        "rs_ds_fast": num(ds.beta, 0),
        "rs_ds_slow": num(ds.alpha, 0),
        "rs_ds_kept": integer(ds_own.kept),
        "rs_ds_stretched": integer(ds_own.stretched),
        "rs_ds_blended": integer(ds_own.blended),
    }


def context() -> dict:
    return {
        **_rotary(),
        **_rope_scaling(),
    }
