"""The build's one way to run its Node scripts (sitebuild/node.py): what a script printed
comes back, and a failure says what it was for and how the script ended."""

from __future__ import annotations

import pytest

from sitebuild import node


def test_a_script_gets_its_arguments_and_input_and_its_output_comes_back(tmp_path):
    script = tmp_path / "echo.js"
    script.write_text(
        "let input = require('fs').readFileSync(0, 'utf8');"
        "process.stdout.write(JSON.stringify([process.argv[2], input]));"
    )
    assert node.run_script(script, ["one"], "to test", stdin="two") == '["one","two"]'


def test_a_failing_script_is_named_with_its_purpose_and_its_last_words(tmp_path):
    script = tmp_path / "fails.js"
    script.write_text("console.error('first'); console.error('the reason'); process.exit(3);")
    with pytest.raises(RuntimeError, match=r"node fails.js failed \(to test\): first / the reason"):
        node.run_script(script, [], "to test")


def test_without_node_the_error_names_the_package_to_install(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(RuntimeError, match=r"node is needed to test \(Debian package: nodejs\)"):
        node.run_script(tmp_path / "any.js", [], "to test")
