"""static/restore.js's copy of the heap into Python's memory, run in Node: the static data the
build XORed is put back, only the pages that differ are written, and Pyodide is left to read
the snapshot's header and metadata."""

import json
import random
import shutil
import subprocess
from pathlib import Path

from sitebuild import heap
from tests.sitebuild.test_heap import snapshot_with_static_data

RESTORE = Path(__file__).parents[2] / "static" / "restore.js"

# Loads restore.js as the worker does (a classic script sharing one global scope), then runs
# the test's own lines, which print one JSON value.
HARNESS = """
const vm = require("vm");
const fs = require("fs");
const context = vm.createContext({ WebAssembly, DataView, Int32Array, Uint8Array, Uint32Array,
  TextDecoder, TextEncoder, JSON, Math, console, structuredClone });
vm.runInContext(fs.readFileSync(process.argv[1], "utf8"), context);
// The test's bytes come as hex.
vm.runInContext("const bytes = (hex) => Uint8Array.from(hex.match(/../g), (h) => parseInt(h, 16))",
  context);
vm.runInContext(process.argv[2], context);
"""


def run(lines: str):
    node = shutil.which("node")
    done = subprocess.run(
        [node, "-e", HARNESS, str(RESTORE), lines], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def test_only_the_pages_that_differ_are_written():
    written, same, pages = run(
        """
        const n = 8 * PAGE;
        const source = new Uint8Array(n);
        const target = new Uint8Array(n);
        source[0] = 1;                    // page 0: differs at its first byte
        source[3 * PAGE + PAGE - 1] = 7;  // page 3: differs at its last byte
        source[5 * PAGE + 9] = 2;         // page 5: the same in both
        target[5 * PAGE + 9] = 2;
        target[6 * PAGE] = 4;             // page 6: zero in the source, not in the target
        const written = writeChangedPages(source, target);
        console.log(JSON.stringify([written, source.every((b, i) => b === target[i]),
          [0, 1, 3, 6].map((p) => target.subarray(p * PAGE, (p + 1) * PAGE).some((b) => b))]));
        """
    )
    assert written == 3  # pages 0, 3 and 6; not the zero pages 1, 2, 4, 7, nor page 5
    assert same
    assert pages == [True, False, True, False]


def test_pyodide_reads_the_header_and_the_heap_is_copied_here():
    answer = run(
        """
        // Pyodide's layout: a u32 magic, the heap's offset, the metadata's length; the metadata
        // from byte 48; the heap from the offset.
        const meta = new TextEncoder().encode('{"figures": 22}');
        const start = 64;
        const heap = new Uint8Array(4 * PAGE).map((_, i) => (i % 3 ? 0 : i % 251));
        const snapshot = new Uint8Array(start + heap.length);
        new Uint32Array(snapshot.buffer, 0, 3).set([0x5e1f, start, meta.length]);
        snapshot.set(meta, 48);
        snapshot.set(heap, start);
        const M = { HEAPU8: new Uint8Array(heap.length), API: {} };
        const seen = [];
        M.API.restoreSnapshot = (t) => {
          const words = new Uint32Array(t.buffer, t.byteOffset, t.byteLength / 4);
          seen.push(t.length);
          M.HEAPU8.set(t.subarray(words[1]));
          return JSON.parse(new TextDecoder().decode(t.subarray(48, 48 + words[2])));
        };
        restoreOnlyWhatDiffers(M);
        const metadata = M.API.restoreSnapshot(snapshot);
        const same = heap.every((b, i) => b === M.HEAPU8[i]);
        console.log(JSON.stringify({ metadata, seen, same }));
        """
    )
    assert answer == {"metadata": {"figures": 22}, "seen": [64], "same": True}


def test_a_heap_that_does_not_fit_the_memory_is_left_to_pyodide():
    seen = run(
        """
        const snapshot = new Uint8Array(16 + 2 * PAGE);
        new Uint32Array(snapshot.buffer, 0, 2).set([0, 16]);
        const M = { HEAPU8: new Uint8Array(3 * PAGE), API: {} };
        const seen = [];
        M.API.restoreSnapshot = (t) => seen.push(t.length);
        restoreOnlyWhatDiffers(M);
        M.API.restoreSnapshot(snapshot);
        console.log(JSON.stringify(seen));
        """
    )
    assert seen == [16 + 2 * 4096]


def test_the_worker_undoes_the_builds_xor_of_the_static_data():
    saved, module, static = snapshot_with_static_data(random.Random(5))
    shipped = heap.xor_static(saved, module, static)
    undone = run(
        f"""
        const shipped = bytes("{shipped.hex()}");
        const wasm = bytes("{module.hex()}");
        withStaticData(Promise.resolve(shipped), Promise.resolve(wasm), {json.dumps(static)})
          .then((s) => console.log(JSON.stringify(Array.from(s))));
        """
    )
    assert bytes(undone) == saved
    nothing = run("withStaticData(Promise.resolve(new Uint8Array([7])), undefined, null)"
                  ".then((s) => console.log(JSON.stringify(Array.from(s))));")  # fmt: skip
    assert nothing == [7]  # a heap saved whole is given as it is


def test_the_worker_unpacks_the_heap_the_build_packed():
    saved, module, static = snapshot_with_static_data(random.Random(6))
    shipped = heap.packed(heap.xor_static(saved, module, static))
    assert len(shipped) < len(saved)  # the heap's second page, zeros, is left out
    undone = run(
        f"""
        const whole = unpackedSnapshot(bytes("{shipped.hex()}"), {len(saved)});
        let cut = "";
        try {{ unpackedSnapshot(bytes("{shipped.hex()}00"), {len(saved)}); }}
        catch (err) {{ cut = err.message; }}
        withStaticData(Promise.resolve(whole), Promise.resolve(bytes("{module.hex()}")),
          {json.dumps(static)}).then((s) => console.log(JSON.stringify([Array.from(s), cut])));
        """
    )
    assert bytes(undone[0]) == saved
    assert undone[1] == f"the saved state does not unpack to {len(saved)} bytes"
