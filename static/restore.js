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
  const restoreInstantiation = keepingIdentityOfLibraries();
  try {
    await loadLibraries(M, snap, handle);
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

async function loadLibraries(M, snap, handle) {
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

// Pyodide's main module, instantiated by `instantiateWasm`: its exports keep their slots
// before Emscripten reads them. The module keeps this function for good, so it is made here,
// where it closes over nothing of the start (whose downloads it would keep).
function keepingIdentityOfMain(instantiateWasm) {
  return (imports, received) =>
    instantiateWasm(imports, (instance, module) => {
      keepIdentity(instance, imports);
      return received(instance, module);
    });
}

// Add a step to the next module Pyodide creates, run once its WebAssembly instance exists and
// before Pyodide restores the heap into it. Returns a promise that rejects if the step fails.
function beforeRestore(hook) {
  const create = self._createPyodideModule;
  return new Promise((_, reject) => {
    self._createPyodideModule = (settings) => {
      self._createPyodideModule = create;
      if (!Array.isArray(settings.preRun)) throw new Error("Pyodide's settings have no preRun");
      if (settings.instantiateWasm) {
        settings.instantiateWasm = keepingIdentityOfMain(settings.instantiateWasm);
      }
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

// Where the heap starts in a Pyodide snapshot (a Uint8Array): its header's second u32.
function heapOffset(snapshot) {
  return new DataView(snapshot.buffer, snapshot.byteOffset).getUint32(4, true);
}

// Pyodide restores the heap by copying all of it into Python's new memory, which makes the
// system back every page of it, where a page never written takes no memory; half the
// heap is pages of zeros. So the copy writes only the pages that differ from what the memory
// holds (zeros, or what the libraries' relinking wrote). Pyodide's snapshot is a header and
// metadata, then the heap from the offset the header's second u32 gives: Pyodide reads the
// part before that offset, the heap is copied here, and anything unexpected copies it whole.
function restoreOnlyWhatDiffers(M) {
  const restore = M.API.restoreSnapshot;
  M.API.restoreSnapshot = (snapshot) => {
    const start = heapOffset(snapshot);
    const heap = snapshot.subarray(start);
    const aligned = (snapshot.byteOffset + start) % 4 === 0 && start % 4 === 0;
    if (!aligned || heap.length !== M.HEAPU8.length) return restore(snapshot);
    const metadata = restore(snapshot.subarray(0, start));
    writeChangedPages(heap, M.HEAPU8);
    return metadata;
  };
}

// The snapshot as sitebuild/heap.py's `packed` shipped it, `size` bytes again: its header
// and metadata, one bit per page of the heap (bit i of byte i >> 3: page i follows), then
// those pages. The pages left out were zeros, which a new buffer holds without the system
// backing them, so unpacking half the heap is all the decoding there is.
function unpackedSnapshot(packed, size) {
  const start = heapOffset(packed);
  const count = (size - start) / PAGE;
  const fails = () => new Error(`the saved state does not unpack to ${size} bytes`);
  if (!Number.isInteger(count) || count < 0) throw fails();
  const bits = packed.subarray(start, start + Math.ceil(count / 8));
  const snapshot = new Uint8Array(size);
  snapshot.set(packed.subarray(0, start));
  let from = start + bits.length;
  for (let page = 0; page < count; page++) {
    if (bits[page >> 3] & (1 << (page & 7))) {
      snapshot.set(packed.subarray(from, from + PAGE), start + page * PAGE);
      from += PAGE;
    }
  }
  if (from !== packed.length) throw fails();
  letGo(packed);
  return snapshot;
}

// The heap ships its static data (what Pyodide's WebAssembly starts its memory with, much of
// it unchanged once Python ran) XORed with those bytes as the WebAssembly holds them, which
// the worker downloads anyway: mostly zeros, so it costs few bytes. Undo that, in place, once
// both are unpacked (`where`: {at, bytes, base}, as sitebuild/heap.py's static_data says;
// null if the heap was saved whole). Resolves to the snapshot.
async function withStaticData(snapshot, module, where) {
  if (!where) return snapshot;
  const [saved, wasm] = await Promise.all([snapshot, module]);
  const { at, bytes, base } = where;
  const start = heapOffset(saved) + base;
  if (start + bytes > saved.length || at + bytes > wasm.length) {
    throw new Error(`the saved state has no ${bytes} bytes of static data at ${base}`);
  }
  const heap = saved.subarray(start, start + bytes);
  const segment = wasm.subarray(at, at + bytes);
  for (let i = 0; i < bytes; i++) heap[i] ^= segment[i];
  return saved;
}

const PAGE = 4096; // bytes: the unit a system backs memory in

// Copy `source` into `target` (Uint8Arrays of one length, a multiple of 4, each on a 4-byte
// boundary), writing only the pages that differ. Returns how many it wrote.
function writeChangedPages(source, target) {
  const from = new Int32Array(source.buffer, source.byteOffset, source.length / 4);
  const to = new Int32Array(target.buffer, target.byteOffset, target.length / 4);
  const words = PAGE / 4;
  let written = 0;
  for (let page = 0; page < from.length; page += words) {
    const end = Math.min(page + words, from.length);
    let word = page;
    while (word < end && from[word] === to[word]) word++;
    if (word < end) {
      to.set(from.subarray(page, end), page);
      written++;
    }
  }
  return written;
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
  // Pyodide writes what it fetches for these into its file system; the heap needs none of
  // them until an import it cannot serve, which fetches them first (deferLater, below).
  for (const later of snap.later) unpacked.set(indexURL + later.file, Promise.resolve(EMPTY));
  const files = unpack(decoder, bundle, snap.filesBytes, "the files bundle");
  const shipped = unpack(decoder, joined(parts), snap.stateBytes, "the saved state");
  const heap = withStaticData(
    shipped.then((packed) => unpackedSnapshot(packed, snap.snapshotBytes)),
    snap.staticData && unpacked.get(indexURL + snap.staticData.file),
    snap.staticData,
  );
  heap.then(() => progress(2, "restoring Python, numpy and the figures"), () => {});
  // Each failure is reported where the unpacked bytes are awaited (the race below, or the
  // step before the restore); one that fails before anything awaits it, or after the start
  // has failed of another cause, must not surface as an unhandled rejection.
  [...unpacked.values(), files].forEach((u) => u.catch(() => {}));
  const relinked = beforeRestore(async (M) => {
    restoreOnlyWhatDiffers(M);
    writeFiles(M.FS, await files, config.sitePackages); // copies them
    letGo(await files);
    await relink(M, snap);
  });
  // Pyodide asks for its WebAssembly at once and waits for the heap to create it.
  const pyodide = await withUnpacked(unpacked, () =>
    Promise.race([
      loadPyodide({
        indexURL,
        lockFileURL,
        _loadSnapshot: heap,
      }),
      wasmFailure(),
      relinked,
      Promise.all(unpacked.values()).then(() => new Promise(() => {})), // rejects on a failure
    ]),
  );
  // What was unpacked is in Python's memory and file system now, and the WebAssembly compiled;
  // Pyodide keeps the heap it was given for good (its config holds the promise).
  letGo(await heap);
  for (const p of packed) letGo(await unpacked.get(indexURL + p.file));
  deferLater(pyodide, await decoder, snap.later);
  // The heap holds these packages (numpy, the project): loading one again for a cell's import
  // would download its wheel and unpack it over the modules in use.
  for (const name of snap.held) pyodide.loadedPackages[name] = "default channel";
  return pyodide;
}
