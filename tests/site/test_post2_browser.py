"""Post 2 in a real browser: it goes live, and each figure answers one control as CPython does.

The session's shared live page of post 2 is used, at its defaults for each test. Each
interaction waits inside the page for the readout to change (the worker's Python and the round
trip back to the page); how long that takes is the benchmark's to measure, not a test's.
"""

from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from attention.basics import symmetry_error
from attention.cost import REF_TOKENS, score_matrix_bytes
from attention.dropout import RUN_DRAWS, RUN_SEED, run
from attention.fixtures import book_inputs
from attention.masking import book_causal_weights
from attention.projections import mode_scores
from attention.scaling import SWEEP_D_KS, SWEEP_SEED, dk_sweep
from attention.torch_rng import weights_section_3_4
from figures import divisor
from formatting import error_text, integer, num, peak_text
from harness.site import POST2
from pages import placed_figures
from pages import post2 as page  # the name post2 is the live page's fixture

pytestmark = pytest.mark.browser
FIGURES = placed_figures(page.TEMPLATE)
# A readout that has not changed by then never will: a hung or lost update fails at this bound.
HUNG_MS = 20_000

# Act, and wait until the readout (found through the shadow roots) changes.
_ACT = """
async ([figureId, key, target, action, hungMs]) => {
  const read = () => harnessProbe.readouts(figureId)[key];
  const before = read();
  const start = performance.now();
  if (action === "click") target.click();
  else target.dispatchEvent(new KeyboardEvent("keydown", { key: action, bubbles: true }));
  for (;;) {
    await harnessProbe.frame();
    const now = read();
    if (now !== undefined && now !== before) return now;
    if (performance.now() - start > hungMs) return null;
  }
}
"""


@pytest.fixture
def post2(live):
    """Post 2: the session's shared live page, its figures at their defaults."""
    return live(POST2)


def act(post2, figure_id: str, key: str, target, action: str = "click") -> str:
    """Click (or press a key on) ``target``; return the readout's new text."""
    args = [figure_id, key, target.element_handle(), action, HUNG_MS]
    text = post2.page.evaluate(_ACT, args)
    assert text is not None, f"{figure_id}: {key} did not change"
    return text


def button(post2, figure_id: str, label: str):
    return post2.page.locator(f'[data-figure="{figure_id}"] button', has_text=label).first


def slider(post2, figure_id: str):
    return post2.page.locator(f'[data-figure="{figure_id}"] .noUi-handle').first


def test_goes_live_with_only_local_requests_and_no_errors(post2, server_url):
    origin = urlsplit(server_url)[:2]
    assert [u for u in post2.requests if urlsplit(u)[:2] != origin] == []
    assert post2.errors == []
    for figure_id in FIGURES:
        status = post2.page.locator(f'[data-figure="{figure_id}"] .fig-status')
        assert status.get_attribute("data-status") == "live"


def test_widgets_render_as_their_html_controls(post2):
    # A Select is a <select>; radio groups, toggles and buttons are buttons.
    assert post2.page.locator('[data-figure="three-modes"] select').count() == 2
    assert post2.page.locator('[data-figure="cost"] select').count() == 1
    for figure_id, label in [
        ("three-modes", "W_q tied to W_k"),
        ("divisor", "Resample"),
        ("masking", "0 (wrong)"),
        ("dropout", "Scale survivors"),
        ("heads", "GPT-2 small"),
        ("cost", "4 bytes/score (32-bit)"),
    ]:
        assert button(post2, figure_id, label).is_visible(), (figure_id, label)


def test_a_focused_button_shows_it(post2):
    # Keyboard focus on a figure's button is a 2px outline, not Panel's faint dotted line.
    outline = "(b) => [getComputedStyle(b).outlineStyle, getComputedStyle(b).outlineWidth]"
    for figure_id, text in [
        ("three-modes", "W_q tied to W_k"),
        ("cost", "4 bytes/score"),
        ("divisor", "Resample"),
        ("heads", "GPT-2 small"),
    ]:
        target = button(post2, figure_id, text)
        # Onto it by the keyboard (Tab away and back): a mouse may have been used on the page
        # before, and then focus() alone is not keyboard focus.
        target.focus()
        post2.page.keyboard.press("Tab")
        post2.page.keyboard.press("Shift+Tab")
        expect(target).to_be_focused()
        assert target.evaluate(outline) == ["solid", "2px"], (figure_id, text)


def test_three_modes_separate_matrices_break_the_score_symmetry(post2):
    W_query, W_key, _ = weights_section_3_4()
    expected = error_text(symmetry_error(mode_scores(book_inputs(), "separate", W_query, W_key)))
    assert post2.readout("three-modes", "score-error") == "0 (exact)"
    text = act(post2, "three-modes", "score-error", button(post2, "three-modes", "separate"))
    assert text == expected


def test_divisor_at_4096(post2):
    # Step the slider from 64 to 4096, then switch the divisor on there and time it.
    handle = slider(post2, "divisor")
    start = SWEEP_D_KS.index(divisor.DEFAULT_D_K)
    for _ in range(SWEEP_D_KS.index(4096) - start):
        act(post2, "divisor", "sqrt-dk", handle, "ArrowRight")
    runs = dk_sweep(SWEEP_D_KS, seed=SWEEP_SEED)
    assert post2.readout("divisor", "median-peak") == peak_text(runs[(4096, False)].median_peak)
    text = act(post2, "divisor", "median-peak", button(post2, "divisor", "√d_k"))
    assert text == peak_text(runs[(4096, True)].median_peak)
    text = act(post2, "divisor", "seed", button(post2, "divisor", "Resample"))
    assert text.startswith(f"{SWEEP_SEED + 1} ·")


def test_masking_zero_fill_leaks(post2):
    # Section 03: the wrong mask hands 0.8029 of the first token's attention to the future.
    assert post2.readout("masking", "leak") == "0.0000"
    text = act(post2, "masking", "leak", button(post2, "masking", "0 (wrong)"))
    assert text == "0.8029"


def test_dropout_run_of_ten_thousand_without_scaling(post2):
    weights = book_causal_weights()
    expected = run(weights, 0.5, RUN_DRAWS, RUN_SEED, scale=False)
    text = act(post2, "dropout", "mean-row-sum", button(post2, "dropout", "Scale survivors"))
    assert text == num(expected.mean_row_sum, 3)


def test_heads_gpt2_preset(post2):
    text = act(post2, "heads", "head-dim", button(post2, "heads", "GPT-2 small"))
    assert text == "64"
    assert post2.readout("heads", "divisor") == "√64 = 8"
    assert post2.readout("heads", "not-divisor") == "√768 = 27.7"


def test_cost_one_stop_down(post2):
    assert post2.readout("cost", "bytes") == integer(score_matrix_bytes(REF_TOKENS))
    text = act(post2, "cost", "bytes", slider(post2, "cost"), "ArrowLeft")
    assert text == integer(score_matrix_bytes(REF_TOKENS // 2))
