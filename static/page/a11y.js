// What the figures' controls and plots tell assistive technology. Bokeh draws its widgets in
// open shadow roots, and leaves much of that out: slider handles and spin buttons have no
// name, a row of radio buttons is a row of plain buttons that never says which one is chosen,
// an on/off Toggle never says whether it is on, and every plot's canvas is an unnamed Tab stop
// that does nothing from the keyboard. drawing.js calls label(slot) on a figure slot after it
// draws the figure and after each update from Python (which may re-create widgets); the states
// that change on a click (which button is chosen, on or off, disabled) are kept in sync by
// observers on the shadow roots themselves. Each such call also has each plot's data drawn as
// a table (plot-tables.js) and the number boxes guarded (number-boxes.js).

import * as NumberBoxes from "./number-boxes.js";
import * as PlotTables from "./plot-tables.js";
import { elementsIn } from "./shadow-dom.js";

// Bokeh names a view's element after its model's type: Panel's models carry their module.
const RADIO_GROUP = /(^|\s)bk-(panel-models-widgets-)?RadioButtonGroup(\s|$)/;
const TOGGLE = /(^|\s)bk-(panel-models-widgets-)?Toggle(\s|$)/;
const PLOT = "bk-Figure";

// Shadow roots already observed: one observer each, however often a slot is labelled.
const observed = new WeakSet();

const setAttr = (el, name, value) => {
  if (value === null) el.removeAttribute(name);
  else if (el.getAttribute(name) !== value) el.setAttribute(name, value);
};

const hostClass = (root) => root.host?.className ?? "";

// The visible name of a Bokeh widget whose shadow root is `root`: its slider title without
// the value, or its <label>.
function widgetName(root) {
  const title = root.querySelector(".bk-slider-title");
  const own = title
    ? [...title.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent)
    : [root.querySelector("label")?.textContent];
  return own.join("").replace(/:\s*$/, "").trim();
}

// The name drawn above a row of buttons (layoutkit/plots.py's `choice` puts it in an HTML pane
// just before the group); a bare row has none.
function labelAbove(root) {
  const above = root.host.previousElementSibling;
  return (above?.shadowRoot ?? above)?.querySelector(".fig-label")?.textContent.trim() ?? "";
}

// A widget's name that Bokeh does not draw, from its model's tag (layoutkit/widgets.py).
function modelName(model) {
  const tag = (model?.tags ?? []).find((t) => typeof t === "string" && t.startsWith("name:"));
  return tag?.slice("name:".length) ?? "";
}

// The figure's title without its number ("Figure 2 · "), the fallback name of a control.
function figureName(slot) {
  const title = slot.closest("figure")?.querySelector(".fig-title")?.textContent ?? "";
  return title.replace(/^Figure\s+\d+\s*·\s*/, "").trim();
}

// Slider handles and spin buttons: named after the widget's visible label.
function nameInputs(root, fallback) {
  const handles = root.querySelectorAll("[role=slider]:not([aria-label])");
  const spins = root.querySelectorAll(".bk-spin-btn:not([aria-label])");
  if (!handles.length && !spins.length) return;
  const name = widgetName(root) || fallback;
  for (const handle of handles) handle.setAttribute("aria-label", name);
  for (const spin of spins) {
    const up = spin.classList.contains("bk-spin-btn-up");
    spin.setAttribute("aria-label", `${up ? "Increase" : "Decrease"} ${name}`);
    // Bokeh steps on a mouse press, so Enter and Space do nothing here: out of the Tab order,
    // as a native number box's arrows are; the arrow keys in the box step it instead.
    spin.tabIndex = -1;
  }
}

// A slider's handle says its value as the title shows it ("0.30"; noUiSlider's own value is
// the float32 0.30000001192092896). A slider that Bokeh disables keeps its handle focusable:
// say that it does nothing.
function syncSliders(root) {
  const shown = root.querySelector(".bk-slider-value")?.textContent.trim() || null;
  for (const handle of root.querySelectorAll("[role=slider]")) {
    const off = handle.closest(".noUi-target")?.hasAttribute("disabled");
    setAttr(handle, "aria-disabled", off ? "true" : null);
    setAttr(handle, "aria-valuetext", shown);
  }
}

// A RadioButtonGroup: a radiogroup of radios, the one Bokeh marks .bk-active checked.
function syncRadioGroup(root, fallback) {
  const group = root.querySelector(".bk-btn-group");
  if (!group) return;
  const buttons = [...group.querySelectorAll(":scope > .bk-btn")];
  setAttr(group, "role", "radiogroup");
  setAttr(group, "aria-label", labelAbove(root) || fallback);
  const allOff = buttons.length > 0 && buttons.every((b) => b.disabled);
  setAttr(group, "aria-disabled", allOff ? "true" : null);
  for (const button of buttons) {
    setAttr(button, "role", "radio");
    setAttr(button, "aria-checked", String(button.classList.contains("bk-active")));
  }
  if (!group.dataset.a11yKeys) {
    group.dataset.a11yKeys = "1";
    group.addEventListener("keydown", (event) => moveChoice(event, group));
  }
}

// Arrow keys choose the next or previous button, as in any radio group (Tab still reaches
// each button, as Bokeh draws them).
function moveChoice(event, group) {
  const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
  if (!step) return;
  const buttons = [...group.querySelectorAll(":scope > .bk-btn")].filter((b) => !b.disabled);
  const at = buttons.indexOf(event.target.closest(".bk-btn"));
  if (at < 0 || buttons.length < 2) return;
  event.preventDefault();
  const next = buttons[(at + step + buttons.length) % buttons.length];
  next.focus();
  next.click();
}

// A Toggle: a button that says whether it is pressed (on).
function syncToggle(root) {
  for (const button of root.querySelectorAll(".bk-btn")) {
    setAttr(button, "aria-pressed", String(button.classList.contains("bk-active")));
  }
}

// A plot's canvas takes keyboard focus for Bokeh's keyboard tools, which no figure has: out
// of the Tab order, so that Tab goes from control to control.
function syncCanvas(root) {
  for (const layer of root.querySelectorAll(".bk-events[tabindex]")) {
    setAttr(layer, "tabindex", "-1");
  }
}

// The states a click or an update can change inside one shadow root.
function sync(root, fallback) {
  const cls = hostClass(root);
  if (RADIO_GROUP.test(cls)) syncRadioGroup(root, fallback);
  else if (TOGGLE.test(cls)) syncToggle(root);
  if (root.host.classList.contains("bk-Canvas")) syncCanvas(root);
  syncSliders(root);
}

const needsWatching = (root) =>
  RADIO_GROUP.test(hostClass(root)) ||
  TOGGLE.test(hostClass(root)) ||
  root.host.classList.contains("bk-Canvas") ||
  root.querySelector(".noUi-target") !== null;

// Bokeh changes a button's class when it is chosen, and may re-render a widget in place.
function watch(root, fallback) {
  if (observed.has(root) || !needsWatching(root)) return;
  observed.add(root);
  new MutationObserver(() => sync(root, fallback)).observe(root, {
    subtree: true,
    childList: true,
    characterData: true,
    attributes: true,
    attributeFilter: ["class", "disabled", "tabindex"],
  });
}

// The BokehJS views of the figure in `slot`, by their element: a plot's title and a number
// box's kind and range live only in its model.
function bokehViews(slot) {
  const views = new Map();
  const seen = new Set();
  const walk = (view) => {
    if (!view || seen.has(view)) return;
    seen.add(view);
    if (view.el) views.set(view.el, view);
    for (const child of view.child_views ?? []) walk(child);
  };
  for (const view of window.Bokeh?.index?.roots ?? []) if (slot.contains(view.el)) walk(view);
  return views;
}

// What a plot shows, in words: its title, else its axes' labels, else the figure's title.
function plotName(view, fallback) {
  const model = view?.model;
  const title = model?.title?.text?.trim();
  if (title) return title;
  const axes = [...(model?.below ?? []), ...(model?.left ?? [])]
    .map((axis) => axis?.axis_label?.trim?.())
    .filter(Boolean);
  if (axes.length) return `Plot of ${axes.join(" against ")}`;
  return `Plot: ${fallback}`;
}

// A plot is a picture to assistive technology: one image with its title as its name.
function namePlots(hosts, fallback, views) {
  for (const host of hosts) {
    setAttr(host, "role", "img");
    setAttr(host, "aria-label", plotName(views.get(host), fallback));
  }
}

// Label every control and plot in a figure slot, in each shadow root in it.
export function label(slot) {
  if (!slot) return;
  const fallback = figureName(slot);
  const plots = [];
  const views = bokehViews(slot);
  let warning = "";
  for (const el of elementsIn(slot)) {
    if (el.classList.contains(PLOT)) plots.push(el);
    const root = el.shadowRoot;
    if (!root) continue;
    warning ||= root.querySelector(".fig-message-warning")?.textContent.trim() ?? "";
    const model = views.get(el)?.model;
    const name = modelName(model) || fallback;
    NumberBoxes.guard(root, model, slot);
    nameInputs(root, name);
    sync(root, name);
    watch(root, name);
  }
  NumberBoxes.sayWarning(slot, warning);
  namePlots(plots, fallback, views);
  PlotTables.draw(slot, plots, views);
}

