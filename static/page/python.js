// The page's side of the Python worker: starting it (or taking over the one boot.js started),
// its messages (the table is at the top of static/worker.js), the reader's changes sent to it
// one batch at a time, going live, and giving up on it when it fails, stalls, or the site has
// been deployed again since the page loaded.

import {
  drawNear,
  relabelSoon,
  removeViews,
  scrollToTarget,
} from "./drawing.js";
import { enter } from "./phases.js";
import {
  LIVE,
  MEASURE_STALL_MS,
  MEASURING,
  STALL_MS,
  config,
  figureById,
  html,
  notSending,
  setBanner,
  setStatus,
  state,
  wiring,
  wiringTables,
} from "./state.js";
import { applyUpdates, withoutEcho } from "./updates.js";
import { askView, linkedViews, onView } from "./views.js";

// ----------------------------------------------------------------------------- sending

// One batch of the reader's changes for the worker, in order. A batch that measures keeps
// its figures busy, saying so on their status lines, until the worker is done with it.
export function sendChanges(changes) {
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

// Ask the worker for the drawing of figures the page has drawn ("shown" as it goes live,
// "drawn" as the reader nears one later): a worker silent this long has died or hung.
function askDrawing(message) {
  const sending = state.sending;
  sending.drawings += 1;
  clearTimeout(sending.drawingTimer);
  sending.drawingTimer = setTimeout(() => fail("the Python worker stopped responding"), STALL_MS);
  state.worker.postMessage(message);
}

// A figure drawn while Python is live: the worker draws it as it stands.
export const askDrawingOf = (figureId) => askDrawing({ type: "drawn", figure: figureId });

// The worker's drawing of figures the page has drawn is on them: each is live (data-drawn,
// which the tests wait on).
function onDrawing(updates) {
  const sending = state.sending;
  if (--sending.drawings === 0) clearTimeout(sending.drawingTimer);
  for (const id of Object.keys(updates)) {
    if (state.prerender.docs.has(id)) figureById(id).dataset.drawn = "live";
  }
}

// ----------------------------------------------------------------------------- the worker

// The worker has drawn the figures: the pre-render on screen is the live figures now, and
// what the reader changed meanwhile goes to Python first.
async function goLive() {
  await state.prerender.drawing; // the figures on the screen are on the page
  enter("live");
  scrollToTarget();
  askDrawing({ type: "shown", wiring: wiringTables(), drawn: [...state.prerender.docs.keys()] });
  for (const [figureId, params] of linkedViews()) askView(figureId, "view-apply", { params });
  if (state.earlyChanges.size) sendChanges([...state.earlyChanges.values()]);
  state.earlyChanges = new Map();
  performance.mark("figures-live");
  await drawNear(); // the start is over: the figures near the screen are drawn too
}

async function onWorkerMessage({ data: message }) {
  switch (message.type) {
    case "progress":
      performance.mark(`loading-step-${message.step}`);
      setBanner(`Loading the live figures, step ${message.step} of ${message.of}: ${message.text}…`);
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

export function startWorker({ snapshot = true } = {}) {
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
export function takeOverBootWorker({ worker, events }) {
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

// Forget the worker and everything in flight with it.
function stopWorker() {
  state.worker?.terminate();
  state.worker = null;
  state.asked = new Map();
  clearTimeout(state.sending.stallTimer);
  clearTimeout(state.sending.drawingTimer);
  state.sending = notSending();
}

function retry() {
  enter("starting");
  startWorker();
}

// ----------------------------------------------------------------------------- giving up

export function fail(reason) {
  if (state.phase === "failed" || state.phase === "outdated") return; // the first reason stands
  const wasLive = state.phase === "live";
  stopWorker();
  enter("failed", { reason, retry });
  // Controls that no longer reach Python must not pretend to work: back to the pre-render.
  if (wasLive) removeViews();
  drawNearNow();
}

// The start is over, failed or outdated: the figures near the screen are drawn too (and again,
// after live failed). A live page's goLive awaits the same itself.
function drawNearNow() {
  state.prerender.drawing = drawNear().catch(console.error);
}

// The page is older than the site on the server (`url` answered 404): stop and offer a reload.
function outdated(url) {
  if (state.phase === "outdated") return;
  console.warn(`figures: ${url} is gone from the server; this page is older than the site`);
  stopWorker();
  enter("outdated");
  drawNearNow();
}

// Whether `url` is gone from the server, asked past the browser's cache.
const isGone = (url) =>
  fetch(url, { method: "HEAD", cache: "no-store" }).then((r) => r.status === 404, () => false);

// Something failed before the worker could say why (a script that did not load, say): if a
// file of this page is gone from the server, that is the reason to show.
export async function failOrOutdated(urls, reason) {
  const gone = await Promise.all(urls.map(isGone));
  const url = urls.find((_, i) => gone[i]);
  if (url) outdated(url);
  else fail(reason);
}
