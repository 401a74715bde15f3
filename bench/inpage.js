// Installed into every benchmarked page before its own scripts run, after the harness's probe.
// It offers the helpers the benchmark calls from Python: find a figure's controls in the live
// Bokeh document, change one, and time how long until the figure's readout text changes.
(() => {
  "use strict";
  // The harness's probe (harness/probe.js), installed before this script, counts the worker's
  // messages and walks the shadow roots. The worker answers every change with "change-done"
  // (see static/worker.js).
  const { received, shadowRoots, deepAll } = self.harnessProbe;
  const doneCount = () => received["change-done"] || 0;
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const deepQueryAll = (root, selector) => deepAll(selector, root);

  // A figure's element on the site; the whole body for a page holding one figure.
  const scopeOf = (figureId) =>
    figureId ? document.querySelector(`figure[data-figure="${figureId}"]`) : document.body;

  // The readout as the reader sees it, labels too: two choices may give the same values under
  // another label (the KV-cache figure's Mistral 7B and Llama 3 8B).
  const readoutText = (scope) =>
    deepQueryAll(scope, "[data-readout]")
      .map((el) => el.parentElement.textContent)
      .join("\u241f");

  // Resolves with performance.now() at the first DOM mutation after which the readout text
  // differs from `before`, or null after `timeoutMs`. A timer re-checks too, in case the
  // change landed in a shadow root created after the observers were attached.
  function untilChanged(scope, before, timeoutMs) {
    return new Promise((resolve) => {
      let done = false;
      const finish = (value) => {
        if (done) return;
        done = true;
        observer.disconnect();
        clearInterval(poll);
        clearTimeout(limit);
        resolve(value);
      };
      const check = () => {
        if (readoutText(scope) !== before) finish(performance.now());
      };
      const observer = new MutationObserver(check);
      for (const root of [scope, ...shadowRoots(scope)]) {
        observer.observe(root, { subtree: true, childList: true, characterData: true });
      }
      const poll = setInterval(check, 25);
      const limit = setTimeout(() => finish(null), timeoutMs);
    });
  }

  // After a change: wait for the worker to report it done, then for the figure's DOM to be quiet.
  async function settle(scope, doneBefore, quietMs = 100, maxMs = 5000) {
    const start = performance.now();
    while (doneCount() <= doneBefore && performance.now() - start < maxMs) await sleep(10);
    let last = performance.now();
    const observer = new MutationObserver(() => (last = performance.now()));
    for (const root of [scope, ...shadowRoots(scope)]) {
      observer.observe(root, { subtree: true, childList: true, characterData: true, attributes: true });
    }
    while (performance.now() - last < quietMs && performance.now() - start < maxMs) await sleep(20);
    observer.disconnect();
  }

  // ---- the main thread ----

  // Every long task of the page's main thread (over 50 ms) from the navigation on: Chromium
  // reports them to an observer registered this early.
  const longTasks = [];
  if (PerformanceObserver.supportedEntryTypes?.includes("longtask")) {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) longTasks.push({ start: e.startTime, length: e.duration });
    }).observe({ type: "longtask", buffered: true });
  }
  const tasksBetween = (from, to) => longTasks.filter((t) => t.start >= from && t.start < to);
  // What blocked the main thread between two times: each long task's time over 50 ms, summed
  // (as Lighthouse's total blocking time counts it), and the longest task.
  const blocking = (from, to) => {
    const tasks = tasksBetween(from, to);
    return {
      blocking: tasks.reduce((sum, t) => sum + t.length - 50, 0),
      longest: tasks.reduce((most, t) => Math.max(most, t.length), 0),
    };
  };
  const layoutShift = () => self.harnessProbe.shifts.reduce((sum, s) => sum + s.value, 0);
  // The next animation frame; or, if none comes within FRAME_WAIT_MS, on without it, counted
  // (the probe's frame: a reading that hung on a stalled renderer would never end). Once one
  // has not come, a short wait stands in for each frame after it, so that a stalled scroll
  // ends in seconds, reported as such.
  const FRAME_WAIT_MS = 10000;
  const STALLED_FRAME_MS = 100;
  let framesMissed = 0;
  const frame = async () => {
    if (!(await self.harnessProbe.frame(framesMissed ? STALLED_FRAME_MS : FRAME_WAIT_MS))) {
      framesMissed += 1;
    }
  };
  const settledTasks = () => new Promise((resolve) => setTimeout(resolve, 100));

  // From the navigation to the figures going live: the main thread's blocking and the layout
  // shift so far.
  async function toLive() {
    await settledTasks(); // a long task is reported once it has ended
    const [live] = performance.getEntriesByName("figures-live");
    return { ...blocking(0, live ? live.startTime : performance.now()), shift: layoutShift() };
  }

  // Scroll the page from top to bottom half a screen at a time, two frames a step, as a reader
  // flicking through it; then wait until every figure is drawn and the worker has answered.
  // The main thread's blocking over the whole scroll.
  async function scrollThrough(timeoutMs = 60000) {
    scrollTo(0, 0);
    await frame();
    const start = performance.now();
    const html = document.documentElement;
    // Every figure the scroll passes is drawn on the way; one left far behind may be released
    // again before the scroll ends, so a figure counts once it has been drawn.
    const figures = [...document.querySelectorAll("figure[data-figure]")];
    const isDrawn = (f) => f.dataset.drawn !== undefined;
    const seen = new Set(figures.filter(isDrawn));
    const watch = new MutationObserver(() => figures.filter(isDrawn).forEach((f) => seen.add(f)));
    watch.observe(html, { subtree: true, attributes: true, attributeFilter: ["data-drawn"] });
    while (scrollY + innerHeight < html.scrollHeight - 1) {
      scrollBy(0, innerHeight / 2);
      await frame();
      await frame();
    }
    const done = () => seen.size === figures.length && self.harnessProbe.idle();
    while (!done() && performance.now() - start < timeoutMs) await frame();
    const end = performance.now();
    watch.disconnect();
    await settledTasks();
    const held = figures.filter(isDrawn).length;
    return { ...blocking(start, end), drawn: done(), heldAtEnd: held, framesMissed };
  }

  // ---- the live Bokeh documents ----

  // The figures' root models on screen, from whichever documents hold them (one per figure
  // on our pages, one for all in the baseline's).
  const screenRoots = () => [...Bokeh.index].map((view) => view.model);

  function kindOf(model) {
    const p = model.properties || {};
    if (model.disabled || model.visible === false) return null;
    if ("options" in p && "value" in p && Array.isArray(model.options) && model.options.length > 1)
      return "select";
    if ("start" in p && "end" in p && typeof model.value === "number" && model.end > model.start)
      return "slider";
    if ("categories" in p && model.categories.length > 1) return "slider"; // values by name
    if ("labels" in p && typeof model.active === "number" && model.labels.length > 1)
      return "radio";
    if ("label" in p && typeof model.active === "boolean") return "toggle";
    if ("low" in p && "high" in p && typeof model.value === "number") return "spinner";
    if ("label" in p && /(^|\.)Button$/.test(model.type)) return "button";
    return null;
  }
  const PREFERENCE = ["select", "slider", "radio", "toggle", "spinner"];

  function describe(model, kind) {
    const ends = model.categories ? [model.categories[0], model.categories.at(-1)] : [model.start, model.end];
    const range = kind === "slider" ? ends.join("..") : "";
    const text = model.title || model.label || (model.labels || []).join(" / ") || range;
    return `${kind} "${text}"`;
  }

  // The root model of a figure: named by its id on the site; on a page with one figure, the
  // root that holds controls.
  function figureRoot(figureId) {
    const roots = screenRoots();
    if (figureId) return roots.find((r) => r.name === figureId);
    return roots.find((r) => [...r.references()].some((m) => kindOf(m)));
  }

  function controls(figureId) {
    const found = [...figureRoot(figureId).references()]
      .map((model) => ({ model, kind: kindOf(model) }))
      .filter((c) => c.kind);
    return found.sort((a, b) => PREFERENCE.indexOf(a.kind) - PREFERENCE.indexOf(b.kind));
  }

  function findControl(figureId, kind, text) {
    const hit = controls(figureId).find(
      (c) => c.kind === kind && (!text || describe(c.model, c.kind).includes(text)),
    );
    if (!hit) throw new Error(`no ${kind} control matching ${JSON.stringify(text)} in ${figureId}`);
    return hit;
  }

  // Values a control is moved through, the current one first: each move must change it.
  function valuesFor({ model, kind }) {
    if (kind === "select") {
      const options = model.options.map((o) => (Array.isArray(o) ? o[0] : o));
      const i = Math.max(0, options.indexOf(model.value));
      return [...options.slice(i), ...options.slice(0, i)];
    }
    if (kind === "slider" && model.categories) {
      const at = (share) => model.categories[Math.round((model.categories.length - 1) * share)];
      return [model.value, at(1 / 3) !== model.value ? at(1 / 3) : at(2 / 3)];
    }
    if (kind === "slider") {
      const step = model.step || 1;
      const at = (share) => model.start + Math.round(((model.end - model.start) * share) / step) * step;
      const other = at(1 / 3) !== model.value ? at(1 / 3) : at(2 / 3);
      return [model.value, other];
    }
    if (kind === "radio") {
      const n = model.labels.length;
      return [...Array(n).keys()].map((k) => (model.active + k) % n);
    }
    if (kind === "toggle") return [model.active, !model.active];
    return [model.value, model.value + (model.step || 1)]; // spinner
  }

  const BUTTON = Symbol("click");
  const current = ({ model, kind }) =>
    kind === "button" ? null : kind === "radio" || kind === "toggle" ? model.active : model.value;

  function apply({ model, kind }, value) {
    if (kind === "button") Bokeh.index.find_one(model).click();
    else if (kind === "radio" || kind === "toggle") model.active = value;
    else model.value = value;
  }

  // The next value in the cycle that differs from the control's current one.
  function cycler(control, values) {
    let i = -1;
    return () => {
      for (let tries = 0; tries < values.length; tries += 1) {
        i = (i + 1) % values.length;
        if (values[i] !== current(control)) return values[i];
      }
      throw new Error(`every value of ${describe(control.model, control.kind)} is the current one`);
    };
  }

  // One change: apply it, time the readout's change, then let the figure settle.
  async function timeChange(scope, control, value, timeoutMs) {
    const before = readoutText(scope);
    const doneBefore = doneCount();
    const t0 = performance.now();
    apply(control, value);
    const t1 = await untilChanged(scope, before, timeoutMs);
    await settle(scope, doneBefore);
    return t1 === null ? null : t1 - t0;
  }

  // n changes of `control`, cycling through `values`.
  async function series(scope, control, values, n, timeoutMs) {
    const next = cycler(control, values);
    const latencies = [];
    let timeouts = 0;
    for (let k = 0; k < n; k += 1) {
      const ms = await timeChange(scope, control, next(), timeoutMs);
      if (ms === null) timeouts += 1;
      else latencies.push(ms);
    }
    return { control: describe(control.model, control.kind), latencies, timeouts };
  }

  // The first control (in PREFERENCE order) whose change moves the readout, timed n times
  // after one probe change that is not counted.
  async function latency(figureId, n, timeoutMs = 10000) {
    const scope = scopeOf(figureId);
    const tried = [];
    for (const control of controls(figureId)) {
      if (control.kind === "button") continue;
      const values = valuesFor(control);
      tried.push(describe(control.model, control.kind));
      if ((await timeChange(scope, control, cycler(control, values)(), timeoutMs)) === null) {
        await timeChange(scope, control, values[0], timeoutMs); // put it back
        continue;
      }
      return series(scope, control, values, n, timeoutMs);
    }
    return { control: null, latencies: [], timeouts: 0, tried };
  }

  // A select's option named by its label, as the reader reads it: the value its model holds.
  function optionValue(model, label) {
    const option = model.options.find((o) => Array.isArray(o) && o[1] === label);
    return option ? option[0] : label;
  }

  // A named scenario: `setup` moves controls to fixed values first, then `change` is timed.
  async function scenario(figureId, setup, change, n, timeoutMs = 30000) {
    const scope = scopeOf(figureId);
    for (const step of setup) {
      const control = findControl(figureId, step.kind, step.text);
      const value = control.kind === "select" ? optionValue(control.model, step.value) : step.value;
      if (value !== current(control)) await timeChange(scope, control, value, timeoutMs);
    }
    const control = findControl(figureId, change.kind, change.text);
    const values = change.kind === "button" ? [BUTTON] : change.values || valuesFor(control);
    return series(scope, control, values, n, timeoutMs);
  }

  function summary() {
    return controls(null).map((c) => describe(c.model, c.kind));
  }

  // A code cell's Run (static/cells.js), from the click to the output shown, n times after one
  // run that is not counted (it starts the cells' Python and loads the editor).
  async function cellRun(n, timeoutMs = 120000) {
    const cell = document.querySelector("[data-cell]:not([data-cell-solo])");
    if (!cell) return { control: null, latencies: [], timeouts: 0, tried: ["no cell"] };
    const run = cell.querySelector("[data-cell-run]");
    // Resolves true when the run has ended (its output is in place), false after timeoutMs;
    // an observer, not a poll per frame, so the time is not rounded up to a frame.
    const finished = () =>
      new Promise((resolve) => {
        const done = (ended) => {
          watch.disconnect();
          clearTimeout(timer);
          resolve(ended);
        };
        const watch = new MutationObserver(() => cell.dataset.running === "false" && done(true));
        watch.observe(cell, { attributes: true, attributeFilter: ["data-running"] });
        const timer = setTimeout(() => done(false), timeoutMs);
        if (cell.dataset.running === "false") done(true);
      });
    run.click();
    await finished();
    const latencies = [];
    let timeouts = 0;
    for (let i = 0; i < n; i += 1) {
      const start = performance.now();
      run.click();
      if (await finished()) latencies.push(performance.now() - start);
      else timeouts += 1;
    }
    return { control: `Run, ${cell.dataset.cellLabel}`, latencies, timeouts };
  }

  window.__bench = {
    toLive,
    layoutShift,
    scrollThrough,
    latency,
    scenario,
    summary,
    cellRun,
    readoutText: (id) => readoutText(scopeOf(id)),
  };
})();
