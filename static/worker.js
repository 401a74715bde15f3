// One Web Worker per page: Pyodide, the page's figures and their callbacks all live here, so
// the page stays responsive while Python starts and while a figure recomputes.
//
// Two ways to start. The fast one restores the site's memory snapshot (made at build time by
// sitebuild/snapshot.js right after every figure of the site was built): Python, Panel and
// the figures come back in one copy, and the page keeps its own figures. The ordinary one
// starts Python, loads the wheels and builds the figures. If anything about the snapshot does
// not fit, the page is told ("snapshot-unusable") and starts a new worker the ordinary way.
//
// The messages between the page (boot.js, page.js) and this worker, each {type, ...payload}:
//
//   page -> worker
//     start              the page config (#page-config: base, figures, packages, distUrl,
//                        sitePackages, urls, snapshot; snapshot false for the ordinary start)
//                        and prerenderVisible: start Python and build the figures. urls names
//                        the files this worker loads (zstd.js, Pyodide's folder, the lock) by
//                        their content-hashed names (sitebuild/hashed.py)
//     prerender-visible  {}: the figures on the reader's screen are drawn, so the page no
//                        longer needs the CPU that unpacking and restoring take
//     shown              {}: the page shows the figures: send their updates from now on
//     change             {patch}: the reader's control changes, as a Bokeh JSON patch
//     view-get           {figure}: the figure's view, for a "Link to this view"
//     view-apply         {figure, params}: show the view a link describes (params: the
//                        figure's URL parameters, without its "<figure id>." prefix)
//     view-reset         {figure}: back to the figure's defaults
//     view-code          {figure}: the figure's state as Python, for its try-it cell
//
//   worker -> page
//     progress           {step, of, text}: a step of the start has begun (the page's banner)
//     ready              {doc, start}: the figures are built; doc is their serialized Bokeh
//                        document, start is "snapshot" or "ordinary"
//     snapshot-unusable  {reason}: the snapshot does not fit this browser; start a new worker
//                        without it
//     update             {patch, buffers}: what the figures changed in answer to a change
//     change-done        {}: the last change has been handled (after every change, even one
//                        that failed)
//     view               {figure, params, note}: the answer to each view-* message, after the
//                        updates it caused: the figure's view now (params: its controls that
//                        differ from their defaults, as URL parameters without the prefix;
//                        null for view-code) and
//                        note, '' or the one line saying why a link's view was not restored;
//                        code, the state's `state = ...` lines (view-code only, else ''; null
//                        if they could not be made)
//     failed             {reason}: Python did not start, or a change failed; not live
//     outdated           {url}: a file the start needs is gone from the server (404: the site
//                        was deployed again since the page was loaded); only a reload helps
const STEPS = 3; // of the start, as the banner counts them
// The longest wait for the page's pre-render, so a page that never says it is drawn still
// goes live.
const PRERENDER_WAIT_MS = 3000;

let figuresLive = null; // the Python module figures.live (a Pyodide proxy), once started
let cellsPython = null; // the Pyodide that started, for the cells
let figuresToRehearse = []; // the page's figure ids after a snapshot start (see rehearse)
let prerenderIsVisible = () => {}; // resolves the wait for the page's pre-render
let goneUrl = null; // the first of this site's files that answered 404 (see watchedFetch)

// Every file this worker asks for has a name that changes with its content, so a 404 means
// the page is older than the site on the server: remember it, to say so instead of whatever
// error the missing file causes further on (a wheel's "did not match its sha256", say).
const siteFetch = self.fetch.bind(self);
self.fetch = async (url, init) => {
  const response = await siteFetch(url, init);
  if (response.status === 404) goneUrl ||= response.url || String(url);
  return response;
};

// importScripts that notices a script gone from the server (importScripts itself only says
// that loading failed).
async function importOrGone(...urls) {
  try {
    importScripts(...urls);
  } catch (err) {
    await Promise.all(urls.map((url) => fetch(url, { method: "HEAD" }).catch(() => {})));
    throw err;
  }
}

// Where Pyodide's files are: its core files by their own names in one folder (indexURL), the
// lock file beside them; wheels are where the lock's file names point.
const runtime = (urls) => ({
  indexURL: new URL(urls.pyodide, self.location).href,
  lockFileURL: new URL(urls.lock, self.location).href,
});
// Pyodide's scripts, compiled only when needed: compiling them takes a core the page needs
// while it draws its pre-render.
const pyodideScripts = (urls) => ["pyodide.asm.js", "pyodide.js"].map((f) => urls.pyodide + f);

const post = (msg) => self.postMessage(msg);
const progress = (step, text) => post({ type: "progress", step, of: STEPS, text });
const postUpdate = (patch, buffers) => post({ type: "update", patch, buffers });
const reasonOf = (err) => String(err.message || err);

// The Pyodide that started (either way) is this worker's: returns its figures.live.
function adopt(pyodide) {
  cellsPython = pyodide;
  figuresLive = pyodide.pyimport("figures.live");
  return figuresLive;
}

// Why the start failed: a file gone from the server explains it, whatever error followed.
const failure = (err, type) =>
  goneUrl ? { type: "outdated", url: goneUrl } : { type, reason: reasonOf(err) };

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
  await importOrGone(...pyodideScripts(config.urls));
  progress(1, "starting Python (Pyodide)");
  const pyodide = await Promise.race([loadPyodide(runtime(config.urls)), wasmFailure()]);
  progress(2, "loading numpy, Bokeh, Panel and the figures");
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
  progress(3, "building the figures");
  return adopt(pyodide).start(pyodide.toPy(config.figures), config.distUrl);
}

// ---------------------------------------------------------------- the snapshot

async function download(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return response;
}

// One body of the responses' bodies one after another (promised responses, in order): the
// heap's parts, zstd frames that decode as one stream.
function joined(responses) {
  let next = 0;
  let reader = null;
  const body = new ReadableStream({
    async pull(controller) {
      for (;;) {
        if (!reader) {
          if (next === responses.length) return controller.close();
          reader = (await responses[next++]).body.getReader();
        }
        const { done, value } = await reader.read();
        if (!done) return controller.enqueue(value);
        reader = null;
      }
    },
    cancel: (reason) => reader?.cancel(reason),
  });
  return { body };
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

// Write the bundle of files the heap does not hold (see sitebuild/snapshot.py for its layout)
// under Pyodide's site-packages directory (with its trailing slash).
function writeFiles(FS, bundle, sitePackages) {
  const n = new DataView(bundle.buffer, bundle.byteOffset).getUint32(0, true);
  const index = JSON.parse(new TextDecoder().decode(bundle.subarray(4, 4 + n)));
  const start = 4 + n;
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

const EMPTY = new Uint8Array(0);

// Before the first import the restored heap cannot serve, Python calls back here to download
// the files `later` names (zstd frames: {url, bytes unpacked, into}) and write them where
// Python reads them (figures/deferred.py): a file at `into`, or a bundle of files unpacked
// under `into` if it ends with "/". An import cannot wait for a promise, so the download is
// synchronous, which a worker may do.
function deferLater(pyodide, decoder, later) {
  const fetchLater = () => {
    for (const { url, bytes, into } of later) {
      const request = new XMLHttpRequest();
      request.open("GET", url, false);
      request.responseType = "arraybuffer";
      request.send();
      if (request.status !== 200) throw new Error(`${url} answered ${request.status}`);
      const data = unzstdNow(decoder, new Uint8Array(request.response), bytes);
      if (into.endsWith("/")) writeFiles(pyodide.FS, data, into);
      else pyodide.FS.writeFile(into, data);
    }
  };
  // Pyodide wrote an empty stand-in for each file: with none there, reading one fails as Python
  // expects a missing file to (linecache shows no line), where an empty zip fails with an
  // EOFError that nothing catches.
  for (const { into } of later) if (!into.endsWith("/")) pyodide.FS.unlink(into);
  pyodide.pyimport("figures.deferred").install(fetchLater);
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
// those requests with the bytes in `unpacked` (url -> promise of the bytes).
async function withUnpacked(unpacked, run) {
  const fetch = self.fetch;
  self.fetch = (url, init) => {
    const bytes = unpacked.get(String(url));
    if (!bytes) return fetch(url, init);
    const type = String(url).endsWith(".wasm") ? "application/wasm" : "application/zip";
    // A file that could not be unpacked fails the start through startFromSnapshot's race;
    // Pyodide would leave the rejection of its own fetch unhandled, so it gets one that waits.
    const never = () => new Promise(() => {});
    return bytes.then((body) => new Response(body, { headers: { "Content-Type": type } }), never);
  };
  try {
    return await run();
  } finally {
    self.fetch = fetch;
  }
}

// `untilPrerenderVisible` resolves when the page has drawn the figures on the reader's screen.
async function startFromSnapshot(config, untilPrerenderVisible) {
  const snap = config.snapshot;
  const { indexURL, lockFileURL } = runtime(config.urls);
  await importOrGone(config.urls.zstd);
  progress(1, "downloading Python and the saved state of this page's figures");
  const decoder = zstdDecoder(download(snap.decoder));
  const bundle = download(snap.files);
  const parts = snap.state.map(download); // the heap, in parts the HTTP cache keeps
  const packed = snap.packed.map((p) => ({ ...p, download: download(p.url) }));
  // Each failure is reported when its download is unpacked, below.
  [decoder, bundle, ...parts, ...packed.map((p) => p.download)].forEach((d) => d.catch(() => {}));
  // Unpacking and restoring take a core each: let the page draw its pre-render first.
  // Meanwhile Pyodide's scripts are fetched into the HTTP cache (read to the end, or the cache
  // would not keep them), for importScripts below.
  const scripts = pyodideScripts(config.urls);
  scripts.forEach((url) => fetch(url).then((r) => r.arrayBuffer()).catch(() => {}));
  await untilPrerenderVisible;
  await importOrGone(...scripts);
  const unpacked = new Map(
    packed.map((p) => [indexURL + p.file, unpack(decoder, p.download, p.bytes, p.file)]),
  );
  // Pyodide writes what it fetches for these into its file system; the heap needs none of
  // them until an import it cannot serve, which fetches them first (deferLater, below).
  for (const later of snap.later) unpacked.set(indexURL + later.file, Promise.resolve(EMPTY));
  const files = unpack(decoder, bundle, snap.filesBytes, "the files bundle");
  const heap = unpack(decoder, joined(parts), snap.stateBytes, "the saved state");
  heap.then(() => progress(2, "restoring Python, numpy, Panel and the figures"), () => {});
  // Each failure is reported where the unpacked bytes are awaited (the race below, or the
  // step before the restore); one that fails before anything awaits it, or after the start
  // has failed of another cause, must not surface as an unhandled rejection.
  [...unpacked.values(), files].forEach((u) => u.catch(() => {}));
  const relinked = beforeRestore(async (M) => {
    writeFiles(M.FS, await files, config.sitePackages);
    await relink(M, snap);
  });
  // Pyodide asks for its WebAssembly at once and waits for the heap to create it.
  const pyodide = await withUnpacked(unpacked, () =>
    Promise.race([
      loadPyodide({
        indexURL,
        lockFileURL,
        _loadSnapshot: heap,
        _snapshotDeserializer: deserializeJs,
      }),
      wasmFailure(),
      relinked,
      Promise.all(unpacked.values()).then(() => new Promise(() => {})), // rejects on a failure
    ]),
  );
  deferLater(pyodide, await decoder, snap.later);
  progress(3, "drawing the figures");
  return pageDocument(JSON.parse(adopt(pyodide).render()), config.figures);
}

// The site's snapshot holds every figure of the site in one serialized document: keep this
// page's figures. (Python's document keeps them all: taking a root out of it walks every model
// of the site, seconds in a browser, and the other pages' figures never change here, since
// no control of theirs is on this page.) A model is defined where it first occurs and
// referred to by id after that, so a model this page's figures share with an earlier page's
// (Panel's stylesheets) has its definition moved to its first use here.
function pageDocument(built, figureIds) {
  const [docId, ...others] = Object.keys(built.docs_json);
  const missing = figureIds.filter((id) => !(id in built.roots));
  if (others.length || missing.length) {
    throw new Error(`the snapshot does not hold this page's figures (${missing.join(", ")})`);
  }
  const kept = new Set(figureIds.map((id) => built.roots[id]));
  const whole = built.docs_json[docId];
  const everywhere = new Map(); // id -> definition, in the whole document
  const collect = (v) => {
    if (v === null || typeof v !== "object") return;
    if (v.type === "object" && typeof v.id === "string") everywhere.set(v.id, v);
    Object.values(v).forEach(collect);
  };
  collect(whole.roots);
  const defined = new Set();
  const own = (v) => {
    if (Array.isArray(v)) return v.map(own);
    if (v === null || typeof v !== "object") return v;
    if (typeof v.id === "string" && v.type !== "object" && !defined.has(v.id)) {
      const definition = everywhere.get(v.id);
      if (!definition) throw new Error(`the snapshot's document does not define ${v.id}`);
      return own(definition);
    }
    if (typeof v.id === "string") defined.add(v.id);
    return Object.fromEntries(Object.entries(v).map(([key, value]) => [key, own(value)]));
  };
  const roots = whole.roots.filter((root) => kept.has(root.id)).map(own);
  const [item] = built.render_items;
  const slots = Object.entries(item.roots).filter(([id]) => kept.has(id));
  return {
    docs_json: { [docId]: { ...whole, roots } },
    render_items: [{ ...item, roots: Object.fromEntries(slots), root_ids: roots.map((r) => r.id) }],
    roots: Object.fromEntries(figureIds.map((id) => [id, built.roots[id]])),
  };
}

async function start(config, untilPrerenderVisible) {
  let built = null;
  if (config.snapshot) {
    try {
      built = await startFromSnapshot(config, untilPrerenderVisible);
    } catch (err) {
      // The page starts a fresh worker the ordinary way: this one's Pyodide is unusable.
      post(failure(err, "snapshot-unusable"));
      return;
    }
  } else {
    built = await startOrdinary(config);
  }
  figuresToRehearse = config.snapshot ? config.figures : [];
  const doc = config.snapshot ? built : JSON.parse(built);
  post({ type: "ready", doc, start: config.snapshot ? "snapshot" : "ordinary" });
}

// After a restore, once the page shows the live figures, run each figure's Python once more,
// one figure per task so that a control change can come in between (see figures.live.rehearse).
// Earlier, while the page draws, it would compete with the drawing for the CPU.
function rehearse(figureIds) {
  const [first, ...rest] = figureIds;
  if (first === undefined) return;
  setTimeout(() => {
    // Only a warm-up: the figures are live already, so a failure must not reach the page,
    // whose onerror would take them offline.
    try {
      figuresLive.rehearse(first);
    } catch (err) {
      console.warn(`figures: rehearsing ${first} failed (${err.message || err})`);
    }
    rehearse(rest);
  });
}

// Get, set or reset a figure's view (figures.live, figures/viewstate.py); the updates it makes
// reach the page before this answer.
function viewAnswer({ type, figure, params }) {
  const answer = { type: "view", figure, params: null, note: "", code: "" };
  if (type === "view-code") return { ...answer, code: stateCode(figure) };
  if (type === "view-apply") answer.note = figuresLive.apply_view(figure, JSON.stringify(params));
  else if (type === "view-reset") figuresLive.reset_view(figure);
  else if (type !== "view-get") throw new Error(`unknown message ${type}`);
  return { ...answer, params: JSON.parse(figuresLive.view_state(figure)) };
}

// The figure's state as Python for its try-it cell, or null: a failure here costs the cell its
// live state, never the figures.
function stateCode(figure) {
  try {
    return figuresLive.state_code(figure);
  } catch (err) {
    console.warn(`figures: reading ${figure}'s state for its cell failed (${err.message || err})`);
    return null;
  }
}

// ---------------------------------------------------------------- the reader's cells
//
// static/cells.js starts a worker of its own for the page's code cells, started like the
// page's (same snapshot), so a cell never shares the figures' Python: it cannot stall them,
// delete their names, or take them down, and Stop can end it. Its messages:
//
//   page -> worker   cell-run     {id, code, namespace, fresh}: run `code` (of cell `id`) in
//                                 the namespace named `namespace` ("page": shared by the
//                                 page's cells; an exercise has its own), emptied first if
//                                 `fresh`
//   worker -> page   cell-result  {id, output, error, fatal}: what the cell printed and the
//                                 value of its last expression (output), the Python exception,
//                                 short (error, or ""), or why this Python is unusable now
//                                 (fatal, or ""; the page starts a new worker)
let cellRunner = null; // figures.cells.run_cell, imported on the first cell-run

function runCell({ id, code, namespace = "page", fresh = false }) {
  const result = { type: "cell-result", id, output: "", error: "", fatal: "" };
  try {
    cellRunner ||= cellsPython.pyimport("figures.cells").run_cell;
    const answer = cellRunner(code, `<cell ${id}>`, namespace, fresh);
    [result.output, result.error] = answer.toJs();
    answer.destroy();
  } catch (err) {
    result.fatal = reasonOf(err);
  }
  return result;
}

self.onmessage = ({ data: msg }) => {
  if (msg.type === "cell-run") {
    post(runCell(msg));
  } else if (msg.type === "start") {
    const untilPrerenderVisible = new Promise((resolve) => {
      prerenderIsVisible = resolve;
      setTimeout(resolve, msg.prerenderVisible ? 0 : PRERENDER_WAIT_MS);
    });
    start(msg, untilPrerenderVisible).catch((err) => post(failure(err, "failed")));
  } else if (msg.type === "prerender-visible") {
    prerenderIsVisible();
  } else if (msg.type === "shown") {
    figuresLive.link(postUpdate);
    rehearse(figuresToRehearse);
  } else if (msg.type.startsWith("view-")) {
    try {
      post(viewAnswer(msg));
    } catch (err) {
      post({ type: "failed", reason: `a figure's view could not be set: ${err.message || err}` });
    }
  } else if (msg.type === "change") {
    try {
      figuresLive.apply(msg.patch);
    } catch (err) {
      post({ type: "failed", reason: `a figure update failed: ${err.message || err}` });
    } finally {
      post({ type: "change-done" });
    }
  }
};
