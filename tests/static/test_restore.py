"""static/restore.js's writing of the heap into Python's memory, run in Node: from the form the
build shipped it in (its pages of zeros left out, its static data XORed), only the pages that
differ from the memory written, and Pyodide left to read the snapshot's header and metadata."""

import json
import random
import shutil
import struct
import subprocess
from pathlib import Path

from sitebuild import heap

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


PAGE = heap.PAGE
START = 64  # where the test snapshots' heap starts: their header and metadata before it
STATIC = {"file": "pyodide.asm.wasm", "at": 104, "bytes": 6000, "base": 1024}


def saved_heap(rng: random.Random) -> tuple[bytes, bytes]:
    """A snapshot in Pyodide's layout whose heap of six pages holds a module's data segment
    from 1024 (pages 0 and 1; Python changed page 0's part), data on pages 2 and 5, zeros on
    pages 3 and 4; and the module."""
    segment = rng.randbytes(STATIC["bytes"])
    module = b"\0asm" + rng.randbytes(100) + segment + rng.randbytes(7)
    memory = bytearray(6 * PAGE)
    memory[1024 : 1024 + len(segment)] = segment
    memory[1500:1504] = b"ran!"
    memory[2 * PAGE : 3 * PAGE] = rng.randbytes(PAGE)
    memory[5 * PAGE + 9] = 1
    meta = b'{"figures": 22}'
    header = struct.pack("<3I", 0x5E1F, START, len(meta)) + bytes(36) + meta
    return header.ljust(START, b"\0") + bytes(memory), module


def shipped_form(saved: bytes, module: bytes) -> bytes:
    """The heap as the build ships it: its static data XORed, its pages of zeros left out."""
    return heap.packed(heap.xor_static(saved, module, STATIC))


def shipped_case(seed: int) -> tuple[bytes, bytes, str]:
    """A saved heap, its shipped form, and the JavaScript lines that give a test both as the
    worker has them: ``shipped``, and ``statics``, the module's data segment."""
    saved, module = saved_heap(random.Random(seed))
    shipped = shipped_form(saved, module)
    lines = f"""
        const shipped = bytes("{shipped.hex()}");
        const statics = staticSegment(bytes("{module.hex()}"), {json.dumps(STATIC)});"""
    return saved, shipped, lines


def test_the_heap_is_written_from_its_shipped_form_where_the_memory_differs():
    saved, shipped, preamble = shipped_case(5)
    # Pages 1 (static, unchanged), 3 and 4 are left out; a byte of bits says which.
    assert len(shipped) == len(saved) - 3 * PAGE + 1
    written, same = run(
        preamble
        + f"""
        // Python's new memory: the WebAssembly's data segment in place, and what relinking
        // the libraries wrote: page 2 as the heap has it, page 3 where the heap has zeros.
        const saved = bytes("{saved.hex()}").subarray({START});
        const memory = new Uint8Array(6 * PAGE);
        memory.set(statics.segment, 1024);
        memory.set(saved.subarray(2 * PAGE, 3 * PAGE), 2 * PAGE);
        memory[3 * PAGE + 7] = 3;
        const written = writeShippedHeap(shipped, memory, statics);
        // And into a memory of zeros, without the data segment: every page with data is.
        const zeros = new Uint8Array(6 * PAGE);
        const again = writeShippedHeap(shipped, zeros, statics);
        const same = [memory, zeros].map((m) => m.every((b, i) => b === saved[i]));
        console.log(JSON.stringify([[written, again], same]));
        """
    )
    assert same == [True, True]
    assert written == [3, 4]  # pages 0, 3 (zeroed) and 5; then 0, 1, 2 and 5


def test_pyodide_reads_the_header_and_the_heap_is_written_here():
    saved, _, preamble = shipped_case(6)
    answer = run(
        preamble
        + f"""
        const given = headerOnly(shipped, {len(saved)});
        const M = {{ HEAPU8: new Uint8Array(6 * PAGE), API: {{}} }};
        const seen = [];
        M.API.restoreSnapshot = (t) => {{
          const words = new Uint32Array(t.buffer, t.byteOffset, t.byteLength / 4);
          seen.push(t.length);
          M.HEAPU8.set(t.subarray(words[1]));
          return JSON.parse(new TextDecoder().decode(t.subarray(48, 48 + words[2])));
        }};
        restoreFromShipped(M, shipped, {len(saved)}, statics);
        const metadata = M.API.restoreSnapshot(given);
        const saved = bytes("{saved.hex()}");
        const header = given.subarray(0, {START}).every((b, i) => b === saved[i]);
        const same = M.HEAPU8.every((b, i) => b === saved[{START} + i]);
        console.log(JSON.stringify({{ metadata, seen, given: given.length, header, same }}));
        """
    )
    assert answer == {
        "metadata": {"figures": 22},
        "seen": [START],  # Pyodide read the header and metadata alone
        "given": len(saved),  # sized as the whole snapshot, which Pyodide sizes the memory by
        "header": True,
        "same": True,
    }


def test_a_shipped_heap_that_does_not_fit_is_refused_with_why():
    saved, _, preamble = shipped_case(7)
    errors = run(
        preamble
        + f"""
        const errors = [];
        const refuse = (f) => {{
          try {{ f(); errors.push(null); }} catch (e) {{ errors.push(e.message); }}
        }};
        const M = {{ HEAPU8: new Uint8Array(7 * PAGE), API: {{ restoreSnapshot: () => ({{}}) }} }};
        restoreFromShipped(M, shipped, {len(saved)}, statics);
        refuse(() => M.API.restoreSnapshot(headerOnly(shipped, {len(saved)})));
        const longer = new Uint8Array(shipped.length + 1);
        longer.set(shipped);
        refuse(() => writeShippedHeap(longer, new Uint8Array(6 * PAGE), statics));
        refuse(() => writeShippedHeap(shipped.subarray(0, shipped.length - 9),
          new Uint8Array(6 * PAGE), statics));
        refuse(() => staticSegment(new Uint8Array(5000), {json.dumps(STATIC)}));
        console.log(JSON.stringify(errors));
        """
    )
    fits = "the saved state does not fit Python's memory"
    assert errors == [
        f"the saved heap is {6 * PAGE} bytes, Python's memory {7 * PAGE}",
        f"{fits}: 1 bytes are left over",
        f"{fits}: it is cut short at page 5",
        "the WebAssembly has no 6000 bytes of static data at 104",
    ]


def test_a_heap_saved_whole_is_written_as_it_is():
    saved, _ = saved_heap(random.Random(8))
    same = run(
        f"""
        const saved = bytes("{heap.packed(saved).hex()}");
        const memory = new Uint8Array(6 * PAGE);
        writeShippedHeap(saved, memory, staticSegment(undefined, null));
        const whole = bytes("{saved.hex()}").subarray({START});
        console.log(JSON.stringify(memory.every((b, i) => b === whole[i])));
        """
    )
    assert same is True


# (module (func (export "f"))): a library as small as WebAssembly allows.
LIBRARY = "0061736d0100000001040160000003020100070501016600000a040102000b"


def test_numpys_libraries_are_compiled_from_the_bundle_and_loaded_compiled():
    answer = run(
        f"""
        const lib = bytes("{LIBRARY}");
        const enc = new TextEncoder();
        // A bundle as sitebuild/bundle.py packs it: a library and a data file.
        const index = enc.encode(JSON.stringify([["pkg/_lib.so", 0, lib.length],
          ["pkg/data.txt", lib.length, 2]]));
        const bundle = new Uint8Array(4 + index.length + lib.length + 2);
        new DataView(bundle.buffer).setUint32(0, index.length, true);
        bundle.set(index, 4);
        bundle.set(lib, 4 + index.length);
        const compiled = compileLibraries(bundle, [{{ name: "/sp/pkg/_lib.so" }}], "/sp/");
        const entry = compiled.get("/sp/pkg/_lib.so");
        (async () => {{
          const module = await entry.module;
          const instantiate = WebAssembly.instantiate;
          const seen = [];
          await withCompiled(entry, async () => {{
            // Emscripten instantiates another module first (not this library's size), then
            // the library from its bytes: only the second is given the compiled module.
            const other = await WebAssembly.instantiate(bytes("{LIBRARY}00"), {{}}).catch(
              (e) => e.constructor.name);
            seen.push(typeof other);
            const got = await WebAssembly.instantiate(lib, {{}});
            seen.push(got.module === module, typeof got.instance.exports.f);
            const again = await WebAssembly.instantiate(lib, {{}});
            seen.push(again.module === module);
          }});
          seen.push(WebAssembly.instantiate === instantiate);
          console.log(JSON.stringify({{ paths: [...compiled.keys()], size: entry.size, seen }}));
        }})();
        """
    )
    assert answer == {
        "paths": ["/sp/pkg/_lib.so"],  # the data file is not compiled
        "size": 31,
        # passed on to WebAssembly as it was; the library's own module; once only; put back
        "seen": ["string", True, "function", False, True],
    }
