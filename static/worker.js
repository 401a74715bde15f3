// One Web Worker per page: Pyodide, the page's figures and their callbacks all live here, so
// the page stays responsive while Python starts and while a figure recomputes.
//
// Two ways to start. The fast one restores the page's memory snapshot (made at build time by
// sitebuild/snapshot.js right after the figures were built): Python, Panel and the figures
// come back in one copy. The ordinary one starts Python, loads the wheels and builds the
// figures. If anything about the snapshot does not fit, the page is told ("fallback") and
// starts a new worker the ordinary way.
importScripts("zstd.js");

// Pyodide's scripts, compiled only when needed: compiling 1.3 MB of JavaScript at once takes
// a core the page needs while it draws its pre-render.
const PYODIDE_SCRIPTS = ["../runtime/pyodide.asm.js", "../runtime/pyodide.js"];
const loadPyodideScripts = () => importScripts(...PYODIDE_SCRIPTS);

let live = null; // the figures.live module, once the figures are built

const post = (msg) => self.postMessage(msg);
const status = (step, text) => post({ type: "status", step, of: 3, text });
const sendPatch = (patch, buffers) => post({ type: "patch", patch, buffers });
const indexURL = new URL("../runtime/", self.location).href;

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

async function startOrdinary(config) {
  loadPyodideScripts();
  status(1, "starting Python (Pyodide)");
  const pyodide = await Promise.race([loadPyodide({ indexURL }), wasmFailure()]);
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
  return live.start(pyodide.toPy(config.figures), config.distUrl);
}

// ---------------------------------------------------------------- the snapshot

async function download(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return response;
}

// A download's zstd body, unpacked as it is read (it is read only from now on).
async function unpack(decoder, response, size, what) {
  const body = (await response).body; // a failed download says so itself
  try {
    return await unzstd(await decoder, body, size);
  } catch (err) {
    throw new Error(`${what} could not be unpacked: ${err.message || err}`);
  }
}

// Write the bundle of files the heap does not hold (see sitebuild/snapshot.py for its layout).
function writeFiles(FS, bundle) {
  const n = new DataView(bundle.buffer, bundle.byteOffset).getUint32(0, true);
  const index = JSON.parse(new TextDecoder().decode(bundle.subarray(4, 4 + n)));
  const start = 4 + n;
  const sitePackages = "/lib/python3.12/site-packages/";
  for (const [rel, offset, size] of index) {
    const path = sitePackages + rel;
    FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
    FS.writeFile(path, bundle.subarray(start + offset, start + offset + size));
  }
}

// Load numpy's shared libraries where they were when the snapshot was made. Emscripten reuses
// the memory and table bases found in a library's handle record (offsets 8, 12, 20), so each
// one is loaded through a scratch record holding the saved bases. Runs before the heap is
// restored, which then overwrites the scratch record and whatever the libraries initialised.
async function relink(M, snap) {
  if (M.wasmTable.length > snap.libs[0].tableBase) {
    throw new Error("this browser's function table does not leave the libraries' slots free");
  }
  const handle = M.HEAPU8.length - 64;
  for (const lib of snap.libs) {
    M.HEAPU8.fill(0, handle, handle + 64);
    M.HEAPU8[handle + 8] = 1;
    M.HEAPU32[(handle + 12) >> 2] = lib.memoryBase;
    M.HEAPU32[(handle + 20) >> 2] = lib.tableBase;
    const flags = { loadAsync: true, nodelete: true, allowUndefined: true, global: false, fs: M.FS };
    await M.loadDynamicLibrary(lib.name, flags, {}, handle);
    delete M.LDSO.loadedLibsByHandle[handle];
    const name = lib.name.slice(lib.name.lastIndexOf("/") + 1);
    M.LDSO.loadedLibsByName[name] ||= M.LDSO.loadedLibsByName[lib.name];
  }
  if (M.wasmTable.length !== snap.tableAfterLibs) {
    throw new Error(`the libraries took ${M.wasmTable.length} table slots, not ${snap.tableAfterLibs}`);
  }
}

// Add a step to the next module Pyodide creates, run once its WebAssembly instance exists and
// before Pyodide restores the heap into it. Returns a promise that rejects if the step fails.
function beforeRestore(hook) {
  const create = self._createPyodideModule;
  return new Promise((_, reject) => {
    self._createPyodideModule = (settings) => {
      self._createPyodideModule = create;
      if (!Array.isArray(settings.preRun)) throw new Error("Pyodide's settings have no preRun");
      settings.preRun.push(async (M) => {
        M.addRunDependency("relink");
        try {
          await hook(M);
        } catch (err) {
          reject(err);
        } finally {
          M.removeRunDependency("relink");
        }
      });
      return create(settings);
    };
  });
}

// Panel's undefined -> null converter, the one JavaScript function a snapshot refers to.
function panelDictConverter(entries) {
  for (const entry of entries) if (entry[1] === undefined) entry[1] = null;
  return Object.fromEntries(entries);
}

function deserializeJs({ kind }) {
  if (kind === "panel-dict-converter") return panelDictConverter;
  throw new Error(`the snapshot refers to an unknown JavaScript object (${kind})`);
}

// Pyodide fetches its WebAssembly and its standard library itself: while it starts, answer
// those two requests with the copies unpacked from zstd (url -> promise of the bytes).
async function withUnpacked(unpacked, run) {
  const fetch = self.fetch;
  self.fetch = (url, init) => {
    const bytes = unpacked.get(String(url));
    if (!bytes) return fetch(url, init);
    const type = String(url).endsWith(".wasm") ? "application/wasm" : "application/zip";
    return bytes.then((body) => new Response(body, { headers: { "Content-Type": type } }));
  };
  try {
    return await run();
  } finally {
    self.fetch = fetch;
  }
}

async function startFromSnapshot(config) {
  const snap = config.snapshot;
  status(1, "downloading Python and the saved state of this page's figures");
  const decoder = zstdDecoder(download(snap.decoder));
  const downloads = [download(snap.files), download(snap.state)];
  const packed = snap.packed.map((p) => ({ ...p, download: download(p.url) }));
  // Each failure is reported when its download is unpacked, below.
  [decoder, ...downloads, ...packed.map((p) => p.download)].forEach((d) => d.catch(() => {}));
  // Unpacking and restoring take a core each: let the page draw its pre-render first.
  // Meanwhile Pyodide's scripts are fetched into the HTTP cache (read to the end, or the cache
  // would not keep them), for importScripts below.
  PYODIDE_SCRIPTS.forEach((url) => fetch(url).then((r) => r.arrayBuffer()).catch(() => {}));
  await config.prerendered;
  loadPyodideScripts();
  const unpacked = new Map(
    packed.map((p) => [indexURL + p.file, unpack(decoder, p.download, p.bytes, p.file)]),
  );
  const files = unpack(decoder, downloads[0], snap.filesBytes, "the files bundle");
  const heap = unpack(decoder, downloads[1], snap.stateBytes, "the saved state");
  heap.then(() => status(2, "restoring Python, numpy, Panel and the figures"), () => {});
  const relinked = beforeRestore(async (M) => {
    writeFiles(M.FS, await files);
    await relink(M, snap);
  });
  // Pyodide asks for its WebAssembly at once and waits for the heap to create it.
  const pyodide = await withUnpacked(unpacked, () =>
    Promise.race([
      loadPyodide({ indexURL, _loadSnapshot: heap, _snapshotDeserializer: deserializeJs }),
      wasmFailure(),
      relinked,
      Promise.all(unpacked.values()).then(() => new Promise(() => {})), // rejects on a failure
    ]),
  );
  status(3, "drawing the figures");
  live = pyodide.pyimport("figures.live");
  return live.render();
}

async function start(config) {
  let data = null;
  if (config.snapshot) {
    try {
      data = await startFromSnapshot(config);
    } catch (err) {
      // The page starts a fresh worker the ordinary way: this one's Pyodide is unusable.
      post({ type: "fallback", text: String(err.message || err) });
      return;
    }
  } else {
    data = await startOrdinary(config);
  }
  rehearsal = config.snapshot ? config.figures : [];
  post({ type: "render", data: JSON.parse(data), start: config.snapshot ? "snapshot" : "ordinary" });
}

// After a restore, once the page shows the live figures, run each figure's Python once more,
// one figure per task so that a control change can come in between (see live.rehearse).
// Earlier, while the page draws, it would compete with the drawing for the CPU.
let rehearsal = [];
function rehearse(figureIds) {
  const [first, ...rest] = figureIds;
  if (first === undefined) return;
  setTimeout(() => {
    // Only a warm-up: the figures are live already, so a failure must not reach the page,
    // whose onerror would take them offline.
    try {
      live.rehearse(first);
    } catch (err) {
      console.warn(`figures: rehearsing ${first} failed (${err.message || err})`);
    }
    rehearse(rest);
  });
}

// Resolved when the page has drawn its pre-render (or at once if it already had). The wait is
// capped, so a page that never says so still goes live.
let prerenderDrawn = () => {};
const PRERENDER_WAIT_MS = 3000;

self.onmessage = ({ data: msg }) => {
  if (msg.type === "start") {
    const drawn = new Promise((resolve) => {
      prerenderDrawn = resolve;
      setTimeout(resolve, msg.prerendered ? 0 : PRERENDER_WAIT_MS);
    });
    start({ ...msg, prerendered: drawn }).catch((err) =>
      post({ type: "error", text: String(err.message || err) }),
    );
  } else if (msg.type === "prerendered") {
    prerenderDrawn();
  } else if (msg.type === "rendered") {
    live.link(sendPatch);
    rehearse(rehearsal);
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
