// The figures' phases. The figures are in one phase at a time, and only enter() moves them:
//
//   prerendering --> starting --> live
//        |             |  ^         |
//        |             v  | Retry   |
//        +---------> failed <-------+
//
//   prerendering, starting --> outdated
//
//   prerendering  the pre-render of the figures on the screen is being drawn; Python
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

import { LIVE, figures, html, setBanner, setStatusLines, state } from "./state.js";

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
export const SHOWN_AS = { starting: "static", live: "live", failed: "failed", outdated: "outdated" };
// The phases in which Python is on its way: each figure is aria-busy, and its controls hold
// the reader's changes for it.
export const WAITING = ["prerendering", "starting"];
// The phases in which no Python answers the controls, so they are disabled (see syncControls).
export const DOWN = ["failed", "outdated"];

// Move the figures to `phase` and show it: <html data-figures>, every figure's status line
// and the loading banner. `reason` says why, for "failed", whose Retry button calls `retry`.
export function enter(phase, { reason = "", retry = null } = {}) {
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
    for (const fig of figures) fig.querySelector(".fig-status").append(" ", button("Retry", retry));
  } else if (phase === "outdated") {
    setBanner("");
    setStatusLines(
      SHOWN_AS[phase],
      "Not live: the site has been updated since this page was loaded, and a file it needs " +
        "is gone. Reload the page to get the new version. The figure shows its pre-rendered " +
        "numbers.",
    );
    const reload = () => location.reload();
    for (const fig of figures) fig.querySelector(".fig-status").append(" ", button("Reload", reload));
  }
}

// A status line's button.
function button(text, onClick) {
  const el = document.createElement("button");
  el.type = "button";
  el.className = "fig-retry";
  el.textContent = text;
  el.addEventListener("click", onClick);
  return el;
}

// Each figure (with its status line) is busy while Python is on its way, and only then: not
// while the page waits for a reader who saves data to ask for it.
export function showBusy() {
  const busy = WAITING.includes(state.phase) && !state.waitingForReader;
  for (const fig of figures) {
    if (busy) fig.setAttribute("aria-busy", "true");
    else fig.removeAttribute("aria-busy");
  }
}

// Whether a Bokeh model is a control: every widget the reader operates (inputs, selects,
// sliders, buttons, groups of buttons or boxes, Panel's too) extends BokehJS's Control, an
// abstract class that its registry does not list, so it is found by name up the chain.
function isControl(model) {
  for (let cls = model.constructor; cls?.prototype; cls = Object.getPrototypeOf(cls)) {
    if (cls.__name__ === "Control") return true;
  }
  return false;
}

// With Python down (failed, outdated), moving a control would change nothing, and no one can
// say whether it ever will: the controls are disabled, visibly and, through a11y.js's
// observers and the native disabled elements Bokeh draws, for assistive technology, until
// Retry starts Python again. While Python is on its way they stay enabled and hold the
// reader's changes (changes.js), which have an end to wait for. Only the controls the page
// disabled are enabled again: one the figure's Python disabled stays so.
export function syncControls() {
  if (!DOWN.includes(state.phase)) {
    for (const model of state.disabledByPage) model.disabled = false;
    state.disabledByPage.clear();
    return;
  }
  for (const doc of state.prerender.docs.values()) {
    for (const model of doc.all_models) {
      if (model.disabled || !isControl(model)) continue;
      model.disabled = true;
      state.disabledByPage.add(model);
    }
  }
}
