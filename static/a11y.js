// What the figures' controls and plots tell assistive technology. Bokeh draws its widgets in
// open shadow roots, and leaves much of that out: slider handles and spin buttons have no
// name, a row of radio buttons is a row of plain buttons that never says which one is chosen,
// an on/off Toggle never says whether it is on, and every plot's canvas is an unnamed Tab stop
// that does nothing from the keyboard. page.js calls A11y.label(slot) on a figure slot after
// it draws the figure and after each update from Python (which may re-create widgets); the
// states that change on a click (which button is chosen, on or off, disabled) are kept in sync
// by observers on the shadow roots themselves. Each plot's data is also drawn as a table, in a
// disclosure after the figure's plots, and redrawn on each such call.
(() => {
  "use strict";

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

  // The name drawn above a row of buttons (figures/plots.py's `choice` puts it in an HTML pane
  // just before the group); a bare row has none.
  function labelAbove(root) {
    const above = root.host.previousElementSibling;
    return (above?.shadowRoot ?? above)?.querySelector(".fig-label")?.textContent.trim() ?? "";
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

  // Every BokehJS view on the page, by its element: a plot's title and a number box's kind
  // and range live only in its model.
  function bokehViews() {
    const views = new Map();
    const seen = new Set();
    const walk = (view) => {
      if (!view || seen.has(view)) return;
      seen.add(view);
      if (view.el) views.set(view.el, view);
      for (const child of view.child_views ?? []) walk(child);
    };
    for (const view of window.Bokeh?.index?.roots ?? []) walk(view);
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

  // ---- Each plot's data as a table (figures/plots.py's data_table and data_grid tag it) ----

  const DATA_TAG = "data-table:";

  // Python's f"{x:.{digits}f}": toFixed rounds an exact tie away from zero, Python to even.
  function fixed(x, digits) {
    const text = x.toFixed(digits);
    const exact = x.toFixed(digits + 20); // exact for any double below 1e12 at this length
    if (!/50{19}$/.test(exact)) return text;
    const down = exact.slice(0, -20); // the tie rounded toward zero
    return Number(down.at(-1)) % 2 === 0 ? down.replace(/\.$/, "") : text;
  }

  const sci = (x, digits) => x.toExponential(digits);

  // formatting/__init__.py's num, integer and magnitude_text: a table prints a readout's digits.
  function num(x) {
    if (Number.isNaN(x)) return "NaN";
    if (!Number.isFinite(x)) return x > 0 ? "∞" : "−∞";
    if (Math.abs(x) >= 1e12) return sci(x, 3);
    const text = fixed(x, 4);
    return text === "-0.0000" ? "0.0000" : text;
  }
  const FORMATS = {
    text: (v) => String(v ?? "").trim(),
    num: (v) => num(Number(v)),
    int: (v) => (Number.isFinite(Number(v)) ? Math.trunc(v).toLocaleString("en-US") : num(v)),
    mag: (v) => {
      const x = Number(v);
      if (x === 0) return "0";
      if (Number.isFinite(x) && !(Math.abs(x) >= 1e-3 && Math.abs(x) < 1e4)) return sci(x, 1);
      return num(x);
    },
  };

  function dataSpec(model) {
    const tag = (model?.tags ?? []).find((t) => typeof t === "string" && t.startsWith(DATA_TAG));
    return tag ? JSON.parse(tag.slice(DATA_TAG.length)) : null;
  }

  function cell(row, text, scope = "") {
    const el = document.createElement(scope ? "th" : "td");
    if (scope) el.scope = scope;
    el.textContent = text;
    row.append(el);
  }

  // The table of one plot: caption its name, a header row, a row per data row (or grid row).
  function dataTable(name, spec, model) {
    const source = model.renderers[spec.renderer]?.data_source;
    const column = (field) => source?.get_column?.(field) ?? source?.data?.[field] ?? [];
    const table = document.createElement("table");
    table.createCaption().textContent = name;
    const head = table.createTHead().insertRow();
    const body = table.createTBody();
    if (spec.grid) {
      const values = column(spec.grid);
      for (const text of [spec.corner, ...spec.cols]) cell(head, text, "col");
      spec.rows.forEach((rowName, i) => {
        const row = body.insertRow();
        cell(row, rowName, "row");
        spec.cols.forEach((_, j) => {
          const v = values[i * spec.cols.length + j];
          const blank = v === undefined || (typeof v === "number" && Number.isNaN(v));
          cell(row, blank ? "" : FORMATS[spec.format](v)); // blank, as drawn
        });
      });
      return table;
    }
    const named = Array.isArray(spec.rows);
    if (named) cell(head, spec.row_header, "col");
    for (const [, header] of spec.columns) cell(head, header, "col");
    const data = spec.columns.map(([field]) => column(field));
    const length = Math.max(0, ...data.map((values) => values.length));
    for (let i = 0; i < length; i++) {
      const row = body.insertRow();
      if (named) cell(row, spec.rows[i] ?? "", "row");
      spec.columns.forEach(([, , format], k) => {
        cell(row, FORMATS[format](data[k][i]), !named && k === 0 ? "row" : "");
      });
    }
    return table;
  }

  // The figure's plots' tables, in a "Data" disclosure after its plots: a sighted keyboard
  // reader can open it too, and a screen reader meets it right after the plots it reads out.
  // Tables whose text is unchanged stay in place, so a reader inside one keeps their place.
  function drawTables(slot, hosts, views) {
    const figure = slot.closest("figure") ?? slot.parentElement;
    const tables = [];
    for (const host of hosts) {
      const model = views.get(host)?.model;
      const spec = dataSpec(model);
      if (spec) tables.push(dataTable(host.getAttribute("aria-label"), spec, model));
    }
    let box = figure.querySelector(":scope > details.fig-data");
    if (!tables.length) return box?.remove();
    if (!box) {
      box = document.createElement("details");
      box.className = "fig-data";
      const summary = document.createElement("summary");
      const many = tables.length > 1;
      summary.textContent = many ? "Data: the plots as tables" : "Data: the plot as a table";
      box.append(summary);
      slot.after(box);
    }
    const old = [...box.querySelectorAll(":scope > table")];
    tables.forEach((table, i) => {
      if (!old[i]) box.append(table);
      else if (old[i].outerHTML !== table.outerHTML) old[i].replaceWith(table);
    });
    for (const extra of old.slice(tables.length)) extra.remove();
  }

  // ---- Number and text boxes that say what they expect ----
  // Bokeh's number box drops a character it does not expect without a word, sends an emptied
  // box to Python as no value, and puts the last value back when the box loses focus. Here a
  // box keeps what the reader typed; an entry that is not a number of the box's kind and range
  // says so next to the box (a live region the box names as its description, the box marked
  // invalid) and never reaches the model, so the figure stays at its last good state.

  const NUMBER_BOX = /(^|\s)bk-(Spinner|NumericInput)(\s|$)/;
  const MESSAGE_ID = "fig-input-message"; // one per shadow root, so one id serves every box

  function expectation(model) {
    const whole = model.mode === "int";
    const kind = whole ? "a whole number" : "a number";
    const { low, high } = model;
    const show = (x) => (whole ? Math.trunc(x).toLocaleString("en-US") : String(x));
    if (low != null && high != null) return `Type ${kind} from ${show(low)} to ${show(high)}.`;
    if (low != null) return `Type ${kind} of at least ${show(low)}.`;
    if (high != null) return `Type ${kind} of at most ${show(high)}.`;
    return `Type ${kind}.`;
  }

  // Whether `text` is a number the box takes: of its kind (whole or not), finite, in range.
  function acceptable(text, model) {
    const form =
      model.mode === "int" ? /^\s*[-+]?\d+\s*$/ : /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;
    if (!form.test(text)) return false;
    const x = Number(text);
    const { low, high } = model;
    return Number.isFinite(x) && !(low != null && x < low) && !(high != null && x > high);
  }

  // A message under a box, in the box's shadow root: a live region that the box names as its
  // description while the box is marked invalid. Returns the function that sets its text.
  function boxMessage(input) {
    const message = document.createElement("p");
    message.id = MESSAGE_ID;
    message.className = MESSAGE_ID;
    message.setAttribute("aria-live", "polite");
    (input.closest(".bk-input-group") ?? input).after(message);
    return (text) => {
      setAttr(input, "aria-invalid", text ? "true" : null);
      setAttr(input, "aria-describedby", text ? MESSAGE_ID : null);
      if (message.textContent !== text) message.textContent = text;
    };
  }

  // The boxes guarded so far: a box's shadow root -> {problem: what is wrong with its text as
  // the page sees it ("" when nothing), say: sets its message}.
  const boxes = new WeakMap();
  const lastBox = new WeakMap(); // figure slot -> the box the reader changed last

  // Python reads a box's entry too, and may refuse it in the figure's warning (keeping the
  // figure at its last good state): that warning is repeated under the box the reader changed
  // last, until the figure has none or the box has a problem of its own to say.
  function sayLastBox(slot, warning) {
    const box = boxes.get(lastBox.get(slot));
    if (box) box.say(box.problem() || warning);
  }

  function guardNumberBox(root, model, slot) {
    const input = root.querySelector("input");
    if (!input || !model || boxes.has(root)) return;
    const say = boxMessage(input);
    const problem = () => (acceptable(input.value, model) ? "" : expectation(model));
    boxes.set(root, { problem, say });
    // Capture on the shadow root runs before Bokeh's own listeners on the box: stopping the
    // event there keeps the reader's text, and keeps a bad entry from the model.
    root.addEventListener(
      "input",
      (event) => {
        if (event.target !== input) return;
        event.stopPropagation();
        if (input.hasAttribute("aria-invalid") && !problem()) say("");
      },
      true,
    );
    for (const type of ["change", "focusout"]) {
      root.addEventListener(
        type,
        (event) => {
          if (event.target !== input) return;
          if (type === "change") lastBox.set(slot, root);
          say(problem());
          if (problem()) event.stopPropagation();
        },
        true,
      );
    }
    // A value set by a spin button, an arrow key, Reset or a link is a good entry.
    model.properties.value.change.connect(() => say(problem()));
  }

  // A text box's entry only Python reads: what it says is the figure's warning.
  const TEXT_BOX = /(^|\s)bk-(panel-models-widgets-)?TextInput(\s|$)/;

  function guardTextBox(root, slot) {
    const input = root.querySelector("input");
    if (!input || boxes.has(root)) return;
    boxes.set(root, { problem: () => "", say: boxMessage(input) });
    input.addEventListener("change", () => lastBox.set(slot, root));
  }

  // Label every control and plot in a figure slot, walking each open shadow root in it.
  function label(slot) {
    if (!slot) return;
    const fallback = figureName(slot);
    const plots = [];
    const views = bokehViews();
    let warning = "";
    const visit = (root) => {
      for (const el of root.querySelectorAll("*")) {
        if (el.classList.contains(PLOT)) plots.push(el);
        if (el.shadowRoot) visit(el.shadowRoot);
      }
      if (!root.host) return;
      warning ||= root.querySelector(".fig-message-warning")?.textContent.trim() ?? "";
      const model = views.get(root.host)?.model;
      if (NUMBER_BOX.test(hostClass(root))) guardNumberBox(root, model, slot);
      else if (TEXT_BOX.test(hostClass(root))) guardTextBox(root, slot);
      nameInputs(root, fallback);
      sync(root, fallback);
      watch(root, fallback);
    };
    visit(slot);
    sayLastBox(slot, warning);
    namePlots(plots, fallback, views);
    drawTables(slot, plots, views);
  }

  window.A11y = { label };
})();
