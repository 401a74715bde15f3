"""Every control on every page with figures, as a screen reader gets it: Chromium's own
accessibility tree, read through the DevTools protocol. Each control has a role and a name;
each slider, select and text box a value (a slider's as its title shows it); each radio its
checked state and each toggle its pressed state; and the tree follows the reader's changes."""

import pytest
from playwright.sync_api import expect

import pages
from pages import post1
from tests.site.conftest import opened_live

pytestmark = pytest.mark.browser
WITH_FIGURES = [p.SLUG + "/" for p in pages.all_pages() if pages.placed_figures(p.TEMPLATE)]
CONTROLS = {"slider", "combobox", "textbox", "spinbutton", "button", "radio", "checkbox", "switch"}
POST1 = post1.SLUG + "/"


def controls(page) -> list[dict]:
    """The tree's controls, each as role, name, value and its ARIA properties."""
    cdp = page.context.new_cdp_session(page)
    try:
        nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        cdp.detach()
    found = []
    for node in nodes:
        role = node["role"].get("value")
        if node.get("ignored") or role not in CONTROLS:
            continue
        props = {p["name"]: p["value"].get("value") for p in node.get("properties", [])}
        name = node.get("name", {}).get("value", "")
        value = node.get("value", {}).get("value")
        found.append({"role": role, "name": name, "value": value, **props})
    return found


def named(page, role: str, name: str) -> dict:
    [node] = [c for c in controls(page) if c["role"] == role and c["name"] == name]
    return node


@pytest.fixture(scope="module")
def live(visit):
    return {path: v.page for path, v in opened_live(visit, WITH_FIGURES).items()}


@pytest.mark.parametrize("path", WITH_FIGURES)
def test_every_control_has_a_name_a_value_and_its_state(live, path):
    found = controls(live[path])
    assert found, "no controls in the tree"
    wrong = []
    for c in found:
        if not c["name"].strip():
            wrong.append(f"a {c['role']} without a name")
        if c["role"] == "slider" and not isinstance(c["value"], int | float):
            wrong.append(f"slider {c['name']!r} has no value")
        if c["role"] in ("combobox", "textbox", "spinbutton") and c["value"] in (None, ""):
            wrong.append(f"{c['role']} {c['name']!r} has no value")
        if c["role"] == "radio" and c.get("checked") not in ("true", "false"):
            wrong.append(f"radio {c['name']!r} says neither checked nor not")
        if c["role"] == "combobox" and "expanded" not in c:
            wrong.append(f"combobox {c['name']!r} says neither expanded nor collapsed")
    assert wrong == [], "\n".join(wrong)


def test_a_slider_says_its_new_value_as_its_title_shows_it(live):
    """The tree's value follows the arrow key, and the handle's aria-valuetext is the value as
    the slider's title prints it (noUiSlider's own number may be a float32's long digits)."""
    page = live[POST1]
    name = "Sequence length T"
    before = named(page, "slider", name)["value"]
    handle = page.get_by_role("slider", name=name)
    handle.focus()
    page.keyboard.press("ArrowRight")
    expect(handle).not_to_have_attribute("aria-valuenow", f"{float(before)}")
    after = named(page, "slider", name)["value"]
    shown = handle.evaluate(
        "(h) => h.getRootNode().querySelector('.bk-slider-value').textContent.trim()"
    )
    assert after != before
    assert handle.get_attribute("aria-valuetext") == shown
    assert float(shown.replace(",", "")) == after


def test_a_select_says_its_new_value(live):
    page = live[POST1]
    select = page.get_by_role("combobox", name="Token to scale")
    before = named(page, "combobox", "Token to scale")["value"]
    options = select.locator("option").all_inner_texts()
    choice = next(o for o in options if o != before)
    select.select_option(label=choice)
    assert named(page, "combobox", "Token to scale")["value"] == choice
