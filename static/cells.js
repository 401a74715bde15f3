// The reader's own Python: every code block the build ran (sitebuild/snippets.py) becomes an
// editable cell. Until the reader first focuses or runs one, a block stays the build's
// highlighted code and output; then the editor (CodeMirror, bundled by sitebuild/editor.py)
// loads and the cells' Python starts.
//
// The cells run in a worker of their own (worker.js, started from the page's snapshot like the
// figures' worker, once the figures are live), so a cell cannot stall or break the figures,
// and Stop can end it and start a fresh one. The page's cells share one namespace in page
// order: running a cell first runs, once, the earlier cells this Python has not run yet.
// A reader's edits are kept per page in localStorage until Reset. A figure's "Try it" (in its
// source panel) fills the figure's own cell with the state the figure shows, asked of the page
// script with a "figure-code-wanted" event, and runs it.
(() => {
  "use strict";
  const html = document.documentElement;
  const configEl = document.getElementById("page-config");
  const elements = [...document.querySelectorAll("[data-cell]")];
  if (!elements.length || !configEl) return;
  if (typeof Worker === "undefined" || typeof WebAssembly === "undefined") return;
  const config = JSON.parse(configEl.textContent);
  const STORE = `cells:${location.pathname}`;

  const state = {
    python: "off", // off, waiting (for the figures to go live), starting, ready, failed
    worker: null,
    whenReady: null, // the promise of the cells' Python being ready
    ranHere: new Set(), // the page's cells this Python has run (their ids)
    pending: null, // {id, resolve} of the cell-run the worker has
    busy: null, // the cell whose run is under way (with the earlier cells it needs)
    editorScript: null, // the promise of the editor's script
    cells: elements.map((el) => ({
      el,
      id: el.dataset.cell,
      label: el.dataset.cellLabel,
      solo: el.hasAttribute("data-cell-solo"), // an exercise's: a namespace of its own
      pre: el.querySelector("[data-cell-code]"),
      output: el.querySelector("[data-cell-output]"),
      note: el.querySelector(".cell-note"),
      run: el.querySelector("[data-cell-run]"),
      stop: el.querySelector("[data-cell-stop]"),
      reset: el.querySelector("[data-cell-reset]"),
      original: el.querySelector("[data-cell-code]").textContent.replace(/\n$/, ""),
      originalHtml: el.querySelector("[data-cell-code]").innerHTML,
      originalOutput: el.querySelector("[data-cell-output]").textContent,
      code: null, // the code now (set below)
      base: null, // a try-it cell's code as Try it loaded it: not an edit of the reader's
      editor: null, // the CodeMirror editor, once the reader has focused the cell
    })),
  };

  // ------------------------------------------------------------ edits kept across reloads

  function storedEdits() {
    try {
      return JSON.parse(localStorage.getItem(STORE)) || {};
    } catch {
      return {};
    }
  }

  // Keep or forget a cell's edit; an edit is kept with the original it edits, so a new build
  // whose cell differs does not show an old edit of other code.
  function storeEdit(cell) {
    const edits = storedEdits();
    if (!isEdited(cell)) delete edits[cell.id];
    else edits[cell.id] = { original: cell.original, code: cell.code };
    try {
      localStorage.setItem(STORE, JSON.stringify(edits));
    } catch {
      // No storage here (private mode, full): the edit lives as long as the page.
    }
  }

  // Edited means changed by the reader: a try-it cell holding the figure's state (its `base`)
  // is not, though Reset still takes it back to the build's code.
  const isEdited = (cell) => cell.code !== (cell.base ?? cell.original);

  function markEdited(cell) {
    const edited = isEdited(cell);
    cell.el.classList.toggle("cell-edited", edited);
    cell.reset.hidden = cell.code === cell.original;
    cell.el.dataset.edited = edited ? "true" : "false";
  }

  // ------------------------------------------------------------ the cells' Python

  const figuresSettled = () =>
    new Promise((resolve) => {
      const settled = () => ["live", "failed", "outdated"].includes(html.dataset.figures);
      if (settled()) return resolve();
      const watch = new MutationObserver(() => {
        if (!settled()) return;
        watch.disconnect();
        resolve();
      });
      watch.observe(html, { attributes: true, attributeFilter: ["data-figures"] });
    });

  // Start the cells' worker (after the figures are live: they come first), from the page's
  // snapshot; one that cannot use it is replaced by one that starts the ordinary way.
  function startPython() {
    if (state.whenReady) return state.whenReady;
    state.python = "waiting";
    state.whenReady = figuresSettled().then(
      () =>
        new Promise((resolve, reject) => {
          state.python = "starting";
          const spawn = (snapshot) => {
            const worker = new Worker(config.urls.worker);
            state.worker = worker;
            worker.onmessage = ({ data }) => {
              if (worker !== state.worker) return;
              if (data.type === "ready") {
                state.python = "ready";
                resolve();
              } else if (data.type === "snapshot-unusable") {
                worker.terminate();
                spawn(false);
              } else if (data.type === "failed" || data.type === "outdated") {
                reject(new Error(data.reason || "a file of this page is gone: reload the page"));
              } else if (data.type === "cell-loading") {
                if (state.busy) setNote(state.busy, downloadingNote(data.packages));
              } else if (data.type === "cell-result") {
                finishRun(data);
              }
            };
            worker.onerror = (event) => {
              event.preventDefault();
              if (worker !== state.worker) return;
              const reason = event.message || "the Python worker could not run";
              if (state.python !== "ready") reject(new Error(reason));
              else finishRun({ fatal: reason });
            };
            worker.postMessage({ type: "start", ...config, snapshot, prerenderVisible: true });
          };
          spawn(config.snapshot || false);
        }),
    );
    state.whenReady.catch((err) => {
      state.python = "failed";
      for (const cell of state.cells) setNote(cell, `Python could not start: ${err.message}`);
    });
    return state.whenReady;
  }

  // End the cells' Python (a runaway cell) and start a fresh one; the figures' worker and
  // the reader's edits are untouched.
  function restartPython() {
    state.worker?.terminate();
    state.worker = null;
    state.whenReady = null;
    state.ranHere.clear();
    state.python = "off";
    startPython();
  }

  // ------------------------------------------------------------ running

  const capitalised = (text) => text.charAt(0).toUpperCase() + text.slice(1);

  const setNote = (cell, text) => {
    cell.note.textContent = text;
  };

  function showOutput(cell, text, kind) {
    cell.output.textContent = text;
    cell.output.hidden = !text;
    cell.output.dataset.state = kind;
  }

  // One cell-run of `code` (the cell's own by default): resolves with the worker's cell-result.
  function runInWorker(cell, { code = cell.code, fresh = cell.solo } = {}) {
    return new Promise((resolve) => {
      state.pending = { id: cell.id, resolve };
      const namespace = cell.solo ? cell.id : "page";
      state.worker.postMessage({ type: "cell-run", id: cell.id, code, namespace, fresh });
    });
  }

  function finishRun(result) {
    const pending = state.pending;
    state.pending = null;
    pending?.resolve(result);
  }

  // A cell that imports packages the figures do not use waits for their download; the page
  // says what it fetches and, once run, how much it was.
  const downloadingNote = (packages) =>
    `Downloading ${packages} for this cell: the figures do not use them, so the page did not load them…`;
  const downloadedNote = ({ packages, bytes }) =>
    `Downloaded ${packages} for this cell (${(bytes / 1e6).toFixed(1)} MB).`;

  function showResult(cell, { output, error, fatal }) {
    if (fatal) {
      showOutput(cell, `${output || ""}\nPython stopped: ${fatal}`.trim(), "error");
      return false;
    }
    showOutput(cell, [output, error].filter(Boolean).join("\n"), error ? "error" : "ok");
    return !error;
  }

  // Run `steps` for `cell` once the cells' Python is ready, one run at a time, with Stop shown.
  async function whileRunning(cell, steps) {
    if (state.busy) {
      setNote(cell, `${capitalised(state.busy.label)} is still running; Stop ends it.`);
      return;
    }
    state.busy = cell;
    cell.el.dataset.running = "true";
    cell.run.disabled = true;
    cell.stop.hidden = false;
    try {
      if (state.python !== "ready") {
        setNote(cell, "Waiting for the page's Python to start; the cell runs when it is ready…");
        await startPython();
      }
      setNote(cell, "Running…");
      await steps();
    } catch (err) {
      setNote(cell, `Could not run: ${err.message || err}`);
    } finally {
      state.busy = null;
      cell.el.dataset.running = "false";
      cell.run.disabled = false;
      cell.stop.hidden = true;
    }
  }

  // One step of a run; false when the run must end there (stopped, or Python lost).
  async function step(cell, shown, options) {
    const result = await runInWorker(shown, options);
    if (result.stopped) return null;
    if (result.fatal) {
      showResult(shown, result);
      setNote(cell, "Python stopped; it is starting again.");
      restartPython();
      return null;
    }
    return result;
  }

  // Run `cell`; a page cell first runs the earlier page cells this Python has not run, once.
  function run(cell) {
    return whileRunning(cell, async () => {
      const earlier = (c) => !c.solo && state.cells.indexOf(c) < state.cells.indexOf(cell);
      const before = cell.solo ? [] : state.cells.filter((c) => earlier(c) && !state.ranHere.has(c.id));
      let downloaded = null;
      for (const each of [...before, cell]) {
        const result = await step(cell, each);
        if (!result) return;
        downloaded ||= result.downloaded;
        if (!each.solo) state.ranHere.add(each.id);
        if (!showResult(each, result) && each !== cell) {
          setNote(cell, `${capitalised(each.label)}, which this one follows, failed first.`);
          return;
        }
      }
      setNote(cell, downloaded ? downloadedNote(downloaded) : "");
    });
  }

  // ------------------------------------------------------------ exercises

  // Run the exercise's code afresh, then its hidden check in the same namespace, which prints
  // ["pass" or "fail", one sentence].
  function check(exercise) {
    const { cell, el, verdict } = exercise;
    return whileRunning(cell, async () => {
      const ran = await step(cell, cell, { fresh: true });
      if (!ran) return;
      showResult(cell, ran);
      const checked = await step(cell, cell, { code: exercise.checkCode, fresh: false });
      if (!checked) return;
      let result = "fail";
      let sentence = "The check itself failed; the output above says why.";
      try {
        [result, sentence] = JSON.parse(checked.output.split("\n").pop());
      } catch {
        if (checked.error) showOutput(cell, checked.error, "error");
      }
      el.dataset.exerciseResult = result;
      verdict.textContent = sentence;
      setNote(cell, "");
    });
  }

  function toggle(button, shown, [hiddenName, shownName]) {
    const open = shown.hidden;
    shown.hidden = !open;
    button.setAttribute("aria-expanded", String(open));
    button.textContent = open ? shownName : hiddenName;
  }

  function stop(cell) {
    if (state.busy !== cell) return;
    finishRun({ stopped: true });
    restartPython();
    showOutput(cell, "Stopped: the cell ran until you stopped it.", "error");
    setNote(cell, "Stopped. Python is starting again; the figures were not affected.");
  }

  // The cell's code is now `code`: kept as an edit (or forgotten, if it is the original).
  function keepCode(cell, code) {
    cell.code = code;
    storeEdit(cell);
    markEdited(cell);
  }

  // The cell's code becomes `code`, in the editor or the static listing.
  function setCode(cell, code) {
    if (cell.editor) cell.editor.setCode(code);
    else cell.pre.firstElementChild.textContent = code;
    keepCode(cell, code);
  }

  function resetCell(cell) {
    cell.base = null;
    setCode(cell, cell.original);
    cell.pre.innerHTML = cell.originalHtml; // highlighted, as the build wrote it
    showOutput(cell, cell.originalOutput, "original");
    setNote(cell, "Back to the original code and output.");
    state.ranHere.delete(cell.id);
  }

  // ------------------------------------------------------------ a figure's try-it cell

  // The state figure `fig` shows, as {code} in Python (the page script asks the figures'
  // worker), or {code: null, why}.
  const figureCode = (fig) =>
    new Promise((resolve) => {
      fig.addEventListener("figure-code", (event) => resolve(event.detail), { once: true });
      fig.dispatchEvent(new CustomEvent("figure-code-wanted"));
    });

  // "Try it": the cell, with the figure's state now between the build's parts, opened in the
  // editor and run. Pressed again, it loads the figure's state again.
  async function tryIt({ fig, cell, parts, holder }) {
    holder.hidden = false;
    const { code, why } = await figureCode(fig);
    if (code !== null) {
      cell.base = parts.before + code + parts.after;
      setCode(cell, cell.base);
    }
    await edit(cell, { focus: true });
    await run(cell);
    if (code === null) setNote(cell, `No figure state (${why}): the cell keeps the state it had.`);
  }

  // ------------------------------------------------------------ the editor

  function loadEditor() {
    if (state.editorScript) return state.editorScript;
    state.editorScript = new Promise((resolve, reject) => {
      if (!config.urls.editor) return reject(new Error("this build has no editor"));
      const script = document.createElement("script");
      script.src = config.urls.editor;
      script.onload = () => resolve(window.cellEditor);
      script.onerror = () => reject(new Error("the editor could not be loaded"));
      document.head.append(script);
    });
    return state.editorScript;
  }

  // The cell's code becomes an editor (on the reader's first focus); its Python starts too.
  async function edit(cell, { focus }) {
    startPython();
    if (cell.editor) return;
    let api;
    try {
      api = await loadEditor();
    } catch (err) {
      setNote(cell, `${err.message}; the code can still be run as it is.`);
      return;
    }
    if (cell.editor) return;
    const holder = document.createElement("div");
    holder.className = "cell-editor";
    cell.pre.after(holder);
    cell.editor = api.create(holder, cell.code, {
      label: `Python code of ${cell.label}; Control+Enter runs it, Escape then Tab leaves`,
      onRun: () => run(cell),
      onChange: (code) => keepCode(cell, code),
    });
    cell.pre.hidden = true;
    if (focus) cell.editor.focus();
  }

  // ------------------------------------------------------------ wiring

  const edits = storedEdits();
  for (const cell of state.cells) {
    const saved = edits[cell.id];
    cell.code = saved && saved.original === cell.original ? saved.code : cell.original;
    if (cell.code !== cell.original) cell.pre.firstElementChild.textContent = cell.code;
    markEdited(cell);
    // The code block stays what it shows (a button's name would have to contain the code);
    // focusing it opens the editor, whose own name says what it is and how to leave.
    cell.pre.tabIndex = 0;
    cell.pre.addEventListener("focus", () => edit(cell, { focus: true }));
    cell.run.addEventListener("click", () => run(cell));
    cell.stop.addEventListener("click", () => stop(cell));
    cell.reset.addEventListener("click", () => resetCell(cell));
    cell.run.setAttribute("aria-label", `Run ${cell.label}`);
    cell.stop.setAttribute("aria-label", `Stop ${cell.label}`);
    cell.reset.setAttribute("aria-label", `Reset ${cell.label} to its original code`);
    cell.el.querySelector(".cell-bar").hidden = false;
  }
  for (const el of document.querySelectorAll("[data-exercise]")) {
    const exercise = {
      el,
      cell: state.cells.find((c) => el.contains(c.el)),
      verdict: el.querySelector("[data-exercise-verdict]"),
      checkCode: JSON.parse(el.querySelector("[data-exercise-check-code]").textContent),
    };
    const hint = el.querySelector("[data-exercise-hint]");
    const solution = el.querySelector("[data-exercise-solution]");
    el.querySelector("[data-exercise-check]").addEventListener("click", () => check(exercise));
    hint.addEventListener("click", () =>
      toggle(hint, el.querySelector("[data-exercise-hint-text]"), ["Hint", "Hide hint"]),
    );
    solution.addEventListener("click", () =>
      toggle(solution, el.querySelector("[data-exercise-solution-code]"), [
        "Show solution",
        "Hide solution",
      ]),
    );
    el.querySelector(".exercise-bar").hidden = false;
  }
  for (const el of document.querySelectorAll("[data-tryit]")) {
    const tryit = {
      fig: el.closest("[data-figure]"),
      cell: state.cells.find((c) => el.contains(c.el)),
      parts: JSON.parse(el.querySelector("[data-tryit-parts]").textContent),
      holder: el.querySelector("[data-tryit-cell]"),
    };
    const open = el.querySelector("[data-tryit-open]");
    open.addEventListener("click", () => tryIt(tryit));
    open.hidden = false;
  }
  html.dataset.cells = "ready";
})();
