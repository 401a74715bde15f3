"""The memory-traffic figure (figures/memory_traffic.py): its readouts are the core's counts for
the chosen length, width and SRAM, the lines are those counts at every length, the bars add up
to both totals, and the view shows the pure readouts."""

from hypothesis import given, settings
from hypothesis import strategies as st

from attention import hbm
from figures import memory_traffic as mt
from formatting import bytes_text, integer
from tests.figures.probe import driven_to, messages, readouts
from tests.strategies import examples


def shown(state: mt.State) -> dict[str, str]:
    return {key: text for key, _, text in mt.readouts(state)}


def test_the_default_is_the_papers_example_on_an_a100_sm():
    state = mt.DEFAULT
    assert (state.tokens, state.width, state.sram_kib * 1024) == (1024, 64, hbm.SM_SRAM_BYTES)
    rows = shown(state)
    assert rows["sram"] == integer(98_304)
    assert rows["blocks"] == "64 × 384"
    assert rows["passes"] == "3"
    assert rows["standard-total"] == bytes_text(2 * hbm.standard_traffic(1024, 64).total)
    assert rows["flash-total"] == bytes_text(2 * 800_768)
    assert rows["ratio"] == "5.6×"
    assert rows["standard-time"] == "5.9 µs"  # 8.9 MB at 1.5 TB/s


def test_a_small_sram_and_a_wide_head_make_flash_move_more():
    """The paper's condition: M many times d^2. With 16 KiB and d = 256 the passes cost more
    than the score matrices they avoid, and the figure says so rather than hiding it."""
    rows = shown(mt.State(tokens=2**17, width=256, sram_kib=16))
    assert rows["blocks"] == "8 × 8"
    assert rows["ratio"] == "0.04×"


def test_the_lines_are_the_counts_at_every_length_and_the_point_sits_on_them():
    state = mt.State(tokens=2**12, width=128, sram_kib=48)
    lines = mt.line_columns(state)
    M = 48 * 1024 // 2
    assert lines["tokens"] == list(mt.LENGTHS)
    for n, standard, flash in zip(lines["tokens"], lines["standard"], lines["flash"], strict=True):
        assert standard == 2 * hbm.standard_traffic(n, 128).total
        assert flash == 2 * hbm.flash_traffic(n, 128, M).total
    i = mt.LENGTHS.index(2**12)
    assert mt.point_columns(state)["bytes"] == [lines["standard"][i], lines["flash"][i]]


def test_the_bars_add_up_to_each_algorithms_total():
    state = mt.State(tokens=2**15, width=64, sram_kib=96)
    bars = mt.part_columns(state)
    assert bars["part"] == list(mt.PARTS)
    standard, flash = (sum(bars["mib"][i : i + 2]) * 2**20 / 2 for i in (0, 2))
    assert standard == hbm.standard_traffic(2**15, 64).total
    assert flash == hbm.flash_traffic(2**15, 64, 96 * 512).total
    assert bars["mib"][1] * 2**20 / 2 == hbm.score_traffic(2**15)


@settings(max_examples=examples(40), deadline=None)
@given(
    tokens=st.sampled_from(mt.LENGTHS),
    width=st.sampled_from(mt.WIDTHS),
    sram_kib=st.sampled_from(mt.SRAM_KIB),
)
def test_every_state_of_the_view_shows_the_pure_readouts(tokens, width, sram_kib):
    names = [c.name for c in mt.CONTROLS]
    view = driven_to(mt, dict(zip(names, (tokens, width, sram_kib), strict=True)))
    state = mt.State(tokens, width, sram_kib)
    assert readouts(view) == shown(state)
    assert messages(view) == []
