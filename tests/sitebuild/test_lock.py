"""The lock's entries: dependencies evaluated as Pyodide would, and none left dangling."""

import pytest

from sitebuild import lock
from tests.sitebuild.wheelmaking import make_wheel


def test_markers_are_evaluated_as_in_pyodide():
    env = lock.pyodide_markers()
    assert (env["sys_platform"], env["platform_machine"]) == ("emscripten", "wasm32")
    assert env["python_version"] == "3.12"


def test_a_lock_naming_a_package_it_lacks_is_refused():
    entries = {"panel": {"depends": ["bokeh", "param"]}, "bokeh": {"depends": []}}
    with pytest.raises(RuntimeError, match=r"panel depends on \['param'\]"):
        lock.check_lock_closed(entries)
    lock.check_lock_closed({**entries, "param": {"depends": []}})


def test_the_trimmed_lock_keeps_the_official_info_and_sorts_the_packages():
    entries = {"b": {"depends": ["a"]}, "a": {"depends": []}}
    trimmed = lock.trimmed_lock({"version": "0.27.7"}, entries)
    assert trimmed == {
        "info": {"version": "0.27.7"},
        "packages": {"a": entries["a"], "b": entries["b"]},
    }
    assert list(trimmed["packages"]) == ["a", "b"]


def test_a_requirement_only_pyodide_has_joins_the_wheels_depends(tmp_path):
    """Panel in Pyodide imports pandas unless pyodide_http imports, which its metadata omits."""
    panel = make_wheel(tmp_path, "panel", "1.7.5", ["param>=2"])
    shipped = {"param": "2.4.2", "pyodide-http": "0.2.2"}
    assert lock.pure_lock_entry(panel, shipped)["depends"] == ["param", "pyodide-http"]
    other = make_wheel(tmp_path, "other", "1.0", ["param>=2"])
    assert lock.pure_lock_entry(other, shipped)["depends"] == ["param"]
    with pytest.raises(RuntimeError, match="requires pyodide-http"):
        lock.pure_lock_entry(panel, {"param": "2.4.2"})
