"""What the build reads of a WebAssembly module: where its data segment lies in the file.

Pyodide's main module starts its memory with one data segment, CPython's static data (4.6 MB),
and a saved heap holds that same region, mostly unchanged, after Python ran. The worker has
the module's bytes anyway, so the heap ships that region XORed with the segment, which is
mostly zeros (sitebuild/heap.py's ``xor_static``; static/restore.js undoes it).
The module format: https://webassembly.github.io/spec/core/binary/modules.html
"""

from dataclasses import dataclass

MAGIC = b"\0asm\x01\0\0\0"
DATA = 11  # the data section's id
I32_CONST, GLOBAL_GET, END = 0x41, 0x23, 0x0B


@dataclass(frozen=True)
class Segment:
    """An active data segment: its bytes are ``wasm[at : at + size]``; it is written to memory
    at ``offset``, or, where the module reads its offset from a global (a relocatable module,
    such as Pyodide's main module: ``__memory_base``), at that global's value."""

    at: int
    size: int
    offset: int | None


def uleb(data: bytes, at: int) -> tuple[int, int]:
    """The unsigned LEB128 number at ``data[at]``, and where the next field starts."""
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def sleb(data: bytes, at: int) -> tuple[int, int]:
    """The signed LEB128 number at ``data[at]``, and where the next field starts."""
    value, end = uleb(data, at)
    bits = 7 * (end - at)
    return (value - (1 << bits) if value >> (bits - 1) & 1 else value), end


def sections(wasm: bytes) -> dict[int, tuple[int, int]]:
    """Section id -> (where its content starts, its length), for the module's known sections."""
    if wasm[:8] != MAGIC:
        raise ValueError("not a WebAssembly module (version 1): its first 8 bytes differ")
    found, at = {}, 8
    while at < len(wasm):
        section, at = wasm[at], at + 1
        size, at = uleb(wasm, at)
        if section:  # custom sections (0) may repeat; none is wanted here
            found[section] = (at, size)
        at += size
    return found


def data_segment(wasm: bytes) -> Segment | None:
    """The module's data segment if it has exactly one and that one is active (written to
    memory as the module is instantiated); None otherwise (none, several, or passive ones)."""
    found = sections(wasm)
    if DATA not in found:
        return None
    at = found[DATA][0]
    count, at = uleb(wasm, at)
    mode, at = uleb(wasm, at)
    if count != 1 or mode != 0:  # 0: active, in memory 0, with an offset expression
        return None
    opcode, at = wasm[at], at + 1
    if opcode == I32_CONST:
        offset, at = sleb(wasm, at)
    elif opcode == GLOBAL_GET:
        offset, at = None, uleb(wasm, at)[1]
    else:
        return None
    if wasm[at] != END:
        return None
    size, at = uleb(wasm, at + 1)
    return Segment(at, size, offset)
