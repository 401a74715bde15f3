"""sitebuild/heap.py: the heap as it ships, its static data XORed and its pages of zeros left
out, and back."""

import random
import struct

import pytest

from sitebuild import heap, wasm


def snapshot_with_static_data(rng: random.Random) -> tuple[bytes, bytes, dict]:
    """A snapshot in Pyodide's layout (the heap from the offset its header's second u32 gives)
    whose heap holds a module's data segment at 1024 with a few bytes changed, the module, and
    where the segment is (static_data)."""
    segment = rng.randbytes(3000)
    module = b"\0asm" + rng.randbytes(100) + segment + rng.randbytes(7)
    heap = bytearray(8192)
    heap[1024 : 1024 + len(segment)] = segment
    heap[1500:1504] = b"ran!"  # what Python changed
    header = struct.pack("<3I", 0x5E1F, 64, 0) + bytes(52)
    static = {"file": "pyodide.asm.wasm", "at": 104, "bytes": len(segment), "base": 1024}
    return header + bytes(heap), module, static


def test_the_heap_ships_its_static_data_as_what_python_changed_in_it():
    saved, module, static = snapshot_with_static_data(random.Random(3))
    shipped = heap.xor_static(saved, module, static)
    region = shipped[64 + 1024 : 64 + 1024 + static["bytes"]]
    assert region.count(0) >= len(region) - 4  # only what Python changed is left
    assert shipped[: 64 + 1024] == saved[: 64 + 1024] and shipped[-100:] == saved[-100:]
    assert heap.xor_static(shipped, module, static) == saved  # the worker's undoing
    with pytest.raises(ValueError, match="no 3000 bytes of static data at 8000"):
        heap.xor_static(saved, module, {**static, "base": 8000})


def test_static_data_is_none_for_a_module_with_other_data_segments():
    passive = wasm.MAGIC + bytes([11, 5, 1, 1, 2]) + b"hi"
    assert heap.static_data(passive, 1024) is None
    relocatable = wasm.MAGIC + bytes([11, 8, 1, 0, 0x23, 0, 0x0B, 2]) + b"hi"
    assert heap.static_data(relocatable, 1024) == {
        "file": "pyodide.asm.wasm", "at": 16, "bytes": 2, "base": 1024,
    }  # fmt: skip


def test_the_heap_ships_without_its_pages_of_zeros():
    saved, _, _ = snapshot_with_static_data(random.Random(4))
    whole = bytearray(saved) + bytes(6 * heap.PAGE)  # eight pages in all
    whole[64 + 5 * heap.PAGE + 7] = 9  # page 5 of the heap, otherwise zeros, is kept
    shipped = heap.packed(bytes(whole))
    assert shipped[:64] == whole[:64]  # Pyodide's header and metadata, as they were
    assert shipped[64] == 0b00100001  # a bit per page: pages 0 (the static data) and 5 kept
    assert len(shipped) == 64 + 1 + 2 * heap.PAGE
    assert heap.unpacked(shipped, len(whole)) == whole
    with pytest.raises(ValueError, match="bytes are left after the heap's pages"):
        heap.unpacked(shipped + b"x", len(whole))
    with pytest.raises(ValueError, match="not whole 4096-byte pages"):
        heap.packed(bytes(whole) + b"x")
