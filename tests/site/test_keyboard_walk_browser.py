"""A keyboard-only reader on posts 1, 2 and 3, live: from the top of each figure, Tab reaches
every control, each is operated from the keyboard as its kind is (arrow keys on a slider and a
radio group, Space on a toggle, Enter on a button, arrows and typing in a number box, typing
in a text box, an arrow in a select) and it takes the keys (its value, choice or pressed
state changes); the figure answers in words (a readout changes, or the message of a refused
entry), and "Reset" brings the defaults back. The figure's own link, its source's disclosure,
its scrollable code and tables are Tab stops too, and its "Try it" opens the figure's cell in an
editor, left with Escape then Tab. The focus is always visible,
and Tab leaves the figure in the end (no trap).

After each key the walk reads the figure once its worker has answered every change the page
sent (the harness counts them) and the page has drawn the answer: no sleeps, no time limits on
an answer. The walk uses the session's shared pages."""

import pytest

from harness.dom import focus_before, next_frame, wait_until
from harness.site import POST1, POST2, POST3
from harness.visit import wait_idle

pytestmark = pytest.mark.browser
PAGES = [POST1, POST2, POST3]
MAX_STOPS = 300  # more Tab stops than any figure has: past it, the focus is trapped
# The focused element, looked up through shadow roots, and what the walk needs to know of it:
# whether it is inside the figure, what kind of control it is, a readable name, and whether
# its focus is visible (a non-none outline, or a box-shadow drawn outside the element, on it or
# on the shadow host it sits in; an inset shadow alone is a style, not a focus ring).
FOCUS = """(fig) => {
  let el = document.activeElement;
  const hosts = [];
  while (el && el.shadowRoot && el.shadowRoot.activeElement) {
    hosts.push(el);
    el = el.shadowRoot.activeElement;
  }
  let inside = false;
  for (let node = el; node; node = node.parentNode || node.host) if (node === fig) inside = true;
  const ring = (node) => {
    const style = getComputedStyle(node);
    const outline = style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0;
    const shadows = style.boxShadow === "none" ? [] : style.boxShadow.split(/,(?![^(]*\\))/);
    return outline || shadows.some((s) => !s.includes("inset"));
  };
  const host = hosts[hosts.length - 1];
  // Whether the walk has been in this control's radio group before (marked on its host).
  const walked = (node) => {
    const group = node?.closest("[role=radiogroup], .bk-input-group");
    if (!group || !host) return false;
    const seen = host.dataset.walked === "1";
    host.dataset.walked = "1";
    return seen;
  };
  const cls = (node) => String(node?.className ?? "");
  let kind = "other";
  const role = el?.getAttribute("role");
  if (role === "slider") kind = "slider";
  else if (role === "radio") kind = "radio";
  else if (el?.tagName === "SELECT") kind = "select";
  else if (el?.tagName === "INPUT" && el.type === "text") {
    kind = /Spinner|NumericInput|IntInput|FloatInput/.test(cls(host)) ? "number" : "text";
  }
  else if (el?.tagName === "INPUT" && el.type === "radio") kind = "radio";
  else if (el?.tagName === "INPUT" && el.type === "checkbox") kind = "checkbox";
  else if (el?.classList.contains("bk-spin-btn")) kind = "spin";
  else if (el?.hasAttribute("aria-pressed")) kind = "toggle";
  else if (el?.classList.contains("cm-content")) kind = "editor";
  else if (el?.hasAttribute("data-tryit-open")) kind = "tryit";
  else if (el?.dataset?.view) kind = `view-${el.dataset.view}`;
  else if (el?.tagName === "SUMMARY") kind = "summary";
  else if (el?.tagName === "PRE") kind = "code";
  else if (el?.getAttribute("role") === "region") kind = "region";  // a box that scrolls
  else if (el?.tagName === "A") kind = "link";
  else if (el?.tagName === "BUTTON") kind = "button";
  const name = el?.getAttribute("aria-label") || el?.textContent?.trim().slice(0, 40) || "";
  return {
    inside,
    kind,
    name,
    what: `${el?.tagName?.toLowerCase()}.${cls(el).split(" ").join(".")} in ${cls(host)}`,
    walked: walked(el),
    // A code editor's ring is on the editor around its text (site.css).
    visible: !!el && (ring(el) || (!!host && ring(host)) || !!el.closest(".cm-focused")),
  };
}"""

# The state of the focused control, through shadow roots: a slider's value, a box's text, or
# which radio of its group is checked.
CONTROL_STATE = """() => {
  let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  // noUiSlider rounds aria-valuenow to one decimal; aria-valuetext has the value shown.
  if (el.getAttribute("role") === "slider") return el.getAttribute("aria-valuetext");
  if (el.hasAttribute("aria-pressed")) return el.getAttribute("aria-pressed");
  const radio = el.getAttribute("role") === "radio" || el.type === "radio";
  const group = radio && el.closest("[role=radiogroup], .bk-input-group");
  if (group) {
    const checked = group.querySelector("[aria-checked=true], input:checked");
    return checked ? checked.value || checked.textContent : "";
  }
  return String(el.value);
}"""
# The keys that operate each kind of control, and the ones to press instead when the first
# changed nothing (a slider or a box at its end; an arrow onto the radio already checked).
KEYS = {
    "slider": ("ArrowRight", "ArrowLeft"),
    "step": ("ArrowUp", "ArrowDown"),  # a number box's arrow keys
    "radio": ("ArrowRight", "ArrowRight"),
    "select": ("ArrowDown", "ArrowUp"),
    "spin": ("Enter", None),
    "toggle": ("Space", None),
    "checkbox": ("Space", None),
    "button": ("Enter", None),
}


def figure_ids(page) -> list[str]:
    return page.eval_on_selector_all("figure[data-figure]", "els => els.map(f => f.dataset.figure)")


def readouts(fig) -> list[str]:
    """What the figure says in words: its readouts, and the message a refused entry shows
    (the figure then keeps its last good state, so only the message answers)."""
    messages = fig.locator(".fig-message").all_inner_texts()
    return fig.locator("[data-readout]").all_inner_texts() + [f"message: {m}" for m in messages]


def settled(page, fig) -> list[str]:
    """The figure's readouts once the worker has answered every change (Python's answer may
    come in more than one update, all before its "change-done") and the page has drawn them."""
    wait_idle(page)
    return readouts(fig)


def control_state(page) -> str:
    """The focused control's state once the page has handled the key (the worker answered, the
    next frames drawn: a slider shows its new value a frame after the key)."""
    wait_idle(page)
    next_frame(page)
    return page.evaluate(CONTROL_STATE)


def operate(page, kind: str, typed: str = "") -> str:
    """Operate the focused control as a keyboard user would (a number box by typing `typed`);
    returns what was pressed."""
    if kind == "text":  # a list of scores: one more
        page.keyboard.press("End")
        page.keyboard.type(", 1")
        page.keyboard.press("Enter")
        return "typed ', 1' at the end"
    if kind == "number":
        page.keyboard.press("ControlOrMeta+a")
        page.keyboard.type(typed)
        page.keyboard.press("Enter")
        return f"typed {typed}"
    before = page.evaluate(CONTROL_STATE)
    key, instead = KEYS[kind]
    page.keyboard.press(key)
    if instead and control_state(page) == before:
        page.keyboard.press(instead)
        return f"{key}, then {instead}"
    return key


@pytest.mark.parametrize("path", PAGES)
def test_a_keyboard_reader_reaches_and_operates_every_control(live, path):
    v = live(path)
    page = v.page
    ids = figure_ids(page)
    assert ids, f"{path}: no figure"
    for figure_id in ids:
        walk_figure(page, figure_id)


def walk_figure(page, figure_id: str) -> None:
    fig = page.locator(f'figure[data-figure="{figure_id}"]')
    # From the top of the figure, as a reader tabbing down the page arrives.
    focus_before(fig)
    defaults = settled(page, fig)
    assert defaults, f"{figure_id}: no readout"
    operated: list[str] = []
    answered: list[str] = []
    for _ in range(MAX_STOPS):
        page.keyboard.press("Tab")
        fig.evaluate("el => el.removeAttribute('tabindex')")  # left behind as it was
        at = fig.evaluate(FOCUS)
        if not at["inside"]:
            break
        where = f"{figure_id}: {at['kind']} {at['name']!r} ({at['what']})"
        assert at["visible"], f"{where}: the focus is not visible"
        kind = at["kind"]
        if kind in ("link", "code", "region", "summary", "other"):
            assert kind != "other", f"{where}: a Tab stop of no known kind"
            if kind == "summary":  # a disclosure (the plots' data, the source) opens on Enter
                page.keyboard.press("Enter")
                opened = page.evaluate(
                    """() => {
                      let el = document.activeElement;
                      while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
                      return el?.closest("details")?.open ?? false;
                    }"""
                )
                assert opened, where
            continue
        if kind == "tryit":  # the figure's own cell opens in the editor, which takes the focus
            page.keyboard.press("Enter")
            wait_until(
                page,
                "() => document.activeElement?.classList.contains('cm-content')",
                timeout=120_000,
            )
            kind = "editor"
            operated.append("tryit")
        if kind == "editor":  # Escape, then Tab leaves a code editor (Tab alone indents)
            assert fig.evaluate(FOCUS)["visible"], f"{where}: the editor's focus is not visible"
            page.keyboard.press("Escape")
            continue
        if kind == "view-link":
            status = fig.locator(".fig-status")
            page.keyboard.press("Enter")
            wait_until(
                page,
                "(el) => /^Link (copied|in the address bar)/.test(el.textContent)",
                arg=status.element_handle(),
            )
            continue
        if kind == "view-reset":
            page.keyboard.press("Enter")
            back = settled(page, fig)
            assert back == defaults, f"{where}: Reset left {back}, not {defaults}"
            continue
        if kind == "radio":
            if at["walked"]:
                continue  # one arrow key per group: the arrows are how a radio group is used
        assert kind != "spin", f"{where}: a Tab stop that Enter and Space do not step"
        # A number box is stepped by its arrow keys, then typed back to its value before.
        start = page.evaluate(CONTROL_STATE)
        for how in ["step", kind] if kind == "number" else [kind]:
            before, state = readouts(fig), page.evaluate(CONTROL_STATE)
            pressed = operate(page, how, typed=start)
            # The control took the keys (a plain button has no state of its own to show it)...
            if how != "button":
                assert control_state(page) != state, f"{where}: {pressed} did nothing"
            # ...and the figure answered, here or (a preset already shown, a plot-only control)
            # at some other control of the walk.
            if settled(page, fig) != before:
                answered.append(f"{how} {at['name']!r}")
            operated.append(how)
    else:
        pytest.fail(f"{figure_id}: Tab never left the figure (a keyboard trap)")
    assert operated, f"{figure_id}: Tab reached no control"
    assert answered, f"{figure_id}: no control changed a readout ({operated})"
