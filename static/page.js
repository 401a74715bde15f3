// The page's side of the live figures. It shows the build-time pre-render of the figures near
// the screen at once (and of each other figure as the reader nears it), starts one Web Worker
// that runs Pyodide and every figure's Python on the page, and once the worker has drawn the
// figures, the pre-render is the live figures: the reader's changes to a control go
// to the worker as the value the control's model holds, and the worker's answer is new values
// for the figure's models, by id (the build recorded which model is which: each figure's
// wiring, in the pre-render). The messages between the two are listed at the top of worker.js.
//
// The figures are in one phase at a time, and only enter() moves them:
//
//   prerendering --> starting --> live
//        |             |  ^         |
//        |             v  | Retry   |
//        +---------> failed <-------+
//
//   prerendering, starting --> outdated
//
//   prerendering  the pre-render of the figures near the screen is being drawn; Python
//                 starts meanwhile (boot.js).
//   starting      the pre-render is on screen and Python is starting in the worker (a worker
//                 that cannot use the snapshot is replaced by one that starts without it).
//   live          the worker's figures are on screen and answer the controls.
//   failed        no worker: the pre-render shows (drawn again if the figures were live), and
//                 each status line says why and offers a Retry.
//   outdated      a file the page needs is gone from the server: the site was deployed again
//                 since this page was loaded, and every file is named by its content, so the
//                 page's own versions are gone. No worker; the pre-render shows, and each
//                 status line says so and offers a Reload, the only way to the new files.
//
// Links to a figure's view: the URL's query holds each linked figure's controls that differ
// from its defaults, as "<figure id>.<control key>=<value>" (figures/viewstate.py names the
// keys and checks the values), and its hash names the figure's element. The pre-render shows
// the defaults; on going live the worker is asked to show each linked view, and answers with
// the view or a one-line note (then the defaults), which the figure's status line shows. Each
// figure's "Link to this view" and "Reset" buttons work while it is live.
(() => {
  "use strict";
  const html = document.documentElement;
  const config = JSON.parse(document.getElementById("page-config").textContent);
  const banner = document.getElementById("live-status");
  const figures = [...document.querySelectorAll("figure[data-figure]")];

  // The moves enter() allows: phase -> the phases it may move to.
  const MOVES = {
    prerendering: ["starting", "failed", "outdated"],
    starting: ["live", "failed", "outdated"],
    live: ["failed"],
    failed: ["starting"],
    outdated: [],
  };
  // What <html data-figures> and each status line's data-status say in a phase (the tests,
  // the benchmark and site.css read them); there is none while the pre-render is drawn.
  const SHOWN_AS = { starting: "static", live: "live", failed: "failed", outdated: "outdated" };
  // A figure update is quick: a worker silent this long has died or hung.
  const STALL_MS = 15_000;
  // A measurement times work on the reader's own machine, as long as that machine takes; the
  // worker is only given up on after this long.
  const MEASURE_STALL_MS = 180_000;
  const LIVE = "Live: this figure is computed by numpy in your browser.";
  const MEASURING = "Measuring in your browser: the figure updates when it is done.";
  // The phases in which Python is on its way: each figure is aria-busy, and its controls hold
  // the reader's changes for it.
  const WAITING = ["prerendering", "starting"];
  // The phases in which no Python answers the controls, so they are disabled (see syncControls).
  const DOWN = ["failed", "outdated"];
  // Whether a Bokeh model is a control: every widget the reader operates (inputs, selects,
  // sliders, buttons, groups of buttons or boxes, Panel's too) extends BokehJS's Control, an
  // abstract class that its registry does not list, so it is found by name up the chain.
  function isControl(model) {
    for (let cls = model.constructor; cls?.prototype; cls = Object.getPrototypeOf(cls)) {
      if (cls.__name__ === "Control") return true;
    }
    return false;
  }
  const HELD =
    "Waiting for Python: your change is kept, and the figure recomputes it once it is live.";

  // The id the URL's hash names ("" for none, or for a hash that is not valid percent-encoding).
  function hashTarget() {
    try {
      return decodeURIComponent(location.hash.slice(1));
    } catch {
      return "";
    }
  }

  const notSending = () => ({
    awaitingReply: false, // a batch of changes is with the worker, not yet answered
    queued: [], // changes made meanwhile: only the latest per control, and every press
    stallTimer: null, // fails the figures if the worker never answers
    drawings: 0, // "shown" and "drawn" messages the worker has not answered with a drawing yet
    drawingTimer: null, // fails the figures if the worker never sends those drawings
    whenIdle: [], // messages for the worker that wait until it has the reader's changes
    measuring: [], // the figures whose measurement (a Measure button) is in the batch sent
  });

  const state = {
    phase: "prerendering",
    // The figure the URL's hash names: scrolled to again as the figures above it are drawn and
    // take their size, until the reader scrolls or presses a key themselves.
    target: { id: hashTarget(), readerMoved: false },
    asked: new Map(), // figure id -> the view-* messages it awaits answers to, oldest first
    worker: null, // the Python worker, while one runs
    prerender: {
      // The promise of the figures near the screen being drawn, as the page loads (and again
      // after live failed); the rest are drawn as the reader nears them (see draw).
      drawing: null,
      visible: false, // the figures on the reader's screen are drawn: a worker need not wait
      docs: new Map(), // figure id -> the Bokeh document its pre-render was drawn from
      wanted: new Set(), // the figures drawn, or on their way (queued)
      queue: Promise.resolve(), // the drawing, one figure after the other
    },
    views: [], // Bokeh's view managers of the documents on screen
    nearing: null, // the IntersectionObserver that draws a figure as the reader nears it
    // Controls moved on the pre-render before Python is live: "figure|key" -> the change.
    earlyChanges: new Map(),
    clicks: new Map(), // "figure|key" -> the clicks of a button whose count is the figure's state
    sending: notSending(), // the reader's changes on their way to the worker
    applyingWorkerValues: 0, // > 0 while applying values the worker has, which must not echo back
    disabledByPage: new Set(), // control models the page disabled while Python is down
    waitingForReader: false, // saving data: Python starts when the reader asks (startWhenAsked)
  };

  // Figure id -> its pre-render: the Bokeh document to draw and its wiring.
  const prerender = JSON.parse(document.getElementById("prerender").textContent);
  // Figure id -> which of its models is which (layoutkit/wiring.py's table), and each control
  // and action button by model id.
  const wiring = Object.fromEntries(
    Object.entries(prerender).map(([figureId, { wiring: w }]) => {
      const byId = new Map();
      for (const [key, c] of Object.entries(w.controls)) byId.set(c.id, { key, prop: c.prop });
      for (const [action, id] of Object.entries(w.actions)) byId.set(id, { action });
      return [figureId, { ...w, byId }];
    }),
  );
  const wiringTables = () =>
    Object.fromEntries(Object.entries(wiring).map(([id, { byId, ...table }]) => [id, table]));
  // The Bokeh document that embed() drew.
  const documentOf = (views) => [...views[0].roots][0].model.document;

  const setBanner = (text) => {
    banner.hidden = !text;
    banner.textContent = text;
  };

  const setStatusLines = (status, text) => {
    for (const fig of figures) {
      const el = fig.querySelector(".fig-status");
      el.dataset.status = status;
      el.textContent = text;
    }
  };

  // Move the figures to `phase` and show it: <html data-figures>, every figure's status line
  // and the loading banner. `reason` says why, for "failed".
  function enter(phase, reason = "") {
    const from = state.phase;
    if (!MOVES[from].includes(phase)) {
      throw new Error(`the figures cannot go from ${from} to ${phase}`);
    }
    state.phase = phase;
    html.dataset.figures = SHOWN_AS[phase];
    showBusy();
    syncControls();
    for (const button of document.querySelectorAll("figure[data-figure] [data-view]")) {
      button.disabled = phase !== "live";
      button.title = phase === "live" ? "" : "Works once the figure is live";
    }
    // The first start keeps the template's status lines and the worker's progress banner.
    if (phase === "starting" && from === "failed") {
      setStatusLines(SHOWN_AS[phase], "Retrying: the controls come alive when Python has loaded.");
    } else if (phase === "live") {
      setBanner("");
      setStatusLines(SHOWN_AS[phase], LIVE);
    } else if (phase === "failed") {
      setBanner("");
      setStatusLines(
        SHOWN_AS[phase],
        `Not live: ${reason}. The figure shows its pre-rendered default numbers, which are correct.`,
      );
      for (const fig of figures) fig.querySelector(".fig-status").append(" ", retryButton());
    } else if (phase === "outdated") {
      setBanner("");
      setStatusLines(
        SHOWN_AS[phase],
        "Not live: the site has been updated since this page was loaded, and a file it needs " +
          "is gone. Reload the page to get the new version. The figure shows its pre-rendered " +
          "numbers.",
      );
      for (const fig of figures) fig.querySelector(".fig-status").append(" ", reloadButton());
    }
  }

  // Each figure (with its status line) is busy while Python is on its way, and only then: not
  // while the page waits for a reader who saves data to ask for it.
  function showBusy() {
    const busy = WAITING.includes(state.phase) && !state.waitingForReader;
    for (const fig of figures) {
      if (busy) fig.setAttribute("aria-busy", "true");
      else fig.removeAttribute("aria-busy");
    }
  }

  // With Python down (failed, outdated), moving a control would change nothing, and no one can
  // say whether it ever will: the controls are disabled, visibly and, through a11y.js's
  // observers and the native disabled elements Bokeh draws, for assistive technology, until
  // Retry starts Python again. While Python is on its way they stay enabled and hold the
  // reader's changes (onFigureChange), which have an end to wait for. Only the controls the
  // page disabled are enabled again: one the figure's Python disabled stays so.
  function syncControls() {
    if (!DOWN.includes(state.phase)) {
      for (const model of state.disabledByPage) model.disabled = false;
      state.disabledByPage.clear();
      return;
    }
    const docs = new Set(state.views.flatMap((m) => [...m.roots].map((v) => v.model.document)));
    for (const doc of docs) {
      for (const model of doc.all_models) {
        if (model.disabled || !isControl(model)) continue;
        model.disabled = true;
        state.disabledByPage.add(model);
      }
    }
  }

  // Apply values the worker has already, without sending them back to it.
  function withoutEcho(apply) {
    state.applyingWorkerValues += 1;
    try {
      apply();
    } finally {
      state.applyingWorkerValues -= 1;
    }
  }

  // `run` at the next frame, however often it is asked for before then.
  function oncePerFrame(run) {
    let queued = false;
    return () => {
      if (queued) return;
      queued = true;
      requestAnimationFrame(() => {
        queued = false;
        run();
      });
    };
  }

  // BokehJS's categorical slider takes its option at the handle's position by truncating it, and
  // a key press can leave the handle a hair below the next index (2.9999...), so the press
  // chooses the old option again: take the nearest one. (Its test: a walk over every choice
  // slider, tests/site/test_choice_sliders_browser.py.)
  function roundCategoricalSliders() {
    const view = Bokeh.require("models/widgets/sliders/categorical_slider").CategoricalSliderView;
    view.prototype._calc_from = function ([position]) {
      return this.model.categories[Math.round(position)];
    };
  }

  // Render a serialized document into fresh holders inside the figure slots.
  async function embed(data) {
    const item = { ...data.render_items[0], roots: {} };
    for (const [figureId, rootId] of Object.entries(data.roots)) {
      const slot = document.getElementById(`fig-${figureId}`);
      const holder = document.createElement("div");
      holder.id = `fig-${figureId}-${rootId}`;
      slot.replaceChildren(holder);
      item.roots[rootId] = holder.id;
    }
    const views = await Bokeh.embed.embed_items(data.docs_json, [item]);
    // What Bokeh leaves out for assistive technology: names, states, plots (a11y.js).
    for (const figureId of Object.keys(data.roots)) {
      A11y.label(document.getElementById(`fig-${figureId}`));
    }
    return views;
  }

  // An update from the worker may re-create widgets or retitle plots: label them again.
  const relabelSoon = oncePerFrame(() => {
    for (const fig of figures) A11y.label(fig.querySelector(".fig-slot"));
  });

  function removeViews() {
    for (const manager of state.views) for (const view of manager.roots) view.remove();
    for (const fig of figures) delete fig.dataset.drawn;
    for (const [slot, attributes] of placeholders) {
      for (const [name, value] of attributes) slot.setAttribute(name, value);
    }
    state.views = [];
    state.prerender.docs = new Map();
    state.prerender.wanted = new Set();
    state.clicks = new Map(); // a pre-render drawn again counts from none
    state.disabledByPage.clear(); // those models are gone
  }

  // One batch of the reader's changes for the worker, in order. A batch that measures keeps
  // its figures busy, saying so on their status lines, until the worker is done with it.
  function sendChanges(changes) {
    const sending = state.sending;
    sending.awaitingReply = true;
    sending.measuring = changes
      .filter((c) => wiring[c.figure].measures.includes(c.action))
      .map((c) => c.figure);
    for (const figureId of sending.measuring) showMeasuring(figureId, true);
    clearTimeout(sending.stallTimer);
    const limit = sending.measuring.length ? MEASURE_STALL_MS : STALL_MS;
    sending.stallTimer = setTimeout(() => fail("the Python worker stopped responding"), limit);
    state.worker.postMessage({ type: "change", changes });
  }

  function showMeasuring(figureId, measuring) {
    const fig = figureById(figureId);
    if (measuring) fig.setAttribute("aria-busy", "true");
    else fig.removeAttribute("aria-busy");
    setStatus(figureId, measuring ? MEASURING : LIVE);
  }

  // The worker has finished the last batch: send what the reader changed meanwhile.
  function onChangeDone() {
    const sending = state.sending;
    clearTimeout(sending.stallTimer);
    for (const figureId of sending.measuring.splice(0)) showMeasuring(figureId, false);
    if (sending.queued.length) {
      const changes = sending.queued;
      sending.queued = [];
      sendChanges(changes);
    } else {
      sending.awaitingReply = false;
      for (const message of sending.whenIdle.splice(0)) state.worker.postMessage(message);
    }
  }

  // A data source's changed columns as BokehJS holds them: an image comes from the worker as
  // {ndarray: its values in order, dtype, shape} and is drawn from a BokehJS ndarray.
  function columns(data) {
    const { ndarray } = Bokeh.require("core/util/ndarray");
    const array = (v) => (v?.ndarray ? ndarray(v.ndarray, { dtype: v.dtype, shape: v.shape }) : v);
    return Object.fromEntries(Object.entries(data).map(([name, column]) => [name, column.map(array)]));
  }

  // Whether a model's value `now` already is what the worker sends: a number, text, or a list
  // (a column, a typed array, an image's rows) of them.
  function same(now, sent) {
    if (now === sent) return true;
    const list = (v) => Array.isArray(v) || ArrayBuffer.isView(v);
    if (!list(now) || !list(sent) || now.length !== sent.length) return false;
    for (let i = 0; i < now.length; i++) if (!same(now[i], sent[i])) return false;
    return true;
  }

  // What of `props` (property -> value, a source's "data" by column) the model does not show yet.
  function differing(model, props) {
    const out = {};
    for (const [prop, value] of Object.entries(props)) {
      if (prop === "data") {
        const data = Object.entries(value).filter(([name, column]) => !same(model.data[name], column));
        if (data.length) out.data = Object.fromEntries(data);
      } else if (prop === "clicks" || !same(model[prop], value)) {
        out[prop] = value;
      }
    }
    return out;
  }

  // Set the worker's new values on the figures' models: figure id -> model id -> {property:
  // value}; a data source's "data" holds only the columns that changed, a button's "clicks"
  // is the count the page keeps for it. Values the model already has are left alone, so
  // that a figure's whole drawing, sent as it goes live, redraws only what differs. A figure
  // not drawn yet is passed over.
  function applyUpdates(updates) {
    for (const [figureId, byModel] of Object.entries(updates)) {
      const doc = state.prerender.docs.get(figureId);
      if (!doc) continue; // not drawn yet: once drawn, it asks for the worker's drawing
      for (const [id, props] of Object.entries(byModel)) {
        const model = doc.get_model_by_id(id);
        if (!model) throw new Error(`the worker changed a model ${figureId} does not have (${id})`);
        const { data, clicks, ...rest } = differing(model, props);
        if (clicks !== undefined) state.clicks.set(`${figureId}|${wiring[figureId].byId.get(id).key}`, clicks);
        // A control the reader has moved again since (a change still queued for it) keeps the
        // reader's value: set back, the reader's next key press would start from the old one.
        const wired = wiring[figureId].byId.get(id);
        const queued = (c) => c.figure === figureId && c.key === wired?.key;
        if (wired?.prop && state.sending.queued.some(queued)) delete rest[wired.prop];
        if (data !== undefined) rest.data = { ...model.data, ...columns(data) };
        if (Object.keys(rest).length) model.setv(rest);
      }
    }
  }

  // The reader's change in a figure's document, as the worker takes it: {figure, key, raw} for
  // a control, {figure, action} for an action button; null for any other change.
  function readerChange(figureId, event) {
    const click = event.msg_type === "bokeh_event" && event.msg_data?.event_name === "button_click";
    const model = click ? event.msg_data.origin : event.model;
    const wired = model && wiring[figureId].byId.get(model.id);
    if (!wired) return null;
    if (wired.action !== undefined) return click ? { figure: figureId, action: wired.action } : null;
    if (wired.prop === "clicks") {
      if (!click) return null;
      const count = `${figureId}|${wired.key}`;
      state.clicks.set(count, (state.clicks.get(count) ?? 0) + 1);
      return { figure: figureId, key: wired.key, raw: state.clicks.get(count) };
    }
    if (click || event.attr !== wired.prop) return null;
    return { figure: figureId, key: wired.key, raw: model[wired.prop] };
  }

  // A change to a figure: the reader's, unless the worker's own values are being applied.
  // Before Python is live, a control's latest value is kept for it (and the status line says
  // so); once live, changes go to the worker, one batch at a time.
  function onFigureChange(figureId, event) {
    if (state.applyingWorkerValues > 0) return;
    const change = readerChange(figureId, event);
    if (!change) return;
    if (state.phase !== "live") {
      if (change.action !== undefined || state.phase === "failed" || state.phase === "outdated") return;
      state.earlyChanges.set(`${figureId}|${change.key}`, change);
      if (WAITING.includes(state.phase)) setStatus(figureId, HELD);
      return;
    }
    const sending = state.sending;
    if (!sending.awaitingReply) return sendChanges([change]);
    if (change.key !== undefined) {
      const same = (c) => c.figure === change.figure && c.key === change.key;
      sending.queued = sending.queued.filter((c) => !same(c));
    }
    sending.queued.push(change);
  }

  const nextFrame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));

  // ------------------------------------------------ drawing the figures as the reader nears them

  // A figure is drawn (its Bokeh views built, its canvases painted) once it comes within a
  // screen's height of the screen, and then stays drawn: a page does not build every figure as
  // it loads, and holds the canvases of the figures the reader has come near only. Until then
  // its slot is empty but as tall as the figure drawn (sitebuild/placeholders.py), and its
  // caption, status line and buttons are in place.
  const NEAR = "100% 0px"; // the margin around the screen, for the IntersectionObserver
  const TAB_STOPS = "input, select, textarea, button, a[href], [tabindex]";
  // Each slot's attributes while it is not drawn (templates/_figure.html): a named Tab stop.
  const placeholders = new Map(
    figures.map((fig) => {
      const slot = fig.querySelector(".fig-slot");
      return [slot, ["tabindex", "role", "aria-label"].map((name) => [name, slot.getAttribute(name)])];
    }),
  );
  const place = (id) => figureById(id).getBoundingClientRect();
  const onScreen = (r) => r.top < innerHeight && r.bottom > 0;
  const isNear = (r) => r.top < 2 * innerHeight && r.bottom > -innerHeight;
  const distance = (r) => (onScreen(r) ? 0 : Math.min(Math.abs(r.top - innerHeight), Math.abs(r.bottom)));
  // The figure the URL's hash is in (its own anchor, its plot area's), drawn before any other.
  const targetFigure = () =>
    document.getElementById(state.target.id)?.closest("figure[data-figure]")?.dataset.figure;

  // Draw those of `ids` not drawn or on their way, the target first, then nearest first, after
  // the figures already queued. Resolves once they are drawn; `onEach` runs after each.
  function draw(ids, onEach = () => {}) {
    const p = state.prerender;
    const target = targetFigure();
    const rank = (id) => (id === target ? -1 : distance(place(id)));
    const fresh = ids.filter((id) => !p.wanted.has(id)).sort((a, b) => rank(a) - rank(b));
    const drawn = fresh.map((id) => {
      p.wanted.add(id);
      const next = p.queue.then(() => drawFigure(id)).then(() => onEach(id));
      p.queue = next.catch(() => {}); // a failure is the caller's; the queue goes on
      return next;
    });
    return Promise.all(drawn);
  }

  // Draw one figure's pre-render into its slot (unless it was drawn, or its views were removed,
  // since it was queued), then let the browser paint. A figure drawn while Python is live asks
  // the worker for its drawing as it stands, and answers the controls at once.
  async function drawFigure(id) {
    const p = state.prerender;
    if (p.docs.has(id) || !p.wanted.has(id)) return;
    const views = await embed(prerender[id]);
    const slot = document.getElementById(`fig-${id}`);
    // Drawn, the slot is no longer a Tab stop of its own: a reader who tabbed to it goes on to
    // the figure's first control.
    const tabbedTo = document.activeElement === slot;
    for (const [name] of placeholders.get(slot)) slot.removeAttribute(name);
    if (tabbedTo) firstTabStop(slot)?.focus();
    const doc = documentOf(views);
    state.views.push(...views);
    p.docs.set(id, doc);
    doc.on_change((event) => onFigureChange(id, event), false);
    syncControls(); // a figure drawn after Python failed is down with the rest
    figureById(id).dataset.drawn = "";
    if (state.phase === "live") askDrawing({ type: "drawn", figure: id });
    scrollToTarget(); // the figures above the target have their size now
    await nextFrame();
  }

  // Where Tab goes first inside `root`: its first enabled control, in document order, looking
  // into the open shadow roots Bokeh and Panel draw their widgets in.
  function firstTabStop(root) {
    for (const el of root.querySelectorAll("*")) {
      if (el.matches(TAB_STOPS) && !el.disabled && el.tabIndex >= 0) return el;
      const inner = el.shadowRoot && firstTabStop(el.shadowRoot);
      if (inner) return inner;
    }
    return null;
  }

  // Draw the figures near the screen (the target's first); `onVisible` runs once those on the
  // screen are drawn. Then each figure is drawn as it comes near (and every one for print).
  function drawNear(onVisible = () => {}) {
    const ids = figures.map((fig) => fig.dataset.figure);
    const near = ids.filter((id) => isNear(place(id)) || id === targetFigure());
    let waiting = near.filter((id) => onScreen(place(id))).length;
    if (waiting === 0) onVisible(); // no figure on the screen: none to wait for
    state.nearing?.disconnect();
    state.nearing = new IntersectionObserver(
      (entries) => {
        const came = entries.filter((e) => e.isIntersecting).map((e) => e.target.dataset.figure);
        draw(came).catch((err) => fail(String(err)));
      },
      { rootMargin: NEAR },
    );
    for (const fig of figures) state.nearing.observe(fig);
    return draw(near, () => {
      if (--waiting === 0) onVisible();
    });
  }

  // A slot not drawn yet is a Tab stop: reached by the keyboard, its figure is drawn at once.
  function drawOnFocus() {
    for (const fig of figures) {
      const drawIt = () => draw([fig.dataset.figure]).catch((err) => fail(String(err)));
      fig.querySelector(".fig-slot").addEventListener("focus", drawIt);
    }
  }

  // Print shows every figure: those the reader has not come near are drawn for it.
  function drawAllForPrint() {
    const all = () => draw(figures.map((fig) => fig.dataset.figure)).catch((err) => fail(String(err)));
    addEventListener("beforeprint", all);
    matchMedia("print").addEventListener("change", (media) => media.matches && all());
  }

  // The worker has drawn the figures: the pre-render on screen is the live figures now, and
  // what the reader changed meanwhile goes to Python first.
  async function goLive() {
    await state.prerender.drawing; // the figures near the screen are on the page
    enter("live");
    scrollToTarget();
    askDrawing({ type: "shown", wiring: wiringTables(), drawn: [...state.prerender.docs.keys()] });
    for (const [figureId, params] of linkedViews()) askView(figureId, "view-apply", { params });
    if (state.earlyChanges.size) sendChanges([...state.earlyChanges.values()]);
    state.earlyChanges = new Map();
    performance.mark("figures-live");
  }

  // Ask the worker for the drawing of figures the page has drawn ("shown" as it goes live,
  // "drawn" as the reader nears one later): a worker silent this long has died or hung.
  function askDrawing(message) {
    const sending = state.sending;
    sending.drawings += 1;
    clearTimeout(sending.drawingTimer);
    sending.drawingTimer = setTimeout(() => fail("the Python worker stopped responding"), STALL_MS);
    state.worker.postMessage(message);
  }

  // The worker's drawing of figures the page has drawn is on them: each is live (data-drawn,
  // which the tests wait on).
  function onDrawing(updates) {
    const sending = state.sending;
    if (--sending.drawings === 0) clearTimeout(sending.drawingTimer);
    for (const id of Object.keys(updates)) {
      if (state.prerender.docs.has(id)) figureById(id).dataset.drawn = "live";
    }
  }

  // Forget the worker and everything in flight with it.
  function stopWorker() {
    state.worker?.terminate();
    state.worker = null;
    state.asked = new Map();
    clearTimeout(state.sending.stallTimer);
    clearTimeout(state.sending.drawingTimer);
    state.sending = notSending();
  }

  function fail(reason) {
    if (state.phase === "failed" || state.phase === "outdated") return; // the first reason stands
    const wasLive = state.phase === "live";
    stopWorker();
    enter("failed", reason);
    // Controls that no longer reach Python must not pretend to work: back to the pre-render.
    if (wasLive) {
      removeViews();
      state.prerender.drawing = drawNear().catch(console.error);
    }
  }

  // The page is older than the site on the server (`url` answered 404): stop and offer a reload.
  function outdated(url) {
    if (state.phase === "outdated") return;
    console.warn(`figures: ${url} is gone from the server; this page is older than the site`);
    stopWorker();
    enter("outdated");
  }

  // Whether `url` is gone from the server, asked past the browser's cache.
  const isGone = (url) =>
    fetch(url, { method: "HEAD", cache: "no-store" }).then((r) => r.status === 404, () => false);

  // Something failed before the worker could say why (a script that did not load, say): if a
  // file of this page is gone from the server, that is the reason to show.
  async function failOrOutdated(urls, reason) {
    const gone = await Promise.all(urls.map(isGone));
    const url = urls.find((_, i) => gone[i]);
    if (url) outdated(url);
    else fail(reason);
  }

  function reloadButton() {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "fig-retry";
    button.textContent = "Reload";
    button.addEventListener("click", () => location.reload());
    return button;
  }

  function retryButton() {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "fig-retry";
    button.textContent = "Retry";
    button.addEventListener("click", retry);
    return button;
  }

  function retry() {
    enter("starting");
    startWorker();
  }

  async function onWorkerMessage({ data: message }) {
    switch (message.type) {
      case "progress":
        performance.mark(`loading-step-${message.step}`);
        setBanner(
          `Loading the live figures, step ${message.step} of ${message.of}: ${message.text}…`,
        );
        break;
      case "ready":
        performance.mark("figures-built");
        html.dataset.start = message.start;
        await goLive();
        break;
      case "snapshot-unusable":
        // The build-time snapshot could not be used in this browser: start Python the long way.
        console.warn(`figures: starting without the snapshot (${message.reason})`);
        stopWorker();
        startWorker({ snapshot: false });
        break;
      case "drawing":
        withoutEcho(() => applyUpdates(message.updates));
        relabelSoon();
        onDrawing(message.updates);
        break;
      case "update":
        withoutEcho(() => applyUpdates(message.updates));
        relabelSoon();
        break;
      case "change-done":
        onChangeDone();
        break;
      case "view":
        onView(message);
        break;
      case "failed":
        fail(message.reason);
        break;
      case "outdated":
        outdated(message.url);
        break;
    }
  }

  function listen(worker) {
    worker.onmessage = (event) => onWorkerMessage(event).catch((err) => fail(String(err)));
    worker.onerror = (event) => {
      event.preventDefault();
      if (event.message) fail(`the Python worker could not run (${event.message})`);
      else failOrOutdated([config.urls.worker], "the Python worker's script failed to load");
    };
  }

  function startWorker({ snapshot = true } = {}) {
    state.worker = new Worker(config.urls.worker);
    listen(state.worker);
    state.worker.postMessage({
      type: "start",
      ...config,
      snapshot: snapshot && config.snapshot,
      prerenderVisible: state.prerender.visible,
    });
  }

  // Take over the worker boot.js started, handling what it has said so far in order.
  function takeOverBootWorker({ worker, events }) {
    state.worker = worker;
    listen(worker);
    // With no figure on the screen, the page had none to draw before this: the worker, which
    // waits for the screen's figures before it takes the CPU, need not.
    if (state.prerender.visible) worker.postMessage({ type: "prerender-visible" });
    for (const event of events) {
      if (event.type === "error") worker.onerror(event);
      else worker.onmessage(event);
    }
  }

  // The browser asks to save data (boot.js): no byte of Python is fetched until the reader
  // uses a figure's control or presses a figure's "Load live figures"; each status line says so.
  function startWhenAsked() {
    const waiting = figures[0].querySelector(".fig-status").textContent;
    const listening = new AbortController(); // every listener below, removed at the first ask
    state.waitingForReader = true;
    showBusy();
    const asked = () => {
      listening.abort();
      state.waitingForReader = false;
      showBusy();
      setStatusLines("static", waiting);
      startWorker();
    };
    const once = { capture: true, signal: listening.signal };
    for (const fig of figures) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "fig-retry";
      button.textContent = "Load live figures";
      const status = fig.querySelector(".fig-status");
      status.textContent =
        "Pre-rendered: the default numbers as computed when this page was built. Your browser " +
        "asks to save data, so the live figures (several megabytes) load when you use a " +
        "control, or now:";
      status.append(" ", button);
      const slot = document.getElementById(`fig-${fig.dataset.figure}`) ?? fig;
      // A control used by pointer, keyboard or assistive technology (which sets its value).
      for (const type of ["pointerdown", "keydown", "input"]) {
        slot.addEventListener(type, asked, once);
      }
      button.addEventListener("click", asked, once);
    }
  }

  // ---------------------------------------------------------------- links to a figure's view

  const figureById = (figureId) => figures.find((fig) => fig.dataset.figure === figureId);

  // The status line of one figure, keeping its phase (data-status).
  const setStatus = (figureId, text) => {
    figureById(figureId).querySelector(".fig-status").textContent = text;
  };

  // The URL's views: figure id -> {control key: value}. Parameters that name no figure on
  // this page are someone else's and are left alone.
  function linkedViews() {
    const views = new Map();
    for (const [name, value] of new URLSearchParams(location.search)) {
      const dot = name.indexOf(".");
      const figureId = name.slice(0, dot);
      if (dot < 1 || !figureById(figureId)) continue;
      if (!views.has(figureId)) views.set(figureId, {});
      views.get(figureId)[name.slice(dot + 1)] = value;
    }
    return views;
  }

  // This page's URL with figure `figureId`'s view as `params` (null: none of its parameters).
  // `only`: the other figures' parameters go (a link to one figure's view), others' stay.
  function urlWithView(figureId, params, { only = false } = {}) {
    const url = new URL(location.href);
    const query = new URLSearchParams(url.search);
    const ids = only ? figures.map((fig) => fig.dataset.figure) : [figureId];
    const ours = (name) => ids.some((id) => name.startsWith(`${id}.`));
    for (const name of [...query.keys()]) if (ours(name)) query.delete(name);
    for (const [key, value] of Object.entries(params ?? {})) query.append(`${figureId}.${key}`, value);
    url.search = query.toString();
    url.hash = `figure-${figureId}`;
    return url;
  }

  // Ask the worker to get, apply or reset a figure's view, once it has the reader's changes.
  function askView(figureId, type, extra = {}) {
    const asked = state.asked.get(figureId) ?? [];
    state.asked.set(figureId, [...asked, type]);
    const message = { type, figure: figureId, ...extra };
    if (state.sending.awaitingReply) state.sending.whenIdle.push(message);
    else state.worker.postMessage(message);
  }

  async function copyLink(figureId, url) {
    history.replaceState(history.state, "", url);
    try {
      await navigator.clipboard.writeText(url.href);
      setStatus(figureId, "Link copied: it opens this figure as it is now.");
    } catch {
      // No clipboard here (an insecure origin, or the browser said no): the address bar has it.
      setStatus(figureId, "Link in the address bar: it opens this figure as it is now.");
    }
  }

  // The worker's answer to a view-* message: the figure's view now, and a note if a link's
  // view could not be restored.
  function onView({ figure: figureId, params, note, code }) {
    const [type, ...rest] = state.asked.get(figureId) ?? [];
    state.asked.set(figureId, rest);
    if (type === "view-get") {
      copyLink(figureId, urlWithView(figureId, params, { only: true }));
    } else if (type === "view-reset") {
      history.replaceState(history.state, "", urlWithView(figureId, null));
      setStatus(figureId, "Live: back to this figure's defaults.");
    } else if (type === "view-code") {
      answerCode(figureId, code);
    } else if (type === "view-apply") {
      if (note) console.info(`figures: ${figureId}: ${note}`);
      const restored = "Live: showing the view from the link. Reset returns to the defaults.";
      setStatus(figureId, note || restored);
      scrollToTarget();
    }
  }

  function scrollToTarget() {
    const el = state.target.id && document.getElementById(state.target.id);
    if (el && !state.target.readerMoved) el.scrollIntoView({ block: "start" });
  }

  // A figure's try-it cell (cells.js) asks for the state the figure shows with a
  // "figure-code-wanted" event on the figure, and is answered with a "figure-code" event whose
  // detail.code is the state as Python, or null with detail.why.
  function answerCode(figureId, code, why = "Python could not read it") {
    const detail = { code, why };
    figureById(figureId).dispatchEvent(new CustomEvent("figure-code", { detail }));
  }

  function wireViews() {
    for (const fig of figures) {
      const figureId = fig.dataset.figure;
      const ask = (type) => () => askView(figureId, type);
      fig.querySelector("[data-view=link]").addEventListener("click", ask("view-get"));
      fig.querySelector("[data-view=reset]").addEventListener("click", ask("view-reset"));
      fig.addEventListener("figure-code-wanted", () => {
        if (state.phase === "live") askView(figureId, "view-code");
        else answerCode(figureId, null, "the figure is not live");
      });
    }
    const moved = () => {
      state.target.readerMoved = true;
    };
    for (const type of ["wheel", "touchmove", "keydown", "pointerdown"]) {
      addEventListener(type, moved, { once: true, passive: true, capture: true });
    }
  }

  async function main() {
    roundCategoricalSliders();
    showBusy();
    wireViews();
    // Python is already starting (boot.js) on the other core while this thread draws the
    // pre-render, which is then on screen long before Python can take it over.
    const canRun = typeof Worker !== "undefined" && typeof WebAssembly !== "undefined";
    const onVisible = () => {
      performance.mark("prerender-visible");
      state.prerender.visible = true;
      state.worker?.postMessage({ type: "prerender-visible" });
    };
    // Chained to the drawing itself, so that a worker that is ready early still goes live
    // after this move, whoever awaits the drawing first.
    drawOnFocus();
    drawAllForPrint();
    state.prerender.drawing = drawNear(onVisible).then(() => {
      performance.mark("prerender-complete");
      if (canRun && state.phase === "prerendering") enter("starting");
    });
    const boot = window.figuresBoot;
    if (canRun && boot?.worker) takeOverBootWorker(boot);
    else if (canRun) (boot?.savingData ? startWhenAsked() : startWorker());
    await state.prerender.drawing;
    if (!canRun) fail("this browser cannot run Python (no Web Workers or WebAssembly)");
  }

  const scripts = [...document.scripts].map((script) => script.src).filter(Boolean);
  main().catch((err) => failOrOutdated(scripts, String(err)));
})();
