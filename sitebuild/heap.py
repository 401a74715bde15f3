"""The heap as it ships (sitebuild/snapshot.py saves it, static/restore.js puts it back): its
static data XORed with the data segment of Pyodide's WebAssembly, which the worker downloads
anyway, and its pages of zeros left out.

A snapshot is Pyodide's: a header and metadata, then the heap from the offset the header's
second u32 gives (``heap_offset``).
"""

from sitebuild import wasm

# How the heap ships. A change here makes every cached heap stale (the snapshot's cache key).
FORMAT = 3
# Bytes: the pages `packed` keeps or leaves out; a WebAssembly memory is a whole number of them.
PAGE = 4096


def heap_offset(snapshot: bytes) -> int:
    """Where the heap starts in a Pyodide snapshot: its header's second u32."""
    return int.from_bytes(snapshot[4:8], "little")


def static_data(module: bytes, memory_base: int) -> dict | None:
    """Where Pyodide's main module (``module``, pyodide.asm.wasm) keeps the static data it
    starts its memory with: {"file", "at" (in the file), "bytes", "base" (its address in
    memory)}; None if its data is not one active segment. ``memory_base`` is where the module
    was told to put a segment whose offset it reads from a global."""
    segment = wasm.data_segment(module)
    if segment is None:
        return None
    base = memory_base if segment.offset is None else segment.offset
    return {"file": "pyodide.asm.wasm", "at": segment.at, "bytes": segment.size, "base": base}


def xor_static(snapshot: bytes, module: bytes, static: dict) -> bytes:
    """``snapshot`` with its heap's static data XORed with the module's data segment, where
    ``static`` (static_data) says they are; the same call undoes it. The heap changes few of
    those bytes, so the result is mostly zeros, and the segment ships once, in the module."""
    start = heap_offset(snapshot) + static["base"]
    end, size = start + static["bytes"], static["bytes"]
    if end > len(snapshot) or static["at"] + size > len(module):
        raise ValueError(f"no {size} bytes of static data at {static['base']} in this heap")
    heap = int.from_bytes(snapshot[start:end], "little")
    segment = int.from_bytes(module[static["at"] : static["at"] + size], "little")
    return snapshot[:start] + (heap ^ segment).to_bytes(size, "little") + snapshot[end:]


def packed(snapshot: bytes) -> bytes:
    """``snapshot`` without its heap's pages of zeros: its header and metadata (up to the
    heap's offset), one bit per page of the heap (bit i of byte i // 8 set if page i is kept),
    then the pages kept. Half the heap is zeros, which a worker need not unpack: a new buffer
    holds them already."""
    start = heap_offset(snapshot)
    if (len(snapshot) - start) % PAGE:
        raise ValueError(f"a heap of {len(snapshot) - start} bytes is not whole {PAGE}-byte pages")
    zero = bytes(PAGE)
    pages = [snapshot[at : at + PAGE] for at in range(start, len(snapshot), PAGE)]
    kept = [page != zero for page in pages]
    bits = bytes(
        sum(1 << bit for bit, keep in enumerate(kept[at : at + 8]) if keep)
        for at in range(0, len(kept), 8)
    )
    kept_pages = (page for page, keep in zip(pages, kept, strict=True) if keep)
    return snapshot[:start] + bits + b"".join(kept_pages)


def unpacked(shipped: bytes, size: int) -> bytes:
    """The snapshot of ``size`` bytes that ``packed`` made ``shipped`` from."""
    start = heap_offset(shipped)
    count = (size - start) // PAGE
    bits, at = shipped[start : start + (count + 7) // 8], start + (count + 7) // 8
    out = bytearray(size)
    out[:start] = shipped[:start]
    for page in range(count):
        if bits[page // 8] >> (page % 8) & 1:
            out[start + page * PAGE : start + (page + 1) * PAGE] = shipped[at : at + PAGE]
            at += PAGE
    if at != len(shipped):
        raise ValueError(f"{len(shipped) - at} bytes are left after the heap's pages")
    return bytes(out)
