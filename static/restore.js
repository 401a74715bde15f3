// The snapshot start of the page's worker (static/worker.js loads this script, after zstd.js,
// only for that start): download the site's memory snapshot and what it does not hold, unpack
// them as they arrive, re-link numpy's libraries where they were, have Pyodide restore the
// heap, and keep this page's figures of the site's document. Whatever fails here rejects, and
// the worker tells the page to start again the ordinary way.
//
// It shares the worker's global scope: it calls the worker's progress, importOrGone, runtime,
// pyodideScripts and wasmFailure.
async function download(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return response;
}

// The heap's parts (promised responses, in order) as one body. Every part is read to the end
// as soon as it arrives, and handed on in order: read only in its turn, a part would hold its
// connection meanwhile, and over HTTP/1.1 a browser keeps only six to a host, so the parts
// after it and Pyodide's scripts would wait on a stalled one.
function joined(responses) {
  const parts = responses.map((response) => response.then((r) => r.arrayBuffer()));
  parts.forEach((part) => part.catch(() => {})); // a failure is reported in its turn, below
  let next = 0;
  const body = new ReadableStream({
    async pull(controller) {
      if (next === parts.length) return controller.close();
      controller.enqueue(new Uint8Array(await parts[next++]));
    },
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

// The files of a bundle (see sitebuild/bundle.py's pack for its layout): [path, bytes] each,
// the path under site-packages.
function bundleEntries(bundle) {
  const n = new DataView(bundle.buffer, bundle.byteOffset).getUint32(0, true);
  const index = JSON.parse(new TextDecoder().decode(bundle.subarray(4, 4 + n)));
  const start = 4 + n;
  return index.map(([rel, at, size]) => [rel, bundle.subarray(start + at, start + at + size)]);
}

// Write the bundle of files the heap does not hold under Pyodide's site-packages directory
// (with its trailing slash).
function writeFiles(FS, bundle, sitePackages) {
  for (const [rel, bytes] of bundleEntries(bundle)) {
    const path = sitePackages + rel;
    FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
    FS.writeFile(path, bytes);
  }
}

// numpy's libraries compiled from the bundle, all at once and as soon as it is unpacked, while
// the heap still unpacks (the relinking would compile them one by one, after it):
// path -> {size, module: promise of the WebAssembly.Module}.
function compileLibraries(bundle, libs, sitePackages) {
  const wanted = new Set(libs.map((lib) => lib.name));
  const compiled = new Map();
  for (const [rel, bytes] of bundleEntries(bundle)) {
    const path = sitePackages + rel;
    if (!wanted.has(path)) continue;
    const module = WebAssembly.compile(bytes); // copies them
    module.catch(() => {}); // a failure is reported when the library is loaded
    compiled.set(path, { size: bytes.length, module });
  }
  return compiled;
}

// Run `load`, in which Emscripten instantiates one library from its bytes: from `compiled`
// ({size, module}, from compileLibraries) instead, if its bytes are that many.
async function withCompiled(compiled, load) {
  const { instantiate } = WebAssembly;
  if (compiled) {
    WebAssembly.instantiate = async (source, imports) => {
      if (source.byteLength !== compiled.size) return instantiate(source, imports);
      WebAssembly.instantiate = instantiate;
      const module = await compiled.module;
      return { module, instance: await instantiate(module, imports) };
    };
  }
  try {
    return await load();
  } finally {
    WebAssembly.instantiate = instantiate;
  }
}

// Load numpy's shared libraries where they were when the snapshot was made. Emscripten reuses
// the memory and table bases found in a library's handle record (offsets 8, 12, 20), so each
// one is loaded through a scratch record holding the saved bases. Runs before the heap is
// restored, which then overwrites the scratch record and whatever the libraries initialised.
// `compiled`: the libraries compiled already (compileLibraries).
async function relink(M, snap, compiled) {
  if (M.wasmTable.length > snap.libs[0].tableBase) {
    throw new Error("this browser's function table does not leave the libraries' slots free");
  }
  const handle = M.HEAPU8.length - 64;
  const restoreInstantiation = keepingIdentityOfLibraries();
  try {
    await loadLibraries(M, snap, handle, compiled);
  } finally {
    restoreInstantiation();
  }
  if (M.wasmTable.length !== snap.tableAfterLibs) {
    throw new Error(`the libraries took ${M.wasmTable.length} table slots, not ${snap.tableAfterLibs}`);
  }
  // Loaded, a library's file is read no more (a later dlopen finds it by name among those
  // loaded), so its bytes go; the file stays, for Python's import system to find.
  for (const lib of snap.libs) M.FS.truncate(lib.name, 0);
}

async function loadLibraries(M, snap, handle, compiled) {
  for (const lib of snap.libs) {
    M.HEAPU8.fill(0, handle, handle + 64);
    M.HEAPU8[handle + 8] = 1;
    M.HEAPU32[(handle + 12) >> 2] = lib.memoryBase;
    M.HEAPU32[(handle + 20) >> 2] = lib.tableBase;
    const flags = { loadAsync: true, nodelete: true, allowUndefined: true, global: false, fs: M.FS };
    await withCompiled(compiled.get(lib.name), () =>
      M.loadDynamicLibrary(lib.name, flags, {}, handle),
    );
    delete M.LDSO.loadedLibsByHandle[handle];
    const name = lib.name.slice(lib.name.lastIndexOf("/") + 1);
    M.LDSO.loadedLibsByName[name] ||= M.LDSO.loadedLibsByName[lib.name];
  }
}

// WebKit hands out a function read back from a wasm table as a new object, not the one its
// instance exports (Chromium and Firefox hand out the same one). Emscripten finds a function's
// slot by that object, so in WebKit every export it looks up would take a second slot, on the
// slots the snapshot's libraries must return to. Whether this engine does so:
const tableLosesIdentity = (() => {
  // (module (func) (table 1 funcref) (elem (i32.const 0) 0) (export "f" (func 0))
  //  (export "t" (table 0)))
  const bytes = [0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0, 4, 4, 1, 112, 0, 1,
    7, 9, 2, 1, 102, 0, 0, 1, 116, 1, 0, 9, 7, 1, 0, 65, 0, 11, 1, 0, 10, 4, 1, 2, 0, 11];
  const { f, t } = new WebAssembly.Instance(new WebAssembly.Module(new Uint8Array(bytes))).exports;
  return t.get(0) !== f;
})();

// Put an instance's exported functions back into the slots its element segments filled, as
// the very objects it exports. A wasm function's name is its index in its module, so a slot
// from this instance's base up holding a function of an exported function's name holds that
// function.
function keepIdentity(instance, imports) {
  const env = imports?.env;
  const table = env?.__indirect_function_table;
  if (!tableLosesIdentity || !(table instanceof WebAssembly.Table)) return;
  const base = env.__table_base;
  const start = base instanceof WebAssembly.Global ? base.value : Number(base) || 0;
  const exported = new Map();
  for (const value of Object.values(instance.exports)) {
    if (typeof value === "function") exported.set(value.name, value);
  }
  for (let i = start; i < table.length; i++) {
    const entry = table.get(i);
    const own = entry && /^\d+$/.test(entry.name) && exported.get(entry.name);
    if (own && own !== entry) table.set(i, own);
  }
}

// Keep identity for every library instantiated until the returned function is called (Emscripten
// instantiates a library with either of these two).
function keepingIdentityOfLibraries() {
  if (!tableLosesIdentity) return () => {};
  const { Instance, instantiate } = WebAssembly;
  WebAssembly.Instance = new Proxy(Instance, {
    construct(target, args) {
      const instance = Reflect.construct(target, args);
      keepIdentity(instance, args[1]);
      return instance;
    },
  });
  WebAssembly.instantiate = async (source, imports) => {
    const result = await instantiate(source, imports);
    keepIdentity(result.instance ?? result, imports);
    return result;
  };
  return () => Object.assign(WebAssembly, { Instance, instantiate });
}

// Pyodide's main module, instantiated from `compiled` (a promised WebAssembly.Module) in place
// of Pyodide's own instantiateWasm; its exports keep their slots before Emscripten reads them.
// A failure goes to `fail`. The module keeps this function for good, so it is made here, where
// it closes over nothing of the start (whose downloads it would keep).
function instantiatingMain(compiled, fail) {
  return (imports, received) => {
    compiled
      .then(async (module) => {
        const instance = await WebAssembly.instantiate(module, imports);
        keepIdentity(instance, imports);
        received(instance, module);
      })
      .catch(fail);
    return {}; // Emscripten's sign that the instance comes later, through `received`
  };
}

// Have the next module Pyodide creates instantiate its WebAssembly from `compiled`, and add a
// step to it, run once that instance exists and before Pyodide restores the heap into it.
// Returns a promise that rejects if either fails.
function beforeRestore(compiled, hook) {
  const create = self._createPyodideModule;
  return new Promise((_, reject) => {
    self._createPyodideModule = (settings) => {
      self._createPyodideModule = create;
      if (!Array.isArray(settings.preRun)) throw new Error("Pyodide's settings have no preRun");
      settings.instantiateWasm = instantiatingMain(compiled, reject);
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
// Python reads them (worker/deferred.py): a file at `into`, or a bundle of files unpacked
// under `into` if it ends with "/". An import cannot wait for a promise, so the download is
// synchronous, which a worker may do.
function deferLater(pyodide, decoder, later) {
  const fetchLater = (name) => {
    console.info(`python: downloading the files left for later, for the import of ${name}`);
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
  pyodide.pyimport("worker.deferred").install(fetchLater);
}

// Pyodide fetches its WebAssembly and its standard library itself: while it starts, answer
// those requests with the bytes in `answers` (url -> promise of the bytes).
async function withAnswers(answers, run) {
  const fetch = self.fetch;
  self.fetch = (url, init) => {
    const bytes = answers.get(String(url));
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

// Where the heap starts in a Pyodide snapshot (a Uint8Array): its header's second u32.
function heapOffset(snapshot) {
  return new DataView(snapshot.buffer, snapshot.byteOffset).getUint32(4, true);
}

// Pyodide restores the heap by copying all of it into Python's new memory, which makes the
// system back every page of it, where a page never written takes no memory. So Pyodide is
// given the snapshot's header and metadata alone (`headerOnly`), and the heap is written here
// from the form the build shipped it in (`writeShippedHeap`). Pyodide's snapshot is a header
// and metadata, then the heap from the offset the header's second u32 gives: Pyodide reads the
// part before that offset. `shipped` is the heap as sitebuild/heap.py packed it; `staticData`
// is null, or the bytes its static data was XORed with and where they go (`staticSegment`);
// `size` the whole snapshot's bytes.
function restoreFromShipped(M, shipped, size, staticData) {
  const restore = M.API.restoreSnapshot;
  M.API.restoreSnapshot = (snapshot) => {
    const metadata = restore(snapshot.subarray(0, heapOffset(snapshot)));
    const heap = size - heapOffset(shipped);
    if (heap !== M.HEAPU8.length) {
      throw new Error(`the saved heap is ${heap} bytes, Python's memory ${M.HEAPU8.length}`);
    }
    writeShippedHeap(shipped, M.HEAPU8, staticData);
    return metadata;
  };
}

// What Pyodide is given to restore: `size` bytes, as many as the whole snapshot, for it sizes
// Python's memory by them, but only the header and metadata of `shipped` written; the rest is
// zeros that the system does not back.
function headerOnly(shipped, size) {
  const snapshot = new Uint8Array(size);
  snapshot.set(shipped.subarray(0, heapOffset(shipped)));
  return snapshot;
}

// The heap ships its static data (what Pyodide's WebAssembly starts its memory with, much of
// it unchanged once Python ran) XORed with those bytes as the WebAssembly holds them, which
// the worker downloads anyway: mostly zeros, so it costs few bytes. `where` ({at, bytes, base},
// as sitebuild/heap.py's static_data says; null if the heap was saved whole) says where they
// lie in `wasm` and in the heap. -> {segment, base}, or null.
function staticSegment(wasm, where) {
  if (!where) return null;
  const { at, bytes, base } = where;
  if (at + bytes > wasm.length) {
    throw new Error(`the WebAssembly has no ${bytes} bytes of static data at ${at}`);
  }
  return { segment: wasm.subarray(at, at + bytes), base };
}

const PAGE = 4096; // bytes: the unit a system backs memory in

// Write into `target` (Python's memory) the heap that `shipped` packs: after its header and
// metadata, one bit per page of the heap (bit i of byte i >> 3: page i follows), then those
// pages; a page left out was zeros. Where `staticData` lies, each page is XORed with it back.
// Only the pages that differ from what `target` holds (zeros, the static data, what the
// libraries' relinking wrote) are written. Returns how many were.
function writeShippedHeap(shipped, target, staticData) {
  const start = heapOffset(shipped);
  const count = target.length / PAGE;
  const fails = (why) => new Error(`the saved state does not fit Python's memory: ${why}`);
  if (!Number.isInteger(count)) throw fails(`${target.length} bytes are not whole pages`);
  const { segment, base } = staticData ?? { segment: EMPTY, base: 0 };
  if (base + segment.length > target.length) throw fails(`no static data at ${base}`);
  const bits = shipped.subarray(start, start + Math.ceil(count / 8));
  const page = new Uint8Array(PAGE);
  const words = new Int32Array(page.buffer);
  const memory = new Int32Array(target.buffer, target.byteOffset, count * (PAGE / 4));
  let from = start + bits.length;
  let written = 0;
  for (let p = 0; p < count; p++) {
    const at = p * PAGE;
    const a = Math.max(at, base);
    const b = Math.min(at + PAGE, base + segment.length);
    const here = bits[p >> 3] & (1 << (p & 7));
    if (!here && a >= b) {
      // zeros: only a page that holds something now is written
      if (!allZero(memory, at / 4)) {
        target.fill(0, at, at + PAGE);
        written++;
      }
      continue;
    }
    if (here) {
      if (from + PAGE > shipped.length) throw fails(`it is cut short at page ${p}`);
      page.set(shipped.subarray(from, from + PAGE));
      from += PAGE;
      for (let i = a; i < b; i++) page[i - at] ^= segment[i - base];
    } else {
      page.fill(0); // the static data unchanged, XORed to zeros
      page.set(segment.subarray(a - base, b - base), a - at);
    }
    if (differs(words, memory, at / 4)) {
      target.set(page, at);
      written++;
    }
  }
  if (from !== shipped.length) throw fails(`${shipped.length - from} bytes are left over`);
  return written;
}

// Whether the page of `memory` (an Int32Array) from word `at` is zeros.
function allZero(memory, at) {
  for (let i = at; i < at + PAGE / 4; i++) if (memory[i] !== 0) return false;
  return true;
}

// Whether `words` (a page, as an Int32Array) differs from `memory`'s page from word `at`.
function differs(words, memory, at) {
  for (let i = 0; i < words.length; i++) if (words[i] !== memory[at + i]) return true;
  return false;
}

// Free the memory of `bytes` (a Uint8Array over a buffer of its own) now, whoever still holds
// it: its buffer is emptied for every reference. Transferring to a new length frees the old
// memory at once; a clone that takes the buffer frees it at the next garbage collection.
function letGo(bytes) {
  const { buffer } = bytes;
  if (buffer.transfer) buffer.transfer(0);
  else structuredClone(buffer, { transfer: [buffer] });
}

// Restore the snapshot `config.snapshot` describes; returns the Pyodide it restored.
// `untilPrerenderVisible` resolves when the page has drawn the figures on the reader's screen.
async function restoreSnapshot(config, untilPrerenderVisible) {
  const snap = config.snapshot;
  const { indexURL, lockFileURL } = runtime(config.urls);
  progress(1, "downloading Python and the saved state of this page's figures");
  // Pyodide's scripts first, into the HTTP cache (read to the end, or the cache would not keep
  // them) for importScripts below. It blocks this thread, which then reads no download's body:
  // had it to fetch a script itself, the downloads could hold every connection it might use.
  const scripts = pyodideScripts(config.urls);
  const cached = scripts.map((url) => fetch(url).then((r) => r.arrayBuffer()).catch(() => {}));
  const decoder = zstdDecoder(download(snap.decoder));
  const bundle = download(snap.files);
  const parts = snap.state.map(download); // the heap, in parts the HTTP cache keeps
  const packed = snap.packed.map((p) => ({ ...p, download: download(p.url) }));
  // Each failure is reported when its download is unpacked, below.
  [decoder, bundle, ...parts, ...packed.map((p) => p.download)].forEach((d) => d.catch(() => {}));
  // Unpacking and restoring take a core each: let the page draw its pre-render first.
  await untilPrerenderVisible;
  await Promise.all(cached);
  await importOrGone(...scripts);
  const unpacked = new Map(
    packed.map((p) => [indexURL + p.file, unpack(decoder, p.download, p.bytes, p.file)]),
  );
  // Pyodide would compile its WebAssembly only once it has the heap (it awaits the heap before
  // it creates its module): compiled here as soon as it is unpacked, it compiles while the heap
  // still unpacks, and Pyodide's own request for it is answered with nothing.
  const wasmURL = indexURL + "pyodide.asm.wasm";
  const main = unpacked.get(wasmURL).then((bytes) => WebAssembly.compile(bytes));
  const answers = new Map([...unpacked, [wasmURL, Promise.resolve(EMPTY)]]);
  // Pyodide writes what it fetches for these into its file system; the heap needs none of
  // them until an import it cannot serve, which fetches them first (deferLater, below).
  for (const later of snap.later) answers.set(indexURL + later.file, Promise.resolve(EMPTY));
  const files = unpack(decoder, bundle, snap.filesBytes, "the files bundle");
  const libraries = files.then((f) => compileLibraries(f, snap.libs, config.sitePackages));
  const shipped = unpack(decoder, joined(parts), snap.stateBytes, "the saved state");
  const heap = shipped.then((s) => headerOnly(s, snap.snapshotBytes)); // what Pyodide is given
  heap.then(() => progress(2, "restoring Python, numpy and the figures"), () => {});
  // Each failure is reported where the unpacked bytes are awaited (the race below, or the
  // step before the restore); one that fails before anything awaits it, or after the start
  // has failed of another cause, must not surface as an unhandled rejection.
  [...unpacked.values(), main, files, libraries].forEach((u) => u.catch(() => {}));
  const relinked = beforeRestore(main, async (M) => {
    const wasm = snap.staticData && (await unpacked.get(indexURL + snap.staticData.file));
    const statics = staticSegment(wasm, snap.staticData);
    restoreFromShipped(M, await shipped, snap.snapshotBytes, statics);
    writeFiles(M.FS, await files, config.sitePackages); // copies them
    const compiled = await libraries; // which copied them too
    letGo(await files);
    await relink(M, snap, compiled);
  });
  const pyodide = await withAnswers(answers, () =>
    Promise.race([
      loadPyodide({
        indexURL,
        lockFileURL,
        _loadSnapshot: heap,
      }),
      wasmFailure(),
      relinked,
      Promise.all([...unpacked.values(), main]).then(() => new Promise(() => {})), // or fails
    ]),
  );
  // What was unpacked is in Python's memory and file system now, and the WebAssembly compiled;
  // Pyodide keeps the heap it was given for good (its config holds the promise).
  letGo(await heap);
  letGo(await shipped);
  for (const p of packed) letGo(await unpacked.get(indexURL + p.file));
  deferLater(pyodide, await decoder, snap.later);
  // The heap holds these packages (numpy, the project): loading one again for a cell's import
  // would download its wheel and unpack it over the modules in use.
  for (const name of snap.held) pyodide.loadedPackages[name] = "default channel";
  return pyodide;
}
