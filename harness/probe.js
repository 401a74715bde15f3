// Installed into every page the harness opens, before the page's own scripts (Playwright's
// init script, which the page's Content-Security-Policy does not apply to). It counts the
// messages between the page and its Python workers, by type, so that a test can wait for
// the worker to have answered every change instead of sleeping; it records the page's layout
// shifts; and it offers the look-ups through Panel's shadow roots that the tests and the
// benchmark share.
(() => {
  "use strict";
  const sent = {}; // message type -> how many the page posted to its workers
  const received = {}; // message type -> how many its workers posted back
  const add = (counts, data) => {
    const type = data && data.type;
    if (type) counts[type] = (counts[type] || 0) + 1;
  };
  const NativeWorker = self.Worker;
  if (NativeWorker) {
    self.Worker = class extends NativeWorker {
      constructor(...args) {
        super(...args);
        this.addEventListener("message", ({ data }) => add(received, data));
      }
      postMessage(data, ...rest) {
        add(sent, data);
        return super.postMessage(data, ...rest);
      }
    };
  }

  // Every open shadow root under `root`, depth first.
  function shadowRoots(root, out = []) {
    for (const el of root.querySelectorAll("*")) {
      if (el.shadowRoot) {
        out.push(el.shadowRoot);
        shadowRoots(el.shadowRoot, out);
      }
    }
    return out;
  }

  const deepAll = (selector, root = document) =>
    [root, ...shadowRoots(root)].flatMap((r) => [...r.querySelectorAll(selector)]);

  // The focused element, looking through shadow roots.
  function active() {
    let el = document.activeElement;
    while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
    return el;
  }

  // A figure's readouts as the page shows them, by key.
  function readouts(figureId) {
    const figure = document.querySelector(`[data-figure="${figureId}"]`);
    const out = {};
    for (const el of deepAll("[data-readout]", figure)) out[el.dataset.readout] = el.innerText;
    return out;
  }

  // Whether the figures' worker has answered every change, view request and drawn figure the
  // page sent (it answers each batch of changes with "change-done", each view message with
  // "view", and "shown" and each "drawn" with a "drawing").
  const count = (counts, types) => types.reduce((n, t) => n + (counts[t] || 0), 0);
  const asked = (counts) => count(counts, ["view-get", "view-apply", "view-reset", "view-code"]);
  const idle = () =>
    (sent.change || 0) === (received["change-done"] || 0) &&
    asked(sent) === (received.view || 0) &&
    count(sent, ["shown", "drawn"]) === (received.drawing || 0);

  // Every layout shift no input of the reader's caused just before it (what the cumulative
  // layout shift adds up), with what moved, so that a test can say what jumped.
  const shifts = [];
  const describe = ({ node }) =>
    node ? `${node.nodeName.toLowerCase()}${node.id ? `#${node.id}` : ""}.${node.className}` : "";
  if (self.PerformanceObserver?.supportedEntryTypes?.includes("layout-shift")) {
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        if (!entry.hadRecentInput) shifts.push({ value: entry.value, moved: entry.sources.map(describe) });
      }
    }).observe({ type: "layout-shift", buffered: true });
  }

  // The page's next animation frame (true), or `ms` later if none comes (false): headless
  // Chromium has stopped drawing a visible page's frames for good, and a test's wait or the
  // benchmark's scroll must not hang on one (what it then reads, it reads without the frame).
  const frame = (ms = 1000) =>
    new Promise((resolve) => {
      const late = setTimeout(() => resolve(false), ms);
      requestAnimationFrame(() => {
        clearTimeout(late);
        resolve(true);
      });
    });

  self.harnessProbe = {
    sent, received, shadowRoots, deepAll, active, readouts, idle, shifts, frame,
  };
})();
