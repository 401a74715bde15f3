// Links to a figure's view, Reset, and the state a figure's try-it cell asks for.
//
// The URL's query holds each linked figure's controls that differ from its defaults, as
// "<figure id>.<control key>=<value>" (figurekit/controls.py names the keys and checks the
// values), and its hash names the figure's element. The pre-render shows the defaults; on
// going live the worker is asked to show each linked view, and answers with the view or a
// one-line note (then the defaults), which the figure's status line shows. Each figure's
// "Link to this view" and "Reset" buttons work while it is live.

import { scrollToTarget } from "./drawing.js";
import { figureById, figures, setStatus, state } from "./state.js";

// The URL's views: figure id -> {control key: value}. Parameters that name no figure on
// this page are someone else's and are left alone.
export function linkedViews() {
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
export function askView(figureId, type, extra = {}) {
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
export function onView({ figure: figureId, params, note, code }) {
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

// A figure's try-it cell (cells.js) asks for the state the figure shows with a
// "figure-code-wanted" event on the figure, and is answered with a "figure-code" event whose
// detail.code is the state as Python, or null with detail.why.
function answerCode(figureId, code, why = "Python could not read it") {
  const detail = { code, why };
  figureById(figureId).dispatchEvent(new CustomEvent("figure-code", { detail }));
}

// Each figure's "Link to this view" and "Reset" buttons, and its try-it cell's question.
export function wireViews() {
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
}
