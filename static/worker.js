// One Web Worker per page: Pyodide, numpy and the page's figures' Python live here, so the
// page stays responsive while Python starts and while a figure recomputes. The page keeps the
// figures' Bokeh models (drawn from the build's pre-render); here each figure is its state and
// its drawing (worker/live.py), and what a change redraws goes back as new property values for
// the page's models, by id.
//
// Two ways to start. The fast one restores the site's memory snapshot (made at build time by
// sitebuild/snapshot.js right after every figure of the site was drawn): Python, numpy and the
// figures come back in one copy. The ordinary one starts Python, loads numpy and the project
// and draws the figures. If anything about the snapshot does not fit, the page is told
// ("snapshot-unusable") and starts a new worker the ordinary way.
//
// The messages between the page (boot.js, static/page/python.js) and this worker, each {type, ...payload}:
//
//   page -> worker
//     start              the page config (#page-config: base, figures, packages,
//                        sitePackages, urls, snapshot; snapshot false for the ordinary start)
//                        and prerenderVisible: start Python and draw the figures. urls names
//                        the files this worker loads (zstd.js, restore.js, Pyodide's folder,
//                        the lock, and the standard library with the bytecode the ordinary
//                        start imports, sitebuild/startup.py) by their content-hashed names
//                        (sitebuild/hashed.py)
//     prerender-visible  {}: the figures on the reader's screen are drawn, so the page no
//                        longer needs the CPU that unpacking and restoring take
//     shown              {wiring, drawn}: the page shows the figures; wiring (figure id ->
//                        its models, layoutkit/wiring.py's table) says which model is which,
//                        drawn lists the figures drawn on the page so far. The answer is a
//                        drawing of those figures
//     drawn              {figure}: the page has drawn one more figure (the reader neared it),
//                        or one it had released again. The answer is a drawing of that figure
//     change             {changes}: the reader's changes, in order, each {figure, key, raw}
//                        (control `key`'s model now holds `raw`; a button's raw is its count
//                        of clicks) or {figure, action} (an action button was pressed)
//     view-get           {figure}: the figure's view, for a "Link to this view"
//     view-apply         {figure, params}: show the view a link describes (params: the
//                        figure's URL parameters, without its "<figure id>." prefix)
//     view-reset         {figure}: back to the figure's defaults
//     view-code          {figure}: the figure's state as Python, for its try-it cell
//
//   worker -> page
//     progress           {step, of, text}: a step of the start has begun (the page's banner)
//     ready              {start}: the figures are drawn; start is "snapshot" or "ordinary"
//     snapshot-unusable  {reason}: the snapshot does not fit this browser; start a new worker
//                        without it
//     drawing            {updates}: the answer to "shown" and "drawn": each figure named
//                        whole, as it stands (an update of everything it shows, of which the
//                        page sets what differs from what it drew)
//     update             {updates}: what the figures changed in answer to a change: figure
//                        id -> model id -> {property: value} (a data source's changed columns
//                        under "data"; a button's count under "clicks")
//     change-done        {}: the last change has been handled (after every change, even one
//                        that failed)
//     rehearsed          {}: the warm-up run of every figure after "shown" is over (at once
//                        after an ordinary start, which has none); the page needs nothing
//                        from it, it is the signal the tests and the benchmark wait on
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

let figuresLive = null; // the Python module worker.live (a Pyodide proxy), once started
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
// A Python value (a dict of updates) as plain JavaScript objects and arrays, for postMessage.
function plain(proxy) {
  try {
    return proxy.toJs({ dict_converter: Object.fromEntries, create_pyproxies: false });
  } finally {
    proxy.destroy();
  }
}
const reasonOf = (err) => String(err.message || err);

// The Pyodide that started (either way) is this worker's: returns its worker.live.
function adopt(pyodide) {
  cellsPython = pyodide;
  figuresLive = pyodide.pyimport("worker.live");
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

// The standard library the ordinary start imports from: the build's copy with bytecode for
// the modules it imports, where there is one (the snapshot start keeps Pyodide's own).
const stdlib = (urls) => (urls.stdlib ? { stdLibURL: new URL(urls.stdlib, self.location).href } : {});

async function startOrdinary(config) {
  await importOrGone(...pyodideScripts(config.urls));
  progress(1, "starting Python (Pyodide)");
  // Given the packages, Pyodide downloads them while Python bootstraps itself, rather than
  // after; it reports a failure to the console alone, so loadPackage below (which finds the
  // packages loaded, or tries a failed one again) is where a failure is heard.
  const settings = { ...runtime(config.urls), ...stdlib(config.urls), packages: config.packages };
  const pyodide = await Promise.race([loadPyodide(settings), wasmFailure()]);
  progress(2, "loading numpy and the figures");
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
  progress(3, "drawing the figures");
  adopt(pyodide).start(pyodide.toPy(config.figures));
}

// ---------------------------------------------------------------- the snapshot

// The snapshot start (static/restore.js, with the zstd decoder's script, zstd.js): the heap
// holds every figure of the site, drawn.
async function startFromSnapshot(config, untilPrerenderVisible) {
  await importOrGone(config.urls.zstd, config.urls.restore);
  const live = adopt(await restoreSnapshot(config, untilPrerenderVisible));
  const missing = config.figures.filter((id) => !live.has_figure(id));
  if (missing.length) throw new Error(`the snapshot has no figure ${missing.join(", ")}`);
}

async function start(config, untilPrerenderVisible) {
  if (config.snapshot) {
    try {
      await startFromSnapshot(config, untilPrerenderVisible);
    } catch (err) {
      // The page starts a fresh worker the ordinary way: this one's Pyodide is unusable.
      post(failure(err, "snapshot-unusable"));
      return;
    }
  } else {
    await startOrdinary(config);
  }
  figuresToRehearse = config.snapshot ? config.figures : [];
  post({ type: "ready", start: config.snapshot ? "snapshot" : "ordinary" });
}

// After a restore, once the page shows the live figures, run each figure's Python once more,
// one figure per task so that a control change can come in between (see worker.live.rehearse).
// Earlier, while the page draws, it would compete with the drawing for the CPU.
function rehearse(figureIds) {
  const [first, ...rest] = figureIds;
  if (first === undefined) return post({ type: "rehearsed" });
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

// Each of `figureIds` whole, as it stands (worker.live.whole), as the page's updates.
function wholeFigures(figureIds) {
  const updates = Object.fromEntries(figureIds.map((id) => [id, plain(figuresLive.whole(id))]));
  return { type: "drawing", updates };
}

// Get, set or reset a figure's view (worker.live, figurekit/figure.py); the updates it makes
// reach the page before this answer.
function viewAnswer({ type, figure, params }) {
  const answer = { type: "view", figure, params: null, note: "", code: "" };
  if (type === "view-code") return { ...answer, code: stateCode(figure) };
  if (type === "view-apply") {
    const [updates, note] = plain(figuresLive.apply_view(figure, JSON.stringify(params)));
    post({ type: "update", updates: { [figure]: updates } });
    answer.note = note;
  } else if (type === "view-reset") {
    post({ type: "update", updates: { [figure]: plain(figuresLive.reset_view(figure)) } });
  } else if (type !== "view-get") throw new Error(`unknown message ${type}`);
  return { ...answer, params: JSON.parse(figuresLive.view_state(figure)) };
}

// The reader's changes, in order, and what they changed on each figure, merged.
function applyChanges(changes) {
  const updates = {};
  for (const { figure, key, raw, action } of changes) {
    const proxy = action === undefined ? figuresLive.change(figure, key, raw) : figuresLive.act(figure, action);
    const byModel = (updates[figure] ||= {});
    for (const [id, props] of Object.entries(plain(proxy))) {
      const now = (byModel[id] ||= {});
      for (const [prop, value] of Object.entries(props)) {
        now[prop] = prop === "data" && now.data ? { ...now.data, ...value } : value;
      }
    }
  }
  post({ type: "update", updates });
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
//   worker -> page   cell-loading {id, packages}: the cell imports packages the figures do not
//                                 use ("bokeh, panel, ..."), which are being downloaded first
//                    cell-result  {id, output, error, fatal, downloaded}: what the cell printed
//                                 and the value of its last expression (output), the Python
//                                 exception, short (error, or ""), or why this Python is
//                                 unusable now (fatal, or ""; the page starts a new worker);
//                                 downloaded: null, or {packages, bytes} fetched for the cell
let cellRunner = null; // worker.cells.run_cell, imported on the first cell-run

// A cell may import a package of the runtime that the figures do not use (Panel, say): it is
// downloaded first, from this site, as Pyodide's lock file names it, and the page says so.
// Returns null, or what was downloaded: {packages, bytes} (the bytes as the browser's resource
// timing counts them). A package that cannot be loaded leaves its import to fail in the cell,
// which says why.
async function loadImports(id, code) {
  const since = performance.now();
  let packages = "";
  const messageCallback = (text) => {
    const loading = /^Loading (.+)$/.exec(text);
    if (loading && !packages) {
      packages = loading[1];
      post({ type: "cell-loading", id, packages });
    }
  };
  try {
    await cellsPython.loadPackagesFromImports(code, { messageCallback });
  } catch (err) {
    console.warn(`cells: a package this cell imports could not be loaded (${reasonOf(err)})`);
  }
  if (!packages) return null;
  const fetched = performance.getEntriesByType("resource").filter((e) => e.startTime >= since);
  return { packages, bytes: fetched.reduce((sum, e) => sum + (e.encodedBodySize || 0), 0) };
}

async function runCell({ id, code, namespace = "page", fresh = false }) {
  const result = { type: "cell-result", id, output: "", error: "", fatal: "", downloaded: null };
  try {
    result.downloaded = await loadImports(id, code);
    cellRunner ||= cellsPython.pyimport("worker.cells").run_cell;
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
    runCell(msg).then(post);
  } else if (msg.type === "start") {
    const untilPrerenderVisible = new Promise((resolve) => {
      prerenderIsVisible = resolve;
      setTimeout(resolve, msg.prerenderVisible ? 0 : PRERENDER_WAIT_MS);
    });
    start(msg, untilPrerenderVisible).catch((err) => post(failure(err, "failed")));
  } else if (msg.type === "prerender-visible") {
    prerenderIsVisible();
  } else if (msg.type === "shown") {
    figuresLive.connect(JSON.stringify(msg.wiring));
    post(wholeFigures(msg.drawn));
    rehearse(figuresToRehearse.filter((id) => id in msg.wiring));
  } else if (msg.type === "drawn") {
    post(wholeFigures([msg.figure]));
  } else if (msg.type.startsWith("view-")) {
    try {
      post(viewAnswer(msg));
    } catch (err) {
      post({ type: "failed", reason: `a figure's view could not be set: ${err.message || err}` });
    }
  } else if (msg.type === "change") {
    try {
      applyChanges(msg.changes);
    } catch (err) {
      post({ type: "failed", reason: `a figure update failed: ${err.message || err}` });
    } finally {
      post({ type: "change-done" });
    }
  }
};
