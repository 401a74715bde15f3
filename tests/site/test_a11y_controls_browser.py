"""Every control on every page with figures, as a screen reader gets it: Chromium's own
accessibility tree, read through the DevTools protocol. Each control has a role and a name;
each slider, select and text box a value (a slider's as its title shows it); each radio its
checked state and each toggle its pressed state; and the tree follows the reader's changes.
The session's shared pages are read."""

import pytest
from playwright.sync_api import expect

from harness.dom import ax_name, ax_nodes, ax_properties, ax_role
from harness.site import POST1, WITH_FIGURES

pytestmark = pytest.mark.browser
CONTROLS = {"slider", "combobox", "textbox", "spinbutton", "button", "radio", "checkbox", "switch"}


def controls(page) -> list[dict]:
    """The tree's controls, each as role, name, value and its ARIA properties."""
    found = []
    for node in ax_nodes(page):
        role = ax_role(node)
        if node.get("ignored") or role not in CONTROLS:
            continue
        value = node.get("value", {}).get("value")
        found.append({"role": role, "name": ax_name(node), "value": value, **ax_properties(node)})
    return found


def named(page, role: str, name: str) -> dict:
    [node] = [c for c in controls(page) if c["role"] == role and c["name"] == name]
    return node


@pytest.mark.parametrize("path", WITH_FIGURES)
def test_every_control_has_a_name_a_value_and_its_state(live, path):
    found = controls(live(path).page)
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
    page = live(POST1).page
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
    page = live(POST1).page
    select = page.get_by_role("combobox", name="Token to scale")
    before = named(page, "combobox", "Token to scale")["value"]
    options = select.locator("option").all_inner_texts()
    choice = next(o for o in options if o != before)
    select.select_option(label=choice)
    assert named(page, "combobox", "Token to scale")["value"] == choice
