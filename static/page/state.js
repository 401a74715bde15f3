// The page's one state, and what the page was given. `state` says where the figures are (their
// phase, which only phases.js's enter() moves), what is drawn, and what is on its way to the
// worker; every module reads and changes it here. The rest is fixed once the page has loaded:
// the page's config, its figures, their pre-render and wiring, and the lines the page shows.

export const html = document.documentElement;
export const config = JSON.parse(document.getElementById("page-config").textContent);
export const banner = document.getElementById("live-status");
export const figures = [...document.querySelectorAll("figure[data-figure]")];

// Figure id -> its pre-render: the Bokeh document to draw and its wiring.
export const prerender = JSON.parse(document.getElementById("prerender").textContent);
// Figure id -> which of its models is which (layoutkit/wiring.py's table), and each control
// and action button by model id.
export const wiring = Object.fromEntries(
  Object.entries(prerender).map(([figureId, { wiring: w }]) => {
    const byId = new Map();
    for (const [key, c] of Object.entries(w.controls)) byId.set(c.id, { key, prop: c.prop });
    for (const [action, id] of Object.entries(w.actions)) byId.set(id, { action });
    return [figureId, { ...w, byId }];
  }),
);
// The wiring as the worker takes it: the tables alone.
export const wiringTables = () =>
  Object.fromEntries(Object.entries(wiring).map(([id, { byId, ...table }]) => [id, table]));

// A figure update is quick: a worker silent this long has died or hung.
export const STALL_MS = 15_000;
// A measurement times work on the reader's own machine, as long as that machine takes; the
// worker is only given up on after this long.
export const MEASURE_STALL_MS = 180_000;
export const LIVE = "Live: this figure is computed by numpy in your browser.";
export const MEASURING = "Measuring in your browser: the figure updates when it is done.";
export const HELD =
  "Waiting for Python: your change is kept, and the figure recomputes it once it is live.";

// The id the URL's hash names ("" for none, or for a hash that is not valid percent-encoding).
function hashTarget() {
  try {
    return decodeURIComponent(location.hash.slice(1));
  } catch {
    return "";
  }
}

export const notSending = () => ({
  awaitingReply: false, // a batch of changes is with the worker, not yet answered
  queued: [], // changes made meanwhile: only the latest per control, and every press
  stallTimer: null, // fails the figures if the worker never answers
  drawings: 0, // "shown" and "drawn" messages the worker has not answered with a drawing yet
  drawingTimer: null, // fails the figures if the worker never sends those drawings
  whenIdle: [], // messages for the worker that wait until it has the reader's changes
  measuring: [], // the figures whose measurement (a Measure button) is in the batch sent
});

export const state = {
  phase: "prerendering",
  // The figure the URL's hash names: scrolled to again as the figures above it are drawn and
  // take their size, until the reader scrolls or presses a key themselves.
  target: { id: hashTarget(), readerMoved: false },
  asked: new Map(), // figure id -> the view-* messages it awaits answers to, oldest first
  worker: null, // the Python worker, while one runs
  prerender: {
    // The promise of the figures on the screen being drawn, as the page loads (and of those
    // near it, once the start failed); the rest are drawn as the reader nears them (drawing.js).
    drawing: null,
    visible: false, // the figures on the reader's screen are drawn: a worker need not wait
    docs: new Map(), // figure id -> the Bokeh document its pre-render was drawn from
    wanted: new Set(), // the figures drawn, or on their way (queued)
    queue: Promise.resolve(), // the drawing, one figure after the other
    canvasBytes: new Map(), // figure id -> the bytes of its canvases, as last drawn
    far: new Set(), // the figures beyond the far margin (drawing.js), drawn or not
  },
  views: new Map(), // figure id -> Bokeh's view managers of its document on the page
  nearing: null, // the IntersectionObserver that draws a figure as the reader nears it
  leaving: null, // the IntersectionObserver that finds the figures the reader left far behind
  // Controls moved on the pre-render before Python is live: "figure|key" -> the change.
  earlyChanges: new Map(),
  clicks: new Map(), // "figure|key" -> the clicks of a button whose count is the figure's state
  sending: notSending(), // the reader's changes on their way to the worker
  applyingWorkerValues: 0, // > 0 while applying values the worker has, which must not echo back
  disabledByPage: new Set(), // control models the page disabled while Python is down
  waitingForReader: false, // saving data: Python starts when the reader asks (saving.js)
  printing: false, // the page is being printed: every figure drawn, none released
};

export const figureById = (figureId) => figures.find((fig) => fig.dataset.figure === figureId);

export const setBanner = (text) => {
  banner.hidden = !text;
  banner.textContent = text;
};

// The status line of one figure, keeping its phase (data-status).
export const setStatus = (figureId, text) => {
  figureById(figureId).querySelector(".fig-status").textContent = text;
};

// Every figure's status line: its phase (data-status) and its text.
export const setStatusLines = (status, text) => {
  for (const fig of figures) {
    const el = fig.querySelector(".fig-status");
    el.dataset.status = status;
    el.textContent = text;
  }
};

export const nextFrame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));

// `run` at the next frame, however often it is asked for before then.
export function oncePerFrame(run) {
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
