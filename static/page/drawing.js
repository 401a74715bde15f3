// Drawing the figures as the reader nears them. A figure is drawn (its Bokeh views built, its
// canvases painted) from its build-time pre-render once it comes within a screen's height of
// the screen (while the page starts, once it is on the screen: drawNear). Once the figures
// drawn hold more canvas than CANVAS_BUDGET, those the reader has left far behind are
// released: their views removed, their canvases freed, their slots placeholders again (the
// worker keeps each figure's state, so a figure drawn again while Python is live is drawn as
// it stands). A canvas costs its pixels, so the pixel ratio squared: on a desktop screen a
// page's figures fit the budget all together; on a phone's screen three or four do, and the
// page holds those near the reader. A slot not drawn is empty but as tall as the figure drawn
// (sitebuild/placeholders.py; after a release, as the figure was), and its caption, status
// line and buttons are in place. The figure the URL's hash names is drawn first, a slot
// reached by Tab at once, and every figure for print.
//
// This module knows nothing of the worker: main.js connects a drawn figure to the rest of the
// page (connect), and the figures' phase decides whether its controls are enabled.

import * as A11y from "./a11y.js";
import { syncControls } from "./phases.js";
import { elementsIn } from "./shadow-dom.js";
import { figureById, figures, nextFrame, oncePerFrame, prerender, state } from "./state.js";

// The margins around the screen, for the IntersectionObservers: a figure is drawn when it
// comes within the first and released when it leaves the second, so that a reader going back
// and forth a little does not have a figure drawn again each time.
const NEAR = "100% 0px";
const FAR = "200% 0px";
// The canvas bytes the drawn figures may hold before the far ones are released.
const CANVAS_BUDGET = 32 * 2 ** 20;
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

// What a drawn figure is connected to, set once by main.js: `change(figureId, event)` for each
// change in its Bokeh document, `drawnLive(figureId)` when it is drawn while Python is live,
// and `failed(reason)` when a drawing the reader's scrolling, Tab or print asked for failed.
const connected = { change: null, drawnLive: null, failed: null };

export function connect({ change, drawnLive, failed }) {
  Object.assign(connected, { change, drawnLive, failed });
}

const drawOrFail = (ids) => draw(ids).catch((err) => connected.failed(String(err)));

// A task of its own for what follows: the page may paint and answer the reader in between.
const nextTask = () => new Promise((resolve) => setTimeout(resolve));

// Render a serialized document into fresh holders inside the figure slots, in three tasks
// (BokehJS's embed_items takes one), so that none holds the page for as long as all three: the
// document made from its JSON; its views built; the views drawn (rendered, laid out, painted).
// The last two are what BokehJS's add_document_standalone does, for documents whose roots
// never change.
async function embed(data) {
  const [json] = Object.values(data.docs_json);
  const doc = Bokeh.require("document").Document.from_json(json);
  await nextTask();
  const views = new (Bokeh.require("core/view_manager").ViewManager)([], Bokeh.index);
  doc.views_manager = views;
  const built = [];
  for (const root of doc.roots()) built.push([root, await views.build_view(root)]);
  await nextTask();
  const holders = new Map();
  for (const [figureId, rootId] of Object.entries(data.roots)) {
    const slot = document.getElementById(`fig-${figureId}`);
    const holder = document.createElement("div");
    holder.id = `fig-${figureId}-${rootId}`;
    slot.replaceChildren(holder);
    holders.set(rootId, holder);
  }
  for (const [root, view] of built) view.build(holders.get(root.id));
  // What Bokeh leaves out for assistive technology: names, states, plots (a11y.js).
  for (const figureId of Object.keys(data.roots)) {
    A11y.label(document.getElementById(`fig-${figureId}`));
  }
  return [views];
}

// The Bokeh document that embed() drew.
const documentOf = (views) => [...views[0].roots][0].model.document;

// An update from the worker may re-create widgets or retitle plots: label them again.
export const relabelSoon = oncePerFrame(() => {
  for (const fig of figures) A11y.label(fig.querySelector(".fig-slot"));
});

// Take figure `id`'s views off the page, and let its document go, leaving its placeholder
// (its Data disclosure goes too: it is drawn again with the figure).
// BokehJS keeps every document in a list for good, and a document changed lately holds itself
// in a timer for 30 s (to prune its models; a private method cancels it, where BokehJS has it).
function undraw(id) {
  const fig = figureById(id);
  const doc = state.prerender.docs.get(id);
  const canvases = [...elementsIn(fig)].filter((el) => el instanceof HTMLCanvasElement);
  for (const manager of state.views.get(id) ?? []) for (const view of manager.roots) view.remove();
  // A canvas's pixels are freed when it is collected, which may be long after; emptied, now.
  for (const canvas of canvases) canvas.width = canvas.height = 0;
  const documents = Bokeh.documents;
  if (doc && documents.includes(doc)) documents.splice(documents.indexOf(doc), 1);
  doc?._cancel_recompute_all_models?.();
  for (const model of doc?.all_models ?? []) state.disabledByPage.delete(model); // gone
  state.views.delete(id);
  state.prerender.docs.delete(id);
  state.prerender.wanted.delete(id);
  delete fig.dataset.drawn;
  fig.querySelector(":scope > details.fig-data")?.remove();
  const slot = fig.querySelector(".fig-slot");
  for (const [name, value] of placeholders.get(slot)) slot.setAttribute(name, value);
}

// Take every figure's views off the page, leaving its placeholder.
export function removeViews() {
  for (const fig of figures) undraw(fig.dataset.figure);
  state.clicks = new Map(); // a pre-render drawn again counts from none
}

// A figure is kept drawn while the reader is in it (focus in it, its data table open), while
// the page prints, and while it holds changes made before Python was live, which its
// pre-render drawn again would not show.
function mustKeep(fig) {
  const id = fig.dataset.figure;
  return (
    fig.contains(document.activeElement) ||
    fig.querySelector(":scope > details.fig-data[open]") !== null ||
    state.printing ||
    [...state.earlyChanges.values()].some((change) => change.figure === id)
  );
}

// The bytes of the canvases in `root`.
function canvasBytes(root) {
  let bytes = 0;
  for (const el of elementsIn(root)) {
    if (el instanceof HTMLCanvasElement) bytes += el.width * el.height * 4;
  }
  return bytes;
}

// While the figures drawn hold more canvas than the budget, release the far ones, farthest
// first.
function releaseFar() {
  const p = state.prerender;
  const bytes = (id) => p.canvasBytes.get(id) ?? 0;
  let held = [...state.views.keys()].reduce((sum, id) => sum + bytes(id), 0);
  const far = [...p.far].filter((id) => state.views.has(id) && !mustKeep(figureById(id)));
  far.sort((a, b) => distance(place(b)) - distance(place(a)));
  for (const id of far) {
    if (held <= CANVAS_BUDGET) return;
    held -= bytes(id);
    release(id);
  }
}

// Release figure `id`, drawn and now far from the screen: its placeholder is as tall as the
// figure was, so nothing moves for the reader, above the screen or below.
function release(id) {
  const fig = figureById(id);
  const height = fig.getBoundingClientRect().height;
  undraw(id);
  const slot = fig.querySelector(".fig-slot");
  const placeholder = slot.getBoundingClientRect().height;
  slot.style.height = `${placeholder + height - fig.getBoundingClientRect().height}px`;
}

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
  slot.style.height = ""; // a released figure's placeholder height
  const doc = documentOf(views);
  state.views.set(id, views);
  p.docs.set(id, doc);
  doc.on_change((event) => connected.change(id, event), false);
  syncControls(); // a figure drawn after Python failed is down with the rest
  figureById(id).dataset.drawn = "";
  if (state.phase === "live") connected.drawnLive(id);
  scrollToTarget(); // the figures above the target have their size now
  await nextFrame();
  p.canvasBytes.set(id, canvasBytes(slot)); // sized once painted
  releaseFar();
}

// Where Tab goes first inside `root`: its first enabled control, in document order.
function firstTabStop(root) {
  for (const el of elementsIn(root)) {
    if (el.matches(TAB_STOPS) && !el.disabled && el.tabIndex >= 0) return el;
  }
  return null;
}

// Draw the figures near the screen (the target's first); `onVisible` runs once those on the
// screen are drawn. Then each figure is drawn as it comes near (and every one for print), and
// released as it goes far.
// While the page starts (`starting`), "near" is "on the screen": a figure below the screen
// waits until the start is over (drawNear called again), or until the reader brings it onto
// the screen, so that while Python starts the main thread answers the reader and the worker
// rather than drawing what nobody is looking at yet.
export function drawNear(onVisible = () => {}, { starting = false } = {}) {
  const ids = figures.map((fig) => fig.dataset.figure);
  const within = starting ? onScreen : isNear;
  const near = ids.filter((id) => within(place(id)) || id === targetFigure());
  let waiting = near.filter((id) => onScreen(place(id))).length;
  if (waiting === 0) onVisible(); // no figure on the screen: none to wait for
  state.nearing?.disconnect();
  state.nearing = new IntersectionObserver(
    (entries) => drawOrFail(entries.filter((e) => e.isIntersecting).map((e) => e.target.dataset.figure)),
    { rootMargin: starting ? "0px" : NEAR },
  );
  state.leaving?.disconnect();
  state.leaving = new IntersectionObserver(
    (entries) => {
      for (const e of entries) {
        if (e.isIntersecting) state.prerender.far.delete(e.target.dataset.figure);
        else state.prerender.far.add(e.target.dataset.figure);
      }
      releaseFar();
    },
    { rootMargin: FAR },
  );
  for (const fig of figures) {
    state.nearing.observe(fig);
    state.leaving.observe(fig);
  }
  return draw(near, () => {
    if (--waiting === 0) onVisible();
  });
}

// A slot not drawn yet is a Tab stop: reached by the keyboard, its figure is drawn at once.
export function drawOnFocus() {
  for (const fig of figures) {
    fig.querySelector(".fig-slot").addEventListener("focus", () => drawOrFail([fig.dataset.figure]));
  }
}

// Print shows every figure: those the reader has not come near are drawn for it, and none is
// released until the print is over.
export function drawAllForPrint() {
  const all = () => {
    state.printing = true;
    drawOrFail(figures.map((fig) => fig.dataset.figure));
  };
  const over = () => {
    state.printing = false;
  };
  addEventListener("beforeprint", all);
  addEventListener("afterprint", over);
  matchMedia("print").addEventListener("change", (media) => (media.matches ? all() : over()));
}

// Scroll the figure the URL's hash names into view, unless the reader has moved themselves.
export function scrollToTarget() {
  const el = state.target.id && document.getElementById(state.target.id);
  if (el && !state.target.readerMoved) el.scrollIntoView({ block: "start" });
}

// The reader's own wheel, touch, key or pointer ends the page's scrolling to the target.
export function followTargetUntilReaderMoves() {
  const moved = () => {
    state.target.readerMoved = true;
  };
  for (const type of ["wheel", "touchmove", "keydown", "pointerdown"]) {
    addEventListener(type, moved, { once: true, passive: true, capture: true });
  }
}

// A released figure's placeholder keeps the height the figure had at the screen's width then;
// at another width the stylesheet's placeholder height is the better guess.
export function forgetHeightsOnResize() {
  let width = innerWidth;
  addEventListener("resize", () => {
    if (innerWidth === width) return;
    width = innerWidth;
    for (const slot of placeholders.keys()) slot.style.height = "";
  });
}
