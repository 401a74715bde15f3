"""The benchmark's main-thread rows (bench/report.py): blocking and the longest task to live,
unthrottled and with the CPU slowed, a phone's scroll through the live page, layout shift."""

from bench.browser import Load
from bench.memory import Memory, Reading
from bench.report import main_thread_lines, memory_lines

MIB = 1024 * 1024


def load(blocking: float, longest: float, shift: float) -> Load:
    return Load(url="u/", state="live", marks={}, blocking=blocking, longest_task=longest,
                shift=shift)  # fmt: skip


def row(lines: list[str], label: str) -> str:
    (found,) = [line for line in lines if line.strip().startswith(label)]
    return found[len("    ") + 58 :].strip()


def test_each_row_is_the_median_and_spread_of_its_runs():
    loads = [load(100, 80, 0.01), load(300, 120, 0.03), load(200, 90, 0.02)]
    slowed = [load(900, 400, 0.0)]
    reading = Reading(shift=0.015, blocking=42.4, longest=96, every_figure_drawn=True, held=4,
                      memory=Memory(tab=300 * MIB, browser=500 * MIB))  # fmt: skip
    lines = main_thread_lines(loads, slowed, reading)
    assert row(lines, "navigation to live: blocking") == "200 ms (100-300 ms)"
    assert row(lines, "navigation to live: longest task") == "90 ms (80-120 ms)"
    assert row(lines, "navigation to live, CPU slowed 4x: blocking") == "900 ms"
    assert row(lines, "layout shift, navigation to live (desktop)") == "0.020 (0.010-0.030)"
    assert row(lines, "layout shift, navigation to 5 s after live (phone)") == "0.015"
    assert row(lines, "scrolling the live page through (phone): longest task") == "96 ms"
    assert not any("NOT every figure" in line for line in lines)
    assert not any("timed out" in line for line in lines)
    scrolled = [line for line in memory_lines({}, reading) if "scrolled through" in line]
    held = "tab 300 MiB, browser 500 MiB (4 figures held at the end)"
    assert scrolled and scrolled[0].endswith(held)


def test_a_scroll_that_left_figures_undrawn_says_so_and_a_page_not_live_has_no_reading():
    reading = Reading(shift=0, blocking=0, longest=0, every_figure_drawn=False, held=0,
                      memory=Memory(tab=0, browser=0))  # fmt: skip
    assert any("NOT every figure" in line for line in main_thread_lines([], [], reading))
    lines = main_thread_lines([], [], None)
    assert row(lines, "phone (412 x 915), scrolled through once live") == "- (not live)"
    assert row(lines, "navigation to live: blocking") == "-"


def test_a_scroll_whose_frames_stopped_says_how_often_it_went_on_without_one():
    reading = Reading(shift=0, blocking=0, longest=0, every_figure_drawn=True, held=3,
                      memory=Memory(tab=0, browser=0), frames_missed=2)  # fmt: skip
    lines = main_thread_lines([], [], reading)
    assert any("a wait for a frame timed out 2 times" in line for line in lines), lines
