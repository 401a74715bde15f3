"""The build-time memory snapshot in a real browser: used when it fits, never needed to go live.

Every way the snapshot can fail to fit (missing, from another Pyodide build, a broken files
bundle or runtime file, a decoder that cannot be had) must end with the page live by the
ordinary start, with the same numbers, its controls enabled, and no uncaught error: each opens
a page of its own, since the start is what is tested. That a page starts from the snapshot and
that moving controls fetches nothing deferred are read from the session's shared pages.
"""

import json
import re
import struct
from urllib.parse import urlsplit

import numpy as np
import pytest
import zstandard
from playwright.sync_api import expect

from attention.basics import context, query_scores, softmax
from attention.fixtures import TOKENS, book_inputs
from formatting import vec
from harness.dom import wait_until
from harness.site import BASE, POST1, SECTION33, WITH_FIGURES
from harness.worker_heap import worker_buffers
from sitebuild import snapshot, startup
from tests.site.test_cells_browser import output, run, type_code
from tests.site.test_failure_paths_browser import Console, assert_controls
from tests.sitebuild.test_snapshot import unpack

pytestmark = pytest.mark.browser
# The site's heap, in parts, each under runtime/snapshots/HASH/.
STATE = f"**/snapshots/*/{snapshot.HEAP.format('*')}"
FILES = "**/site-packages.bin.zst"


def fallback_reasons(v) -> list[str]:
    """What the page says (a console warning) when it starts without the snapshot."""
    reasons: list[str] = []
    v.page.on("console", lambda m: "without the snapshot" in m.text and reasons.append(m.text))
    return reasons


# The page's configuration, as its scripts read it.
CONFIG = "() => JSON.parse(document.getElementById('page-config').textContent)"


def start_of(v) -> str:
    return v.start


def assert_live_and_computing(v) -> None:
    """Live, and a control change gives CPython's numbers."""
    v.wait_for("live")
    v.show("three-steps")
    v.page.locator('[data-figure="three-steps"] select').select_option("step")
    w = softmax(query_scores(book_inputs(), TOKENS.index("step")))
    expect(v.readout_locator("three-steps", "context")).to_have_text(vec(context(w, book_inputs())))


def test_a_page_starts_from_its_snapshot_without_loading_a_wheel(live):
    v = live(POST1)
    assert_live_and_computing(v)
    assert start_of(v) == "snapshot"
    assert not [url for url in v.requests if url.endswith(".whl")]
    # Pyodide's WebAssembly came as a zstd frame, not as itself; its standard library not at
    # all (only an import the heap cannot serve fetches it: test_cells_browser.py).
    for name in snapshot.PACKED:
        fetched = [url for url in v.requests if url.endswith(f"/{name}.zst")]
        assert bool(fetched) == (name not in snapshot.LATER), name
        assert not [url for url in v.requests if url.endswith(f"/{name}")]
    assert v.errors == []


def library_sizes(site, snap: dict) -> dict[str, int]:
    """The byte size of each library the heap had loaded, as the files bundle holds it."""
    files = unpack((site / snap["files"].removeprefix(BASE)).read_bytes())
    return {lib["name"]: len(files[lib["name"].split("site-packages/")[1]]) for lib in snap["libs"]}


def test_a_restored_worker_keeps_no_copy_of_what_it_unpacked(live, site):
    """Once Python is restored, the unpacked heap is in Python's memory, numpy's libraries
    loaded and Pyodide's WebAssembly compiled: the worker holds none of them a second time (the
    heap alone is some 50 MB, and Pyodide keeps the promise it restored from for good)."""
    v = live(POST1)
    v.wait_for("live")
    snap = v.page.evaluate(CONFIG)["snapshot"]
    unpacked = {
        "the heap as shipped": snap["stateBytes"],
        "the heap": snap["snapshotBytes"],
        "the files bundle": snap["filesBytes"],
        **{p["file"]: p["bytes"] for p in snap["packed"]},
        **library_sizes(site, snap),
    }
    held = worker_buffers(v.page)
    assert held[0] >= snap["snapshotBytes"] - 2**16, held[:4]  # Python's memory, restored
    assert {what: size for what, size in unpacked.items() if size in held} == {}


def test_a_cold_start_never_waits_on_its_own_downloads(live):
    """The worker blocks while importScripts loads Pyodide's scripts, and reads no download
    meanwhile; over HTTP/1.1 (as this server speaks) a browser keeps six connections to a host,
    and a download not read to its end holds one. So the scripts are asked for before the
    heap's parts and its other downloads, and come from the HTTP cache when imported: were they
    asked for behind the parts, they would wait for a connection (20 s each time, seen). Read
    from the order of the shared page's cold start (its context's first)."""
    v = live(POST1)
    assert start_of(v) == "snapshot"
    runtime = [url for url in v.requests if "/runtime/" in url]  # later starts' too, if any
    first_part = next(i for i, url in enumerate(runtime) if "/snapshots/" in url)
    before = {url.rsplit("/", 1)[1] for url in runtime[:first_part]}
    assert {"pyodide.asm.js", "pyodide.js"} <= before, runtime[: first_part + 1]


# Run in a cell: whether the standard library and numpy were imported from bytecode, and the
# numpy modules imported from source, if any.
FROM_BYTECODE = """import json, sys
import numpy
files = {n: str(getattr(m, "__file__", "")) for n, m in list(sys.modules.items())}
compiled = [n for n, f in files.items() if n.startswith("numpy") and f.endswith(".pyc")]
sources = [n for n, f in files.items() if n.startswith("numpy") and f.endswith(".py")]
print(json.__file__.endswith(".pyc"), len(compiled) > 20, sources)"""


def test_a_missing_snapshot_falls_back_to_the_ordinary_start(visit):
    """Live, and that start imports the bytecode the build compiled for it, not sources
    (sitebuild/startup.py): the standard library from the build's copy, numpy from its wheel.
    A cell, whose worker starts the same way, says so."""
    v = visit(POST1, block=STATE)
    assert_live_and_computing(v)
    assert start_of(v) == "ordinary"
    stdlibs = {url.rsplit("/", 1)[1] for url in v.requests if "/python_stdlib" in url}
    assert stdlibs == {startup.STDLIB}
    type_code(v, 1, FROM_BYTECODE)
    run(v, 1)
    assert output(v, 1) == "True True []"


FFT = "import numpy.fft\nprint([complex(z) for z in numpy.fft.rfft([1.0, 2.0, 0.0, -1.0])])"


def test_a_library_the_heap_does_not_link_loads_when_a_cell_imports_it(visit):
    """No figure imports numpy.fft, so its library is not linked in the heap: a cell that
    imports it fetches the files only an import opens, that library among them, and runs."""
    v = visit(POST1)
    v.wait_for("live")
    assert start_of(v) == "snapshot"
    later = [f["url"] for f in v.page.evaluate(CONFIG)["snapshot"]["later"]]
    assert not [url for url in v.requests if urlsplit(url).path in later]
    type_code(v, 1, FFT)
    run(v, 1)
    assert output(v, 1) == str([complex(z) for z in np.fft.rfft([1.0, 2.0, 0.0, -1.0])])
    assert [url for url in v.requests if urlsplit(url).path in later]


def answered_by(visit, pattern: str, handler, path: str = POST1) -> list[str]:
    """``path`` (post 1, whose three-steps figure is checked) with the requests matching
    ``pattern`` answered by ``handler`` from the first request on: it must go live the
    ordinary way, compute CPython's numbers, its controls enabled, and leave no uncaught error
    (a late rejection of the first worker included: the second has finished its start, warm-up
    and all, by then). Returns the reasons the page gave."""
    v = visit(path, goto=False)
    v.context.route(pattern, handler)
    reasons = fallback_reasons(v)
    console = Console(v.page)
    v.open()
    v.wait_for("live")
    assert start_of(v) == "ordinary"
    if path == POST1:
        assert_live_and_computing(v)
    assert_controls(v, disabled=False, busy=False)
    wait_until(v.page, "() => harnessProbe.received.rehearsed === 1")
    console.assert_clean()
    return reasons


def test_a_broken_files_bundle_falls_back_to_the_ordinary_start(visit):
    reasons = answered_by(visit, FILES, lambda route: route.fulfill(body=b"not a zstd stream"))
    assert any("the files bundle could not be unpacked" in r for r in reasons), reasons


@pytest.mark.parametrize("name", [name for name in snapshot.PACKED if name not in snapshot.LATER])
def test_a_broken_packed_runtime_file_falls_back_to_the_ordinary_start(visit, name):
    reasons = answered_by(visit, f"**/{name}.zst", lambda r: r.fulfill(body=b"not zstd"))
    assert any(f"{name} could not be unpacked" in r for r in reasons), reasons


def test_a_decoder_that_cannot_be_had_falls_back_to_the_ordinary_start(visit):
    """Nothing of the snapshot can be unpacked: the reason is given once, by the fallback,
    never as an unhandled rejection (on section 3.3)."""
    reasons = answered_by(visit, f"**/{snapshot.DECODER}", lambda r: r.abort(), SECTION33)
    assert reasons, "no reason given for starting without the snapshot"


def test_a_cut_short_snapshot_falls_back_to_the_ordinary_start(visit, site):
    last = len(heap_parts(site))
    assert last > 1  # in parts
    whole = heap_part(site, last - 1).read_bytes()
    reasons = answered_by(
        visit, part_pattern(last - 1), lambda route: route.fulfill(body=whole[: len(whole) // 2])
    )
    assert any("cut short" in r for r in reasons), reasons


def part_pattern(i: int) -> str:
    return f"**/snapshots/*/{snapshot.HEAP.format(i)}"


def heap_part(site, i: int):
    """Part ``i`` of the site's heap in the built site, in its content-hashed folder."""
    (path,) = (site / "runtime" / "snapshots").glob(f"*/{snapshot.HEAP.format(i)}")
    return path


def heap_parts(site) -> list:
    """The parts of the site's heap in the built site, in order."""
    found = (site / "runtime" / "snapshots").glob(STATE.removeprefix("**/snapshots/"))
    return [heap_part(site, i) for i in range(len(list(found)))]


def other_build(site) -> bytes:
    """The site's heap stamped with another Pyodide build id (bytes 16..48 of its header), as
    one zstd frame."""
    frame = b"".join(part.read_bytes() for part in heap_parts(site))
    heap = bytearray(zstandard.ZstdDecompressor().decompress(frame))
    heap[16:48] = struct.pack("<8I", *range(1, 9))
    return zstandard.ZstdCompressor(level=1).compress(bytes(heap))


def test_a_snapshot_from_another_pyodide_build_falls_back(visit, site):
    stamped = other_build(site)

    def stamped_heap(route):  # the whole stamped frame as the first part, the others empty
        first = route.request.url.endswith(snapshot.HEAP.format(0))
        route.fulfill(body=stamped if first else b"")

    reasons = answered_by(visit, STATE, stamped_heap)
    assert any("build id mismatch" in r for r in reasons), reasons


def test_libraries_that_would_not_land_where_they_were_fall_back(visit):
    """The worker checks the function table before re-linking numpy: a snapshot whose libraries
    sat lower than this browser's own table entries is refused, not restored."""

    def page_with_low_table_bases(route):
        html = route.fetch().text()
        head, config, tail = re.split(r'(?<=id="page-config">)(.*?)(?=</script>)', html, maxsplit=1)
        data = json.loads(config)
        for lib in data["snapshot"]["libs"]:
            lib["tableBase"] = 1
        route.fulfill(body=head + json.dumps(data) + tail, content_type="text/html")

    reasons = answered_by(visit, f"**/{POST1}", page_with_low_table_bases)
    assert any("function table" in r for r in reasons), reasons


DEFERRED = [f"/{name}.zst" for name in snapshot.LATER] + [f"/{snapshot.LATER_FILES}"]


@pytest.mark.parametrize("path", WITH_FIGURES)
def test_moving_every_control_fetches_nothing_deferred(live, path):
    """The heap serves every import the figures make, so a reader who only moves controls never
    downloads the standard library or the wheels' modules (worker/deferred.py)."""
    v = live(path)
    assert start_of(v) == "snapshot"
    assert not [url for url in v.requests if url.endswith(tuple(DEFERRED))]
    moved = 0
    for fig in v.page.locator("[data-figure]").all():
        for select in fig.locator("select").all():
            for index in range(select.locator("option").count()):
                select.select_option(index=index)
                moved += 1
        for handle in fig.locator(".noUi-handle").all():
            handle.focus()
            for key in ("End", "Home", "ArrowRight"):
                v.page.keyboard.press(key)
                moved += 1
        for button in fig.locator(".bk-btn-group button, .bk-btn:not([disabled])").all():
            button.click()
            moved += 1
    v.wait_idle()  # every change answered
    assert moved >= 3 * len(v.page.locator("[data-figure]").all()), moved
    assert v.page.evaluate("() => document.documentElement.dataset.figures") == "live"
    assert not [url for url in v.requests if url.endswith(tuple(DEFERRED))]
    assert v.errors == []
