"""The slim bokeh and panel wheels the worker imports, and what their patches do.

They use the real runtime cache: the first run fills it through npm and pip, later runs
only re-hash it.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

from sitebuild import cache as runtime_cache
from sitebuild import pins, slim, wheels
from sitebuild.files import sha256_file
from tests.sitebuild.wheelmaking import cached_wheel, make_wheel, wheel_names


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
    downloads = cache / runtime_cache.DOWNLOADS
    for name, make_slim in (("bokeh", slim.slim_bokeh), ("panel", slim.slim_panel)):
        full = downloads / pins.wheel_name(name, pins.PURE_WHEELS[name][0])
        first = make_slim(full, tmp_path / "a")
        second = make_slim(full, tmp_path / "b")
        assert first.stat().st_size < 1_500_000 < full.stat().st_size
        assert sha256_file(first) == sha256_file(second)


def test_slim_bokeh_refuses_another_bokeh_release(tmp_path):
    fake = make_wheel(tmp_path, "bokeh", "3.7.2", [])
    with pytest.raises(RuntimeError, match=r"bokeh 3\.7\.2"):
        slim.slim_bokeh(fake, tmp_path / "out")


def patched_panel_module(cache, manifest, path: str):
    """A module of the worker's (patched) panel wheel, imported beside Panel's own: its
    relative imports resolve into the installed Panel, the same release."""
    import importlib.util
    import sys

    source = wheels.read_wheel(cached_wheel(cache, manifest, "panel"))[path]
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


def test_patched_panel_leaves_http_from_python_unpatched(cache, manifest):
    """requests and urllib3 stay out of the worker's heap: Panel no longer patches them."""
    source = wheels.read_wheel(cached_wheel(cache, manifest, "panel"))["panel/io/pyodide.py"]
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
    assert "xyzservices" not in sys.modules  # imported only for map tiles
    tiles = plot.add_tile("OSM")
    assert "openstreetmap" in tiles.tile_source.url, tiles.tile_source.url
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
    full = cache / runtime_cache.DOWNLOADS / pins.wheel_name("bokeh", pins.BOKEH_VERSION)
    done = run_without_pandas(full, tmp_path)
    assert done.returncode != 0
    assert "pandas is not shipped" in done.stderr


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
