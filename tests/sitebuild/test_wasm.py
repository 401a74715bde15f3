"""sitebuild/wasm.py: where a WebAssembly module keeps its data segment."""

import pytest

from sitebuild import cache as runtime_cache
from sitebuild import wasm


def module(*sections: tuple[int, bytes]) -> bytes:
    """A module of these (id, content) sections; contents shorter than 128 bytes."""
    return wasm.MAGIC + b"".join(bytes([sid, len(body)]) + body for sid, body in sections)


MEMORY = (5, b"\x01\x00\x01")  # one memory of one page
CUSTOM = (0, b"\x04note" + b"skipped")


def test_an_active_segment_at_a_constant_offset():
    data = bytes([1, 0, 0x41, 0x90, 0x03, 0x0B, 3]) + b"abc"  # at i32.const 400
    found = module(CUSTOM, MEMORY, (11, data))
    segment = wasm.data_segment(found)
    assert segment == wasm.Segment(at=len(found) - 3, size=3, offset=400)
    assert found[segment.at : segment.at + segment.size] == b"abc"


def test_a_relocatable_segment_reads_its_offset_from_a_global():
    data = bytes([1, 0, 0x23, 0, 0x0B, 2]) + b"hi"  # at global.get 0 (__memory_base)
    assert wasm.data_segment(module((11, data))).offset is None


@pytest.mark.parametrize(
    "data",
    [
        bytes([2, 0, 0x41, 0, 0x0B, 1]) + b"a" + bytes([0, 0x41, 8, 0x0B, 1]) + b"b",  # two
        bytes([1, 1, 2]) + b"hi",  # passive: copied in by code, not at instantiation
        bytes([1, 0, 0x41, 0, 0x41, 0, 0x0B, 1]) + b"a",  # an offset that is no one constant
    ],
)
def test_anything_but_one_active_segment_is_none(data):
    assert wasm.data_segment(module(MEMORY, (11, data))) is None
    assert wasm.data_segment(module(MEMORY)) is None  # no data at all


def test_a_file_that_is_not_webassembly_says_so():
    with pytest.raises(ValueError, match="not a WebAssembly module"):
        wasm.data_segment(b"PK\x03\x04 a zip")


def test_negative_constants_read_as_negative():
    assert wasm.sleb(bytes([0x7F]), 0) == (-1, 1)
    assert wasm.sleb(bytes([0x80, 0x7F]), 0) == (-128, 2)
    assert wasm.uleb(bytes([0xE5, 0x8E, 0x26]), 0) == (624485, 3)


def test_pyodides_main_module_has_one_relocatable_segment(cache):
    module_bytes = (cache / runtime_cache.CORE / "pyodide.asm.wasm").read_bytes()
    segment = wasm.data_segment(module_bytes)
    assert segment is not None and segment.offset is None  # placed at __memory_base
    assert segment.size > 1 << 20
