"""A slider over chosen values (a Choice drawn as a slider: context lengths, key widths) says
the value it is on at every stop: walked from its first option to its last by keyboard, as a
reader does, its title shows that option's label and nothing on the slider reads "undefined"
(BokehJS's handle tooltip once did, at positions that fall a hair off an option)."""

import pytest

import figures
from figurekit.controls import Choice
from harness.site import WITH_FIGURES
from pages import placed_figures, posts

# Every Choice drawn as a slider, by page: (path, figure id, control).
SLIDERS = [
    (path, figure_id, control)
    for path, post in zip(WITH_FIGURES, posts(), strict=True)
    for figure_id in placed_figures(post.TEMPLATE)
    for control in figures.module(figure_id).CONTROLS
    if isinstance(control, Choice) and control.style == "slider"
]

# From the slider titled `label`, its first option on: after each ArrowRight, what the title and
# any text on the slider (its tooltip) say.
WALK = """async ([figureId, label, stops]) => {
  const figure = document.querySelector(`[data-figure="${figureId}"]`);
  const title = harnessProbe.deepAll(".bk-slider-title", figure)
    .find((el) => el.textContent.startsWith(`${label}:`));
  const slider = title.getRootNode().querySelector(".noUi-target");
  const handle = slider.querySelector(".noUi-handle");
  const press = async (key) => {
    handle.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true }));
    await harnessProbe.frame();
    await harnessProbe.frame();
  };
  const seen = [];
  handle.focus();
  await press("Home");
  for (let i = 0; i < stops; i++) {
    if (i) await press("ArrowRight");
    seen.push([title.textContent, slider.textContent]);
  }
  return seen;
}"""


@pytest.mark.parametrize(
    ("path", "figure_id", "control"),
    SLIDERS,
    ids=[f"{figure_id}-{control.key}" for _, figure_id, control in SLIDERS],
)
def test_a_choice_slider_says_each_value_it_is_on(live, path, figure_id, control):
    v = live(path)
    seen = v.page.evaluate(WALK, [figure_id, control.name, len(control.labels)])
    assert [title for title, _ in seen] == [f"{control.name}: {label}" for label in control.labels]
    assert not [text for _, text in seen if "undefined" in text], seen
