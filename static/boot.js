// Start the page's Python worker as early as possible: this small script is the first of the
// page's deferred scripts, run before BokehJS is evaluated and the pre-render drawn, so Python
// downloads and restores on the other core meanwhile. The page script (static/page/) adopts
// the worker and the messages it sent before that script was ready.
//
// A reader whose browser asks to save data (Data Saver: navigator.connection.saveData) gets
// no worker here: the page script starts it only when the reader uses a figure or asks for it.
(() => {
  "use strict";
  if (typeof Worker === "undefined" || typeof WebAssembly === "undefined") return;
  if (navigator.connection?.saveData === true) {
    window.figuresBoot = { savingData: true };
    return;
  }
  const config = JSON.parse(document.getElementById("page-config").textContent);
  const worker = new Worker(config.urls.worker);
  const events = []; // what the worker says until the page script takes it over
  worker.onmessage = (event) => events.push(event);
  worker.onerror = (event) => {
    event.preventDefault();
    events.push(event);
  };
  worker.postMessage({ type: "start", ...config });
  window.figuresBoot = { worker, events };
})();
