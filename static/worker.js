// One Web Worker per page: Pyodide, the page's figures and their callbacks all live here, so
// the page stays responsive while Python starts and while a figure recomputes.
importScripts("../runtime/pyodide.js");

let live = null; // the figures.live module, once the figures are built

const post = (msg) => self.postMessage(msg);
const status = (step, text) => post({ type: "status", step, of: 3, text });
const sendPatch = (patch, buffers) => post({ type: "patch", patch, buffers });

// Pyodide only warns when its WebAssembly binary cannot be fetched, and then never settles:
// turn that warning into an error so the page can say why it is not live.
function wasmFailure() {
  return new Promise((_, reject) => {
    const warn = console.warn;
    console.warn = (...args) => {
      warn(...args);
      if (String(args[0]).includes("wasm instantiation failed")) {
        reject(new Error("the Python runtime (pyodide.asm.wasm) could not be downloaded"));
      }
    };
  });
}

async function start(config) {
  status(1, "starting Python (Pyodide)");
  const pyodide = await Promise.race([
    loadPyodide({ indexURL: new URL("../runtime/", self.location).href }),
    wasmFailure(),
  ]);
  status(2, "loading numpy, Bokeh, Panel and the figures");
  const failures = [];
  await pyodide.loadPackage(config.packages, {
    messageCallback: () => {},
    errorCallback: (text) => failures.push(text),
  });
  if (failures.length) {
    // The browser refuses a wheel whose bytes do not match the sha256 pinned in the lock file,
    // and reports it as a failed fetch.
    const why = "its download failed or did not match its pinned sha256";
    throw new Error(`a package could not be loaded (${why}): ${failures.join("; ")}`);
  }
  status(3, "building the figures");
  live = pyodide.pyimport("figures.live");
  const data = live.start(pyodide.toPy(config.figures), config.distUrl);
  post({ type: "render", data: JSON.parse(data) });
}

self.onmessage = ({ data: msg }) => {
  if (msg.type === "start") {
    start(msg).catch((err) => post({ type: "error", text: String(err.message || err) }));
  } else if (msg.type === "rendered") {
    live.link(sendPatch);
  } else if (msg.type === "patch") {
    try {
      live.apply(msg.patch);
    } catch (err) {
      post({ type: "error", text: `a figure update failed: ${err.message || err}` });
    } finally {
      post({ type: "idle" });
    }
  }
};
