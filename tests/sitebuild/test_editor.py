"""The cells' code editor: exact pins with integrity, no registry named, a bundle within budget."""

import json

from sitebuild import editor


def lock() -> dict:
    return json.loads((editor.SOURCE / "package-lock.json").read_text())


def test_every_package_in_the_lock_has_an_exact_version_and_integrity():
    packages = {k: v for k, v in lock()["packages"].items() if k}
    assert len(packages) > 6
    for name, entry in packages.items():
        assert entry["version"][0].isdigit() and "^" not in entry["version"], name
        assert entry["integrity"].startswith("sha512-"), name
        assert "resolved" not in entry, f"{name}: the lock must not name a registry"


def test_the_wanted_packages_are_pinned_exactly_and_match_the_lock():
    wanted = json.loads((editor.SOURCE / "package.json").read_text())["dependencies"]
    assert set(wanted) >= {
        "@codemirror/state", "@codemirror/view", "@codemirror/commands",
        "@codemirror/language", "@codemirror/lang-python", "esbuild",
    }  # fmt: skip
    locked = lock()["packages"]
    for name, version in wanted.items():
        assert locked[f"node_modules/{name}"]["version"] == version, name


def test_npm_settings_keep_registry_urls_out_of_the_lock():
    settings = (editor.SOURCE / ".npmrc").read_text().split()
    assert "omit-lockfile-registry-resolved=true" in settings
    for name in editor.RECIPE:
        assert "registry." not in (editor.SOURCE / name).read_text(), name


def test_the_bundle_defines_the_editor_and_fits_the_budget(cache):
    """The bundle is made by npm in the cache the build fills, so not in the fast tier."""
    bundle = editor.ensure_bundle(cache, print)
    data = bundle.read_bytes()
    assert b"cellEditor" in data
    assert 20_000 < editor.gzip_size(data) < editor.MAX_GZIP_BYTES


def test_the_fingerprint_changes_with_the_entry_script(tmp_path):
    for name in editor.RECIPE:
        (tmp_path / name).write_bytes((editor.SOURCE / name).read_bytes())
    before = editor.fingerprint(tmp_path)
    (tmp_path / "entry.js").write_text("// another editor\n")
    assert editor.fingerprint(tmp_path) != before
