"""The snapshot build step: which files ship beside the heap, their bundle, the cache key."""

import gzip
import json
import os
import random
import struct
from pathlib import Path

import pytest
import zstandard

from sitebuild import bundle, pins, snapshot
from sitebuild import cache as runtime_cache

SITE = pins.PYODIDE_SITE_PACKAGES


def write(tree: Path, files: dict[str, bytes]) -> None:
    for rel, data in files.items():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_bytes(data)


def unpack(bundle: bytes) -> dict[str, bytes]:
    """The worker's reading of a bundle, in Python."""
    body = zstandard.ZstdDecompressor().decompress(bundle)
    (n,) = struct.unpack("<I", body[:4])
    start = 4 + n
    return {
        rel: body[start + off : start + off + size] for rel, off, size in json.loads(body[4:start])
    }


def test_the_bundle_holds_what_the_heap_does_not(tmp_path):
    write(
        tmp_path,
        {
            "pkg/__init__.py": b"init",
            "pkg/__pycache__/__init__.cpython-312.pyc": b"init-pyc",
            "pkg/lazy.py": b"lazy source",
            "pkg/__pycache__/lazy.cpython-312.pyc": b"lazy-pyc",
            "pkg/style.css": b"css",
            "pkg/tests/test_pkg.py": b"test",
            "pkg/stubs.pyi": b"stub",
            "pkg/_speedups.c": b"C source",
            "numpy/_core/include/numpy/x.h": b"header",
            "numpy/_core/lib/libnpymath.a": b"static library",
            "numpy/random/c_distributions.pxd": b"cython declarations",
            "xyzservices-2026.9.1.data/data/share/providers.json": b"installer data",
            "numpy/_core/_umath.cpython-312-wasm32-emscripten.so": b"\0asm",
            "numpy/fft/_fft.cpython-312-wasm32-emscripten.so": b"\0asm, no figure imports it",
            "plain.py": b"no bytecode",
            "unused/__init__.py": b"a package no page imported",
            "lonely.py": b"a module no page imported",
            "unused-1.0.dist-info/METADATA": b"Name: unused",
            "unused-1.0.dist-info/RECORD": b"unused/__init__.py,,\nunused-1.0.dist-info/RECORD,,\n",
            "pkg-2.0.dist-info/METADATA": b"Name: pkg",
            "pkg-2.0.dist-info/RECORD": b"pkg/__init__.py,,\npkg-2.0.dist-info/RECORD,,\n",
            "norecord-1.0.dist-info/METADATA": b"Name: norecord",
            # The project's own code: another page's figure, a core module no page imported.
            "figures/__pycache__/cost.cpython-312.pyc": b"another page's figure",
            "figures/cost.py": b"its source",
            "attention/window.py": b"core",
        },
    )
    imported = {"pkg/__init__.py", "pkg/__pycache__/__init__.cpython-312.pyc"}
    packages = {"pkg", "numpy", "plain", "figures", "attention"}
    kept = bundle.bundle_files(tmp_path, imported, packages)
    assert kept == {
        "pkg/lazy.pyc": b"lazy-pyc",  # bytecode in place of its source
        "pkg/style.css": b"css",
        "numpy/_core/_umath.cpython-312-wasm32-emscripten.so": b"\0asm",
        "numpy/fft/_fft.cpython-312-wasm32-emscripten.so": b"\0asm, no figure imports it",
        "plain.py": b"no bytecode",
        # The metadata of a distribution some page imported; not of one no page did.
        "pkg-2.0.dist-info/METADATA": b"Name: pkg",
        "pkg-2.0.dist-info/RECORD": b"pkg/__init__.py,,\npkg-2.0.dist-info/RECORD,,\n",
    }
    # Of those, the worker fetches the modules, and the libraries its heap does not link, only
    # with the first import its heap lacks.
    umath = "numpy/_core/_umath.cpython-312-wasm32-emscripten.so"
    linked = bundle.linked_files([{"name": SITE + umath}])
    assert linked == [umath]
    later = {rel for rel in kept if bundle.only_imports_open(rel, linked)}
    assert later == {"pkg/lazy.pyc", "plain.py", "numpy/fft/_fft.cpython-312-wasm32-emscripten.so"}


@pytest.mark.parametrize(
    ("rel", "package"),
    [
        ("numpy/linalg/_linalg.py", "numpy"),
        ("typing_extensions.py", "typing_extensions"),
        ("_yaml.cpython-312-wasm32-emscripten.so", "_yaml"),
        ("panel-1.7.5.dist-info/RECORD", None),
    ],
)
def test_a_path_belongs_to_its_import_name(rel, package):
    assert bundle.package_of(rel) == package


def test_a_bundle_unpacks_to_its_files(tmp_path):
    files = {"a/b.pyc": b"\x00\x01\x02", "c.css": b"x" * 1000, "empty.txt": b""}
    assert unpack(snapshot.compress(bundle.pack(files))) == files


def test_a_compressed_frame_records_its_size():
    """The worker is told how large each download unpacks: the build reads it from the frame."""
    data = bytes(range(256)) * 1000
    frame = snapshot.compress(data)
    assert len(frame) < len(data) // 10
    assert zstandard.frame_content_size(frame[:18]) == len(data)


def test_the_cache_key_follows_the_page_and_the_runtime(tmp_path):
    for name in ("pyodide.asm.wasm", "pyodide.asm.js", "python_stdlib.zip", "pyodide-lock.json"):
        (tmp_path / name).write_bytes(name.encode())
    runtime = snapshot.runtime_digest(tmp_path)
    key = snapshot.inputs_key(runtime, ["a", "b"])
    assert key == snapshot.inputs_key(snapshot.runtime_digest(tmp_path), ["a", "b"])
    assert key != snapshot.inputs_key(runtime, ["b", "a"])
    (tmp_path / "pyodide-lock.json").write_bytes(b"another wheel")
    assert key != snapshot.inputs_key(snapshot.runtime_digest(tmp_path), ["a", "b"])


def test_the_maker_refuses_another_pyodide_version(tmp_path, cache):
    """The snapshot depends on one Pyodide build's internals: any other version fails clearly."""
    core = cache / runtime_cache.CORE
    args = {
        "runtime": str(core),
        "sitePackages": str(tmp_path),
        "figures": [],
        "pyodide": "0.0.0",
        "out": str(tmp_path / "s.heap"),
        "meta": str(tmp_path / "s.json"),
    }
    with pytest.raises(
        RuntimeError, match=f"need Pyodide 0.0.0, the runtime is {pins.PYODIDE_VERSION}"
    ):
        snapshot.run_maker(args)
    assert not (tmp_path / "s.heap").exists()


def test_the_cache_keeps_the_most_recently_used_snapshots(tmp_path):
    for age, key in enumerate(["aa", "bb", "cc"]):  # aa is the newest
        names = [f"{key}.json", f"{key}.bin.zst", f"files-{key}.bin.zst"]
        names += [f"{packed}-{key}.zst" for packed in snapshot.PACKED]
        for name in names:
            (tmp_path / name).write_bytes(b"x")
            os.utime(tmp_path / name, (1e9 - age, 1e9 - age))
    (tmp_path / "dd.bin.gz").write_bytes(b"an earlier format")
    snapshot.prune(tmp_path, keep=2)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "aa.bin.zst", "aa.json", "bb.bin.zst", "bb.json", "files-aa.bin.zst", "files-bb.bin.zst",
        "pyodide.asm.wasm-aa.zst", "pyodide.asm.wasm-bb.zst",
        "python_stdlib.zip-aa.zst", "python_stdlib.zip-bb.zst",
    ]  # fmt: skip


def test_pyodides_large_files_ship_packed_beside_themselves(tmp_path):
    runtime_dir, cache = tmp_path / "runtime", tmp_path / "cache"
    runtime_dir.mkdir()
    cache.mkdir()
    originals = {name: name.encode() * 1000 for name in snapshot.PACKED}
    write(runtime_dir, originals)
    sizes = snapshot.packed_copies(runtime_dir, cache)
    assert sizes == {name: len(data) for name, data in originals.items()}
    for name, data in originals.items():
        frame = (runtime_dir / f"{name}.zst").read_bytes()
        assert zstandard.frame_content_size(frame) == len(data)  # the worker sizes its buffer so
        assert zstandard.ZstdDecompressor().decompress(frame) == data
    cached = sorted(p.name for p in cache.iterdir())
    assert len(cached) == 2
    (runtime_dir / "pyodide.asm.wasm").write_bytes(b"another build")
    snapshot.packed_copies(runtime_dir, cache)
    assert len(list(cache.iterdir())) == 3  # a new copy for new content; the old one stays cached
    config = snapshot.page_config(lambda rel: f"/base/{rel}", {
        "heapBytes": 1, "filesBytes": 2, "laterFilesBytes": 4, "libs": [], "tableAfterLibs": 3,
        "packed": sizes, "parts": [5, 6], "held": ["numpy"], "static": {"base": 8},
        "packedBytes": 7,
    })  # fmt: skip
    assert config["held"] == ["numpy"]
    assert config["staticData"] == {"base": 8}
    parts = [f"/base/runtime/snapshots/heap-{i}.bin.zst" for i in (0, 1)]
    assert config["state"] == parts
    entry = {name: {"file": name, "url": f"/base/runtime/{name}.zst", "bytes": sizes[name]}
             for name in snapshot.PACKED}  # fmt: skip
    assert config["packed"] == [entry["pyodide.asm.wasm"]]  # at the start
    # on the first import the heap cannot serve, into the path Pyodide reads it from
    # with the modules only an import opens, unpacked under site-packages
    assert config["later"] == [
        {**entry["python_stdlib.zip"], "into": "/lib/python312.zip"},
        {"file": snapshot.LATER_FILES, "url": f"/base/runtime/{snapshot.LATER_FILES}",
         "bytes": 4, "into": "/lib/python3.12/site-packages/"},
    ]  # fmt: skip
    assert config["files"] == "/base/runtime/site-packages.bin.zst"


def test_a_heap_holds_the_packages_of_the_modules_it_imported(tmp_path):
    lock = {"packages": {
        "numpy": {"imports": ["numpy"]},
        "attention-explained": {"imports": ["attention", "figures"]},
        "panel": {"imports": ["panel"]},
    }}  # fmt: skip
    (tmp_path / "pyodide-lock.json").write_text(json.dumps(lock))
    held = snapshot.held_packages(tmp_path, ["figures", "numpy", "worker"])
    assert held == ["attention-explained", "numpy"]


def test_zstd_packs_pyodides_downloads_smaller_than_gzip(cache):
    """Why the snapshot path ships zstd frames: smaller than the gzip the server would send."""
    for name in snapshot.PACKED:
        data = (cache / runtime_cache.CORE / name).read_bytes()
        assert len(snapshot.compress(data)) < len(gzip.compress(data, 6)), name


def test_the_heap_ships_in_parts_that_unpack_as_one_stream():
    """The worker reads the parts one after another as one zstd stream (static/restore.js):
    one frame, cut into parts of PART bytes."""
    data = random.Random(0).randbytes(3 * snapshot.PART + 7)  # stays as large, compressed
    parts = snapshot.compress_parts(data)
    assert len(parts) == 4
    assert [len(p) for p in parts[:3]] == [snapshot.PART] * 3
    joined = b"".join(parts)
    assert zstandard.frame_content_size(joined[:18]) == len(data)  # one frame: one size
    assert zstandard.ZstdDecompressor().decompress(joined) == data
    assert snapshot.split(joined, [len(p) for p in parts]) == parts
    with pytest.raises(ValueError, match="cannot be cut"):
        snapshot.split(joined, [len(parts[0])])


def test_one_frame_packs_a_heap_smaller_than_a_frame_per_part():
    """Why the heap is one frame cut into parts: its repeats reach across the cuts."""
    rng = random.Random(1)
    block = rng.randbytes(1 << 20)  # a heap-like repeat, further apart than a part
    data = b"".join(block + rng.randbytes(1 << 20) for _ in range(3))
    separately = sum(
        len(snapshot.compress(data[at : at + len(data) // 3]))
        for at in range(0, len(data), len(data) // 3)
    )
    assert len(b"".join(snapshot.compress_parts(data))) < 0.85 * separately
