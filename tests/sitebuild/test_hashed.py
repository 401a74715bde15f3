"""sitebuild/hashed.py: content-hashed names that change only with what they name."""

import json
import posixpath
from pathlib import Path

import pytest

from sitebuild import hashed, pins

PROJECT = "attention_explained-0.1.0-py3-none-any.whl"
OTHER = "bokeh-3.7.3-py3-none-any.whl"


def small_site(out: Path) -> Path:
    """A site as the build leaves it before hashing: static/, vendor/ trees and runtime/."""
    files = {
        "static/page.js": "page",
        "static/worker.js": "worker",
        "static/site.css": "css",
        "vendor/katex/katex.min.css": "katex",
        "vendor/katex/fonts/KaTeX_Main-Regular.woff2": "font",
        "vendor/panel/dist/panel.min.js": "panel",
        "vendor/panel/dist/css/loading.css": "loading",
        f"runtime/{PROJECT}": "figures v1",
        f"runtime/{OTHER}": "bokeh",
        "runtime/snapshots/post.bin.zst": "heap",
        **{f"runtime/{name}": f"core {name}" for name in pins.PYODIDE_CORE_FILES},
    }
    for rel, text in files.items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_text(text)
    packages = {n.split("-")[0]: {"file_name": n, "sha256": "x"} for n in (PROJECT, OTHER)}
    (out / hashed.LOCK).write_text(json.dumps({"info": {}, "packages": packages}))
    return out


def hash_site(out: Path) -> hashed.Manifest:
    """What build.py does, in its order."""
    return hashed.hash_assets(out) | hashed.hash_runtime(out)


def files_in(out: Path) -> set[str]:
    return {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}


def test_every_file_moves_into_a_folder_named_by_its_hash_keeping_its_name(tmp_path):
    out = small_site(tmp_path / "site")
    before = files_in(out)
    moved = hash_site(out)
    assert set(moved) == before
    assert set(moved.values()) == files_in(out)
    for old, new in moved.items():
        assert posixpath.basename(new) == posixpath.basename(old)
        assert len(new.split("/")) > len(old.split("/"))
    assert not [p for p in out.rglob("*") if p.is_dir() and not any(p.iterdir())]


def test_the_same_content_gets_the_same_names(tmp_path):
    assert hash_site(small_site(tmp_path / "a")) == hash_site(small_site(tmp_path / "b"))


@pytest.mark.parametrize(
    ("changed", "renamed"),
    [
        # A figure's Python: the project wheel, and the lock that names it.
        (f"runtime/{PROJECT}", {f"runtime/{PROJECT}", hashed.LOCK}),
        ("static/site.css", {"static/site.css"}),
        ("runtime/snapshots/post.bin.zst", {"runtime/snapshots/post.bin.zst"}),
        # A vendored tree moves as one.
        ("vendor/katex/fonts/KaTeX_Main-Regular.woff2",
         {"vendor/katex/katex.min.css", "vendor/katex/fonts/KaTeX_Main-Regular.woff2"}),
        # Pyodide's core files share a folder; the lock names wheels relative to it, as
        # ../HASH/NAME, which does not change with it.
        ("runtime/python_stdlib.zip", set(hashed.CORE)),
    ],
)  # fmt: skip
def test_one_changed_file_renames_only_itself_and_what_names_it(tmp_path, changed, renamed):
    a = hash_site(small_site(tmp_path / "a"))
    b_out = small_site(tmp_path / "b")
    (b_out / changed).write_text("changed")
    b = hash_site(b_out)
    assert {rel for rel in a if a[rel] != b[rel]} == renamed


def test_the_lock_names_each_wheel_where_it_moved_relative_to_pyodides_folder(tmp_path):
    out = small_site(tmp_path / "site")
    moved = hash_site(out)
    index = hashed.index_folder(moved)
    assert {posixpath.dirname(moved[rel]) + "/" for rel in hashed.CORE} == {index}
    lock = json.loads((out / moved[hashed.LOCK]).read_text())
    for name in (PROJECT, OTHER):
        (entry,) = [e for e in lock["packages"].values() if e["file_name"].endswith(name)]
        resolved = posixpath.normpath(posixpath.join(index, entry["file_name"]))
        assert resolved == moved[f"runtime/{name}"]


def test_a_folder_of_one_group_is_found_and_a_mixed_one_refused(tmp_path):
    moved = hash_site(small_site(tmp_path / "site"))
    dist = hashed.folder(moved, "vendor/panel/dist/")
    assert moved["vendor/panel/dist/panel.min.js"] == f"{dist}panel.min.js"
    with pytest.raises(ValueError, match="not the folder of one hashed group"):
        hashed.folder(moved, "static/")


def test_urls_refuse_a_file_that_has_no_hashed_name(tmp_path):
    moved = hash_site(small_site(tmp_path / "site"))
    url = hashed.urls(moved, "/base/")
    assert url("static/page.js") == "/base/" + moved["static/page.js"]
    with pytest.raises(ValueError, match="no hashed name"):
        url("static/missing.js")
