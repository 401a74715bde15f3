// Make the site's Pyodide memory snapshot at build time, in Node:
//
//   node snapshot.js '{"runtime": DIR, "unpacked": DIR, "sitePackages": PATH, "figures": [...],
//                      "pyodide": "0.27.7", "out": FILE.bin, "meta": FILE.json}'
//
// "unpacked" holds the unpacked wheels on disk; "sitePackages" is where Pyodide imports them
// from, the same path the page config gives the browser worker.
//
// It starts Pyodide, writes the unpacked wheels into its file system, loads the numpy shared
// libraries the figures import (found by drawing them once in another Python), draws every
// figure of the site ("figures") as the browser worker would draw a page's
// (worker.live.start) and saves the whole WebAssembly heap (sitebuild/snapshot.py compresses
// it). Each page's worker restores that heap instead of starting Python, importing numpy and
// the figures and drawing them, and keeps its own page's figures.
//
// A heap is only meaningful with the shared libraries back at the addresses they had, so the
// metadata records, for each library in load order, where its memory and function-table
// slots were; the worker re-links them there before restoring. Pyodide's snapshot API is
// private and tied to one build: the version is checked here and the build id by Pyodide.
"use strict";
const fs = require("fs");
const path = require("path");

const args = JSON.parse(process.argv[2]);
// A browser adds a function or two to the table at start-up that Node does not: leave room,
// so that the libraries' slots are free in both.
const TABLE_ROOM = 64;

// The heap may hold no JavaScript object: the worker's Python keeps none between calls.
function serializeJs(value) {
  throw new Error(`cannot save a JavaScript object in the snapshot: ${String(value).slice(0, 80)}`);
}

function writeTree(FS, from, to, found) {
  for (const entry of fs.readdirSync(from, { withFileTypes: true }).sort(byName)) {
    const src = path.join(from, entry.name);
    const dst = `${to}/${entry.name}`;
    if (entry.isDirectory()) {
      FS.mkdirTree(dst);
      writeTree(FS, src, dst, found);
    } else {
      FS.writeFile(dst, fs.readFileSync(src));
      if (entry.name.endsWith(".so")) found.push(dst);
    }
  }
}

const byName = (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

// Load each library with a handle whose record Emscripten fills in with its memory base and
// table base: that record is what the worker replays.
async function loadLibraries(M, names) {
  const libs = [];
  for (const name of names) {
    const handle = M.___libc_calloc(1, 64);
    const flags = { loadAsync: true, nodelete: true, allowUndefined: true, global: false, fs: M.FS };
    await M.loadDynamicLibrary(name, flags, {}, handle);
    libs.push({
      name,
      memoryBase: M.HEAPU32[(handle + 12) >> 2],
      tableBase: M.HEAPU32[(handle + 20) >> 2],
    });
    M.LDSO.loadedLibsByName[path.basename(name)] ||= M.LDSO.loadedLibsByName[name];
  }
  return libs;
}

// Python imports an extension module through C's dlopen, which reads the library's file into
// memory for JavaScript to load (JavaScript finds it loaded already, by loadLibraries) and,
// in a build without threads, never frees that copy: 7 MB of numpy's libraries that the heap
// would hold. Emscripten's record of each library keeps it at offsets 28 (where) and 32
// (bytes); free them.
function freeLibraryFiles(M) {
  for (const handle of Object.keys(M.LDSO.loadedLibsByHandle).map(Number)) {
    const copy = M.HEAPU32[(handle + 28) >> 2];
    if (copy) M._free(copy);
    M.HEAPU32.fill(0, (handle + 28) >> 2, (handle + 36) >> 2);
  }
}

// Freed memory still holds what was there (mostly the objects Python built and dropped while
// importing): allocate every free block malloc has, without growing the heap, fill it with
// zeros and free it again, so that the saved heap compresses better. Python's own free lists
// inside its arenas are not reached.
function zeroFreeMemory(M) {
  const footprint = M._malloc_footprint();
  M._malloc_set_footprint_limit(footprint); // malloc fails rather than growing the heap
  const blocks = [];
  for (let size = 1 << 24; size >= 64; size >>= 1) {
    for (let p = M.___libc_malloc(size); p !== 0; p = M.___libc_malloc(size)) {
      M.HEAPU8.fill(0, p, p + size);
      blocks.push(p);
    }
  }
  blocks.forEach((p) => M.___libc_free(p));
  M._malloc_set_footprint_limit(-1); // no limit, as before
  if (M._malloc_footprint() !== footprint) throw new Error("zeroing free memory grew the heap");
}

// Pyodide with the unpacked wheels written into its file system; the paths of numpy's
// libraries there.
async function startPython(settings) {
  const { loadPyodide } = require(path.join(args.runtime, "pyodide.js"));
  const pyodide = await loadPyodide({ indexURL: `${args.runtime}/`, ...settings });
  if (pyodide.version !== args.pyodide) {
    throw new Error(`snapshots need Pyodide ${args.pyodide}, the runtime is ${pyodide.version}`);
  }
  const libraries = [];
  writeTree(pyodide.FS, args.unpacked, args.sitePackages.replace(/\/$/, ""), libraries);
  return { pyodide, libraries };
}

// Draw every figure of the site, as a worker does. Returns what Python then held from
// site-packages: {modules: its modules' files, under it; libraries: the shared libraries its
// extension modules are, by path}.
function drawFigures(pyodide) {
  pyodide.globals.set("figure_ids", pyodide.toPy(args.figures));
  const held = pyodide.runPython(`
import importlib, json, sys
importlib.invalidate_caches()
# cells: a cells' worker restores this heap too; deferred: every worker installs it on restore
from worker import cells, deferred, live
live.start(figure_ids)
live.forget_caches()
site = "${args.sitePackages}"
files, libraries = set(), set()
for mod in list(sys.modules.values()):
    for name in (getattr(mod, "__file__", None), getattr(mod, "__cached__", None)):
        if isinstance(name, str) and name.startswith(site):
            if name.endswith(".so"):
                libraries.add(name)
            else:
                files.add(name[len(site):])
del figure_ids
import gc; gc.collect()
json.dumps({"modules": sorted(files), "libraries": sorted(libraries)})
`);
  return JSON.parse(held);
}

async function main() {
  // A first Python finds which of numpy's libraries the figures import (its imports load each
  // one as they reach it); the heap is made in a second, which loads those alone beforehand:
  // a worker relinks no library its figures never call, and a reader's cell that imports
  // another loads it then, from the files only an import opens.
  const probe = await startPython({});
  const imported = drawFigures(probe.pyodide).libraries;
  const { pyodide, libraries } = await startPython({ _makeSnapshot: true });
  const M = pyodide._module;
  const needed = ["loadDynamicLibrary", "wasmTable", "LDSO", "___libc_calloc", "HEAPU32",
    "___libc_malloc", "___libc_free", "_malloc_footprint", "_malloc_set_footprint_limit",
    "___memory_base", "_free"];
  for (const name of needed) {
    if (!(name in M)) throw new Error(`Pyodide ${pyodide.version} has no Module.${name}`);
  }
  M.wasmTable.grow(TABLE_ROOM);
  const libs = await loadLibraries(M, libraries.filter((name) => imported.includes(name)));
  const tableAfterLibs = M.wasmTable.length;
  const held = drawFigures(pyodide);
  // A library loaded by an import, after those above, would be in the heap but not relinked.
  const recorded = new Set(libs.map((lib) => lib.name));
  const unrecorded = Object.keys(M.LDSO.loadedLibsByName)
    .filter((name) => name.startsWith("/") && !recorded.has(name));
  if (unrecorded.length) {
    throw new Error(`the figures loaded libraries the first drawing did not: ${unrecorded}`);
  }
  // Pyodide's list of loaded packages must be empty in a snapshot; nothing was loaded through it.
  for (const key of Object.keys(pyodide.loadedPackages)) delete pyodide.loadedPackages[key];
  freeLibraryFiles(M);
  zeroFreeMemory(M);
  const heap = pyodide.makeMemorySnapshot({ serializer: serializeJs });
  fs.writeFileSync(args.out, heap);
  const meta = {
    pyodide: pyodide.version,
    heapBytes: heap.length,
    memoryBase: M.___memory_base.value, // where the main module's data segment went
    tableAfterLibs,
    libs,
    imported: held.modules,
  };
  fs.writeFileSync(args.meta, JSON.stringify(meta));
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`snapshot failed: ${err && err.message ? err.message : err}`);
    process.exit(1);
  },
);
