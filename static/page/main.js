// The page's side of the live figures, bundled by the build (sitebuild/pagescript.py) into
// static/page.js. It shows the build-time pre-render of the figures on the screen at once
// (and of each other figure as the reader nears it, once Python's start is over), starts one
// Web Worker that runs Pyodide and every figure's Python on the page, and once the worker has
// drawn the figures, the pre-render is the live figures: the reader's changes to a control go to the worker as the
// value the control's model holds, and the worker's answer is new values for the figure's
// models, by id (the build recorded which model is which: each figure's wiring, in the
// pre-render). The messages between the two are listed at the top of static/worker.js.
//
// One file per job, joined by imports:
//   state.js     the one state object, and what the page was given
//   phases.js    the figures' phases and enter(), the only way between them
//   drawing.js   each figure drawn from its pre-render as the reader nears it, and released
//                far behind the reader once the figures drawn outgrow a canvas budget
//   updates.js   the worker's values set on the figures' models
//   changes.js   the reader's changes, held or sent
//   python.js    the worker: start, messages, batches, going live, failure
//   views.js     links to a figure's view, Reset, and the try-it cells' question
//   saving.js    Data Saver: Python starts when the reader asks
//   bokeh-fixes.js  what the page mends in BokehJS
//   a11y.js      what the figures tell assistive technology (with plot-tables.js and
//                number-boxes.js)
//   shadow-dom.js  the elements in the shadow roots Bokeh and Panel draw in

import { releaseRemovedPlots, roundCategoricalSliders } from "./bokeh-fixes.js";
import { onFigureChange } from "./changes.js";
import {
  connect,
  drawAllForPrint,
  drawNear,
  drawOnFocus,
  followTargetUntilReaderMoves,
  forgetHeightsOnResize,
} from "./drawing.js";
import { enter, showBusy } from "./phases.js";
import { askDrawingOf, fail, failOrOutdated, startWorker, takeOverBootWorker } from "./python.js";
import { startWhenAsked } from "./saving.js";
import { state } from "./state.js";
import { wireViews } from "./views.js";

async function main() {
  roundCategoricalSliders();
  releaseRemovedPlots();
  showBusy();
  wireViews();
  followTargetUntilReaderMoves();
  connect({ change: onFigureChange, drawnLive: askDrawingOf, failed: fail });
  // Python is already starting (boot.js) on the other core while this thread draws the
  // pre-render, which is then on screen long before Python can take it over.
  const canRun = typeof Worker !== "undefined" && typeof WebAssembly !== "undefined";
  const onVisible = () => {
    performance.mark("prerender-visible");
    state.prerender.visible = true;
    state.worker?.postMessage({ type: "prerender-visible" });
  };
  drawOnFocus();
  drawAllForPrint();
  forgetHeightsOnResize();
  // Chained to the drawing itself, so that a worker that is ready early still goes live
  // after this move, whoever awaits the drawing first.
  state.prerender.drawing = drawNear(onVisible, { starting: true }).then(() => {
    performance.mark("prerender-complete");
    if (canRun && state.phase === "prerendering") enter("starting");
  });
  const boot = window.figuresBoot;
  if (canRun && boot?.worker) takeOverBootWorker(boot);
  else if (canRun) (boot?.savingData ? startWhenAsked() : startWorker());
  await state.prerender.drawing;
  // Saving data, Python waits for the reader: the start is over, for the drawing.
  if (state.waitingForReader) await drawNear();
  if (!canRun) fail("this browser cannot run Python (no Web Workers or WebAssembly)");
}

const scripts = [...document.scripts].map((script) => script.src).filter(Boolean);
main().catch((err) => failOrOutdated(scripts, String(err)));
