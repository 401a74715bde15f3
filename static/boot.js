// Start the page's Python worker as early as possible: this small script runs before the page
// parses BokehJS and draws the pre-render, so Python downloads and restores on the other core
// meanwhile. page.js adopts the worker and the messages it sent before page.js was ready.
(() => {
  "use strict";
  if (typeof Worker === "undefined" || typeof WebAssembly === "undefined") return;
  const config = JSON.parse(document.getElementById("page-config").textContent);
  const worker = new Worker(`${config.base}static/worker.js`);
  const early = [];
  worker.onmessage = (event) => early.push(event);
  worker.onerror = (event) => {
    event.preventDefault();
    early.push(event);
  };
  worker.postMessage({ type: "start", ...config });
  window.figuresBoot = { worker, early };
})();
