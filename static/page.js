// The page's side of the live figures. It shows the build-time pre-render at once, starts one
// Web Worker that runs Pyodide and every figure on the page, takes the pre-render over as the
// live figures when the worker has built them (adopt.js; or draws the worker's document if
// the two differ), and then relays control changes and figure updates both ways. The messages
// between the two are listed at the top of worker.js.
(() => {
  "use strict";
  const html = document.documentElement;
  const config = JSON.parse(document.getElementById("page-config").textContent);
  const banner = document.getElementById("live-status");
  const figures = [...document.querySelectorAll("figure[data-figure]")];

  let worker = null;
  let docs = []; // the live Bokeh documents: the pre-render's, one per figure, or the worker's one
  let views = [];
  let drawnDocs = new Map(); // figure id -> the document its pre-render was drawn from
  let prerendered = null; // the promise of the pre-render being drawn
  let busy = false; // a patch is being applied in the worker
  let queue = []; // control changes made meanwhile: only the latest per (model, attribute)
  let patching = 0; // > 0 while applying the worker's own changes, which must not echo back
  let live = false; // the live document is on screen
  let drawn = false; // the pre-render is on screen
  // Controls moved on the pre-render before Python is live: "figure|index|attr" -> the change,
  // where index is the model's place among its figure root's references (the same in both
  // documents, which the same Python code built).
  let early = new Map();
  const REPLAYED = ["value", "active"];
  let stalled = null; // timer: a patch the worker has not answered
  // A figure update takes milliseconds; a worker silent this long has died or hung.
  const STALL_MS = 15_000;
  const prerenderData = () => JSON.parse(document.getElementById("prerender").textContent);
  // The Bokeh document that embed() drew.
  const documentOf = (rendered) => [...rendered[0].roots][0].model.document;

  const setBanner = (text) => {
    banner.hidden = !text;
    banner.textContent = text;
  };

  const setFigureStatus = (state, text) => {
    html.dataset.figures = state;
    for (const fig of figures) {
      const el = fig.querySelector(".fig-status");
      el.dataset.status = state;
      el.textContent = text;
    }
  };

  // The visible name of a Bokeh widget whose shadow root is `root`: its slider title without
  // the value, or its <label>.
  function widgetName(root) {
    const title = root.querySelector(".bk-slider-title");
    const own = title
      ? [...title.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent)
      : [root.querySelector("label")?.textContent];
    return own.join("").replace(/:\s*$/, "").trim();
  }

  // Bokeh draws slider handles and spin buttons without accessible names: name them after the
  // widget's visible label (or the figure's title), walking every open shadow root in the slot.
  function labelControls(slot) {
    const figureTitle = slot.closest("figure")?.querySelector(".fig-title")?.textContent ?? "";
    const visit = (root) => {
      for (const el of root.querySelectorAll("*")) if (el.shadowRoot) visit(el.shadowRoot);
      if (!root.host) return;
      const handles = root.querySelectorAll("[role=slider]:not([aria-label])");
      const spins = root.querySelectorAll(".bk-spin-btn:not([aria-label])");
      if (!handles.length && !spins.length) return;
      const name = widgetName(root) || figureTitle;
      for (const handle of handles) handle.setAttribute("aria-label", name);
      for (const spin of spins) {
        const up = spin.classList.contains("bk-spin-btn-up");
        spin.setAttribute("aria-label", `${up ? "Increase" : "Decrease"} ${name}`);
      }
    };
    visit(slot);
  }

  // A patch from the worker may re-create widgets: label them again once per frame.
  let relabelQueued = false;
  function relabelSoon() {
    if (relabelQueued) return;
    relabelQueued = true;
    requestAnimationFrame(() => {
      relabelQueued = false;
      for (const fig of figures) labelControls(fig.querySelector(".fig-slot"));
    });
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
    const rendered = await Bokeh.embed.embed_items(data.docs_json, [item]);
    for (const figureId of Object.keys(data.roots)) {
      labelControls(document.getElementById(`fig-${figureId}`));
    }
    return rendered;
  }

  function removeViews() {
    for (const manager of views) for (const view of manager.roots) view.remove();
    views = [];
    drawnDocs = new Map();
  }

  // One patch for the worker, which holds every figure in one document, from events that may
  // come from several of the page's documents.
  function send(events) {
    busy = true;
    clearTimeout(stalled);
    stalled = setTimeout(() => fail("the Python worker stopped responding"), STALL_MS);
    const patch = { events: [] };
    for (const doc of new Set(events.map((e) => e.document))) {
      patch.events.push(...doc.create_json_patch(events.filter((e) => e.document === doc)).events);
    }
    worker.postMessage({ type: "change", patch });
  }

  // Apply a patch from the worker to the page's documents that hold the models it names.
  function receive(patch, buffers) {
    const parts = new Map(docs.map((doc) => [doc, []]));
    for (const event of patch.events) {
      const id = event.model?.id;
      const holders = id ? docs.filter((doc) => doc.get_model_by_id(id)) : docs;
      if (!holders.length) throw new Error(`the worker changed a model the page does not have (${id})`);
      for (const doc of holders) parts.get(doc).push(event);
    }
    for (const [doc, events] of parts) if (events.length) doc.apply_json_patch({ events }, buffers);
  }

  function onDocumentChange(event) {
    if (patching > 0 || event.setter_id === "py" || !worker || !docs.length) return;
    if (!busy) return send([event]);
    if (event.model && event.attr) {
      queue = queue.filter((e) => !(e.model === event.model && e.attr === event.attr));
    }
    queue.push(event);
  }

  const figureModels = (doc, roots, figureId) => [
    ...doc.get_model_by_id(roots[figureId]).references(),
  ];

  // Remember what the reader does to a pre-rendered figure's controls while Python loads.
  function recordEarlyChanges(figureId, doc, roots) {
    doc.on_change((event) => {
      if (live || patching > 0 || !event.model || !REPLAYED.includes(event.attr)) return;
      const index = figureModels(doc, roots, figureId).indexOf(event.model);
      if (index < 0) return;
      const key = `${figureId}|${index}|${event.attr}`;
      early.set(key, { type: event.model.type, value: event.model[event.attr], event });
    }, false);
  }

  const nextFrame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));

  // Draw the pre-render, one small document per figure: the figures on the reader's screen
  // first (or the nearest one), then the rest by distance, letting the browser paint between
  // figures. `onVisible` runs once the figures on screen are drawn.
  async function drawPrerender(onVisible = () => {}) {
    const data = prerenderData();
    const place = (id) => document.getElementById(`fig-${id}`).getBoundingClientRect();
    const onScreen = (r) => r.top < innerHeight && r.bottom > 0;
    const distance = (r) => (onScreen(r) ? 0 : Math.min(Math.abs(r.top - innerHeight), Math.abs(r.bottom)));
    const ids = Object.keys(data).sort((a, b) => distance(place(a)) - distance(place(b)));
    let waiting = Math.max(1, ids.filter((id) => onScreen(place(id))).length);
    for (const id of ids) {
      const rendered = await embed(data[id]);
      views.push(...rendered);
      drawnDocs.set(id, documentOf(rendered));
      recordEarlyChanges(id, drawnDocs.get(id), data[id].roots);
      if (--waiting === 0) onVisible();
      await nextFrame();
    }
  }

  // ...and apply it to the live figures, which sends it to Python like any other change.
  function replayEarlyChanges(roots) {
    for (const [key, { type, value }] of early) {
      const [figureId, index, attr] = key.split("|");
      const model = figureModels(docs[0], roots, figureId)[Number(index)];
      if (model && model.type === type) model[attr] = value;
    }
  }

  // Make the pre-render's documents the live ones (see adopt.js): give their models the
  // worker's ids and values. Returns why not if the worker's document is not the pre-render's.
  function adoptPrerender(data) {
    const pre = prerenderData();
    const live = figuresAdopt.definitions(Object.values(data.docs_json)[0]);
    const plans = new Map();
    for (const [figureId, liveRoot] of Object.entries(data.roots)) {
      const doc = drawnDocs.get(figureId);
      if (!doc || !pre[figureId]) return `${figureId} has no pre-render`;
      if (typeof doc._recompute_all_models !== "function") return "BokehJS cannot re-key a document";
      const json = Object.values(pre[figureId].docs_json)[0];
      const plan = figuresAdopt.match(json, pre[figureId].roots[figureId], live, liveRoot);
      if (!plan) return `${figureId} was built differently`;
      if ([...plan.ids.keys()].some((id) => !doc.get_model_by_id(id))) return `${figureId} changed`;
      plans.set(doc, plan);
    }
    if (plans.size !== drawnDocs.size) return "the page has other figures";
    for (const [doc, { ids }] of plans) {
      for (const [pre, live] of ids) doc.get_model_by_id(pre).id = live;
      doc._recompute_all_models(); // its map of models by id
    }
    // What the reader changed meanwhile stays as they left it (and goes to Python next).
    const moved = new Set([...early.values()].map(({ event }) => `${event.model.id}|${event.attr}`));
    patching += 1; // the worker has these values already
    try {
      for (const [doc, { changes }] of plans) {
        const events = changes
          .filter(({ id, attr }) => !moved.has(`${id}|${attr}`))
          .map(({ id, attr, value }) => ({ kind: "ModelChanged", model: { id }, attr, new: value }));
        if (events.length) doc.apply_json_patch({ events });
      }
    } finally {
      patching -= 1;
    }
    docs = [...plans.keys()];
    return "";
  }

  async function goLive(data) {
    await prerendered; // never let a late pre-render cover the live figures
    const why = adoptPrerender(data);
    if (why) {
      console.info(`figures: drawing the live document anew (${why})`);
      removeViews();
      views = await embed(data);
      docs = [documentOf(views)];
    }
    html.dataset.liveDocument = why ? "drawn" : "adopted";
    for (const doc of docs) doc.on_change(onDocumentChange, false);
    live = true;
    worker.postMessage({ type: "shown" });
    if (why) replayEarlyChanges(data.roots);
    else if (early.size) send([...early.values()].map(({ event }) => event));
    early = new Map();
    setBanner("");
    setFigureStatus("live", "Live: this figure is computed by numpy in your browser.");
    performance.mark("figures-live");
  }

  // Forget the worker and everything in flight with it.
  function stop() {
    if (worker) worker.terminate();
    worker = null;
    docs = [];
    busy = false;
    queue = [];
    clearTimeout(stalled);
  }

  function fail(reason) {
    if (html.dataset.figures === "failed" && !worker) return; // already said why
    stop();
    setBanner("");
    setFigureStatus(
      "failed",
      `Not live: ${reason}. The figure shows its pre-rendered default numbers, which are correct.`,
    );
    for (const fig of figures) fig.querySelector(".fig-status").append(" ", retryButton());
    // Controls that no longer reach Python must not pretend to work: back to the pre-render.
    if (live) {
      live = false;
      removeViews();
      prerendered = drawPrerender().catch(console.error);
    }
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
    stop();
    setFigureStatus("static", "Retrying: the controls come alive when Python has loaded.");
    start();
  }

  async function onMessage({ data: msg }) {
    if (msg.type === "progress") {
      performance.mark(`loading-step-${msg.step}`);
      setBanner(`Loading the live figures, step ${msg.step} of ${msg.of}: ${msg.text}…`);
    } else if (msg.type === "ready") {
      performance.mark("figures-built");
      html.dataset.start = msg.start;
      await goLive(msg.doc);
    } else if (msg.type === "snapshot-unusable") {
      // The build-time snapshot could not be used in this browser: start Python the long way.
      console.warn(`figures: starting without the snapshot (${msg.reason})`);
      stop();
      start({ snapshot: false });
    } else if (msg.type === "update") {
      patching += 1;
      try {
        receive(msg.patch, msg.buffers);
      } finally {
        patching -= 1;
      }
      relabelSoon();
    } else if (msg.type === "change-done") {
      clearTimeout(stalled);
      if (queue.length) {
        const events = queue;
        queue = [];
        send(events);
      } else {
        busy = false;
      }
    } else if (msg.type === "failed") {
      fail(msg.reason);
    }
  }

  function listen(w) {
    w.onmessage = (event) => onMessage(event).catch((err) => fail(String(err)));
    w.onerror = (event) => {
      event.preventDefault();
      fail(`the Python worker could not run (${event.message || "script failed to load"})`);
    };
  }

  function start({ snapshot = true } = {}) {
    worker = new Worker(`${config.base}static/worker.js`);
    listen(worker);
    const message = { type: "start", ...config, snapshot: snapshot && config.snapshot };
    worker.postMessage({ ...message, prerenderVisible: drawn }); // drawn: the worker need not wait
  }

  // Take over the worker boot.js started, handling what it has said so far in order.
  function adopt(boot) {
    worker = boot.worker;
    listen(worker);
    for (const event of boot.events) {
      if (event.type === "error") worker.onerror(event);
      else worker.onmessage(event);
    }
  }

  async function main() {
    // Python is already starting (boot.js) on the other core while this thread draws the
    // pre-render, which is then on screen long before Python can take it over.
    const canRun = typeof Worker !== "undefined" && typeof WebAssembly !== "undefined";
    prerendered = drawPrerender(() => {
      performance.mark("prerender-visible");
      drawn = true;
      worker?.postMessage({ type: "prerender-visible" });
    });
    if (canRun) (window.figuresBoot ? adopt(window.figuresBoot) : start());
    await prerendered;
    performance.mark("prerender-complete");
    if (!canRun) return fail("this browser cannot run Python (no Web Workers or WebAssembly)");
    if (html.dataset.figures !== "failed") html.dataset.figures = "static";
  }

  main().catch((err) => fail(String(err)));
})();
