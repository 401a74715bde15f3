"""Post 1 in a real browser: every figure goes live, and one control change in each gives the
number CPython computes for the same state."""

import pytest
from playwright.sync_api import expect

import figures
from attention import analysis
from attention.analysis import (
    context_shift,
    cosine_scores,
    mean_entropy_bits,
    scale_token,
    spread_ratio,
)
from attention.basics import (
    agreeing_cells,
    attend,
    context,
    loop_scores,
    matmul_scores,
    query_scores,
    softmax,
    sum_normalise,
)
from attention.depth import EXAMPLE_LAYERS, EXAMPLE_T, recurrent_depth
from attention.fixtures import PRESETS, TOKENS, book_inputs, preset_inputs
from figures import (
    depth,
    figure_id,
    flat_weights,
    loop_matmul,
    magnitude,
    normalisations,
    three_steps,
)
from formatting import integer, num, percent, vec
from harness.dom import wait_until
from harness.site import path
from pages import placed_figures, post1
from tests.figures.probe import driven, readouts

pytestmark = pytest.mark.browser
PAGE = path(post1)
FIGURES = [figures.module(figure_id) for figure_id in placed_figures(post1.TEMPLATE)]


@pytest.fixture
def post(live):
    """Post 1: the session's shared live page, its figures at their defaults."""
    return live(PAGE)


def figure(post, module):
    return post.page.locator(f'[data-figure="{figure_id(module)}"]')


# The page answers a run of key presses in turn, the last only once the ones before it are
# answered: on a loaded machine (another browser starting on the other core) that can take
# longer than Playwright's default of 5 s.
ANSWERED_MS = 30_000


def press_slider(post, module, index: int, key: str, times: int) -> None:
    """Move a figure's index-th slider with the keyboard, as a reader would."""
    handle = figure(post, module).locator(".noUi-handle").nth(index)
    handle.focus()
    for _ in range(times):
        handle.press(key)


def test_every_figure_goes_live_with_its_default_numbers(post):
    assert post.errors == []
    for module in FIGURES:
        status = figure(post, module).locator(".fig-status")
        expect(status).to_have_attribute("data-status", "live")
        for key, value in readouts(driven(module)).items():
            expect(post.readout_locator(figure_id(module), key)).to_have_text(value)


def test_the_quoted_numbers_are_on_the_built_page(post):
    text = post.article_text()
    n = post1.context()
    for key in ("negative_weight", "near_denominator", "weight_symmetry", "gpt2_multiplies",
                "spread_ratio", "scaled_self", "mean_entropy_cos"):  # fmt: skip
        assert n[key] in text


def test_depth_slider(post):
    press_slider(post, depth, 0, "ArrowRight", 3)  # T: 100 -> 103
    want = integer(recurrent_depth(EXAMPLE_LAYERS, EXAMPLE_T + 3))
    expect(post.readout_locator(figure_id(depth), "recurrent")).to_have_text(
        want, timeout=ANSWERED_MS
    )


def test_three_steps_edit_moves_journeys_context(post):
    box = figure(post, three_steps).get_by_label("with x₂", exact=True)
    box.fill("1.5")
    box.press("Enter")
    X = book_inputs()
    X[TOKENS.index("with"), 1] = 1.5
    w = softmax(query_scores(X, TOKENS.index("journey")))
    expect(post.readout_locator(figure_id(three_steps), "context")).to_have_text(vec(context(w, X)))


def test_normalisations_negative_preset(post):
    figure(post, normalisations).get_by_role("radio", name=PRESETS["negative"]).click()
    s = query_scores(preset_inputs("negative"), TOKENS.index("Your"))
    expect(post.readout_locator(figure_id(normalisations), "by_sum")).to_have_text(
        vec(sum_normalise(s))
    )
    expect(figure(post, normalisations).locator(".fig-message")).to_contain_text(
        post1.context()["negative_weight"]
    )


def test_loop_matmul_switch(post):
    switch = figure(post, loop_matmul).get_by_role("button", name="Matmul: all at once")
    background = "(b) => getComputedStyle(b).backgroundColor"
    assert switch.evaluate(background) == "rgba(0, 0, 0, 0)"  # off: an outline only
    switch.click()
    expect(switch).not_to_have_css("background-color", "rgba(0, 0, 0, 0)")  # on: filled
    X = book_inputs()
    filled, same = agreeing_cells(loop_scores(X, 8), matmul_scores(X))
    want = f"{same} of {filled} filled cells"
    expect(post.readout_locator(figure_id(loop_matmul), "agree")).to_have_text(want)


def test_flat_weights_switch(post):
    figure(post, flat_weights).get_by_role("radio", name="flat: 1/6 each").click()
    X = book_inputs()
    flat = analysis.flat_weights(len(TOKENS))
    shift = num(context_shift(flat, X).max(), 3)
    expect(post.readout_locator(figure_id(flat_weights), "max_shift")).to_have_text(shift)
    ratio = percent(spread_ratio(context(flat, X), X))
    expect(post.readout_locator(figure_id(flat_weights), "ratio")).to_have_text(ratio)


def test_magnitude_scale_and_cosine(post):
    press_slider(post, magnitude, 0, "ArrowRight", 20)  # scale: 1.0 -> 3.0 in steps of 0.1
    weights = attend(scale_token(book_inputs(), TOKENS.index("with"), 3.0))[1]
    expect(post.readout_locator(figure_id(magnitude), "self_weight")).to_have_text(
        num(weights[3, 3], 3), timeout=ANSWERED_MS
    )
    figure(post, magnitude).get_by_role("radio", name=magnitude.COSINE).click()
    cos = mean_entropy_bits(softmax(cosine_scores(book_inputs())))
    expect(post.readout_locator(figure_id(magnitude), "mean_entropy")).to_have_text(num(cos))
    assert post.errors == []


# The reader moves the scale slider twice, the second time while the worker is still on the
# first (the change waits, queued): once the first change is answered, what the slider holds.
MOVED_TWICE = """async (title) => {
  const models = [...Bokeh.index].flatMap((view) => [...view.model.references()]);
  const slider = models.find((m) => m.title === title && "value" in m);
  const answered = () => harnessProbe.received["change-done"] || 0;
  const before = answered();
  const start = slider.value;
  slider.value = start + slider.step;
  slider.value = start + 2 * slider.step;
  while (answered() === before) await new Promise((resolve) => setTimeout(resolve, 5));
  return [start + 2 * slider.step, slider.value];
}"""


def test_a_control_moved_again_keeps_the_readers_value_while_the_worker_catches_up(post):
    """An answer to an earlier change does not set a control back: the reader's next key
    press would start from the old value (a run of key presses would lose some)."""
    post.show(figure_id(magnitude))
    moved, held = post.page.evaluate(MOVED_TWICE, "Scale factor")
    assert held == moved
    post.wait_idle()
    weights = attend(scale_token(book_inputs(), TOKENS.index("with"), round(moved, 1)))[1]
    expect(post.readout_locator(figure_id(magnitude), "self_weight")).to_have_text(
        num(weights[3, 3], 3)
    )


SELECTED = """() => {
  const docs = new Set([...Bokeh.index].map((view) => view.model.document)); // those on screen
  const has = (data, key) => (data instanceof Map ? data.has(key) : key in data);
  return [...docs].flatMap((doc) => [...doc.all_models])
    .filter((m) => m.type === "ColumnDataSource" && has(m.data, "weight") && has(m.data, "part0"))
    .map((m) => [...m.selected.indices]);
}"""


def test_tapping_a_bar_selects_that_token_in_all_three_panels(post):
    """The three-steps panels share one source: a tap on 'starts' in the weights panel selects
    row 2 of it, which the score and context panels draw highlighted too."""
    canvas = figure(post, three_steps).locator(".bk-Canvas").nth(1)  # panel 2, the weights
    canvas.scroll_into_view_if_needed()
    box = canvas.bounding_box()
    starts = TOKENS.index("starts")
    # The bars sit in six equal slots right of the y axis; aim at the middle of the 'starts' bar.
    axis = 50
    x = box["x"] + axis + (box["width"] - axis - 10) * (starts + 0.5) / len(TOKENS)
    post.page.mouse.click(x, box["y"] + 0.75 * box["height"])  # low: every bar reaches it
    wait_until(post.page, f"() => ({SELECTED})().some((s) => s.length === 1)")
    assert post.page.evaluate(SELECTED) == [[starts]]
