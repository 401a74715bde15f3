"""The lock's entries: dependencies evaluated as Pyodide would, and none left dangling."""

import pytest

from sitebuild import lock


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
