"""The build: every page renders, every local link resolves, nothing is loaded from elsewhere."""

import json
import re
import zipfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import jinja2
import pytest
import zstandard

import build
import pages
from sitebuild import pagescript
from sitebuild.files import sha256_file
from sitebuild.heap import heap_offset, unpacked
from sitebuild.snapshot import LATER_FILES
from tests.site.conftest import BASE
from tests.sitebuild.test_snapshot import unpack


class _Links(HTMLParser):
    """Collects what a page loads (src, stylesheet hrefs) and what it links to (<a href>)."""

    def __init__(self) -> None:
        super().__init__()
        self.loads: list[str] = []
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "a" and a.get("href"):
            self.links.append(a["href"])
        elif a.get("src"):
            self.loads.append(a["src"])
        elif tag == "link" and a.get("rel") in ("canonical", "alternate"):
            self.links.append(a["href"])  # names the page or its feed: loads nothing
        elif tag == "link" and a.get("href"):
            self.loads.append(a["href"])


class _Prose(HTMLParser):
    """The text a reader reads as prose: outside math, code, scripts and templates."""

    # Elements with no end tag, and those whose text is not prose.
    VOID = frozenset("area base br col embed hr img input link meta source wbr".split())
    NOT_PROSE = frozenset("script style pre code template math".split())

    def __init__(self) -> None:
        super().__init__()
        self.open: list[bool] = []  # per open element: whether it is not prose
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in self.VOID:
            return
        classes = (dict(attrs).get("class") or "").split()
        self.open.append(tag in self.NOT_PROSE or "katex" in classes)

    def handle_endtag(self, tag):
        if tag not in self.VOID and self.open:
            self.open.pop()

    def handle_data(self, data):
        if not any(self.open):
            self.text.append(data)


def _parse(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text())
    return parser


def _local_file(site: Path, url: str) -> Path:
    path = urlsplit(url).path
    assert path.startswith(BASE), f"{url} is outside the site's base path {BASE}"
    target = site / path[len(BASE) :]
    return target / "index.html" if path.endswith("/") else target


def html_pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def test_every_page_is_built(site):
    built = {p.parent.relative_to(site).as_posix() for p in html_pages(site)}
    assert built == {page.SLUG or "." for page in pages.all_pages()}


def test_every_local_link_and_asset_resolves(site):
    for page in html_pages(site):
        found = _parse(page)
        for url in found.loads + [u for u in found.links if not urlsplit(u).scheme]:
            if url.startswith("#"):
                continue
            assert _local_file(site, url).is_file(), f"{page}: {url} does not resolve"


def test_no_page_loads_anything_from_another_origin(site):
    for page in html_pages(site):
        found = _parse(page)
        assert [u for u in found.loads if urlsplit(u).scheme or u.startswith("//")] == []


def test_stylesheets_load_nothing_from_another_origin(site):
    for css in site.rglob("*.css"):
        urls = re.findall(r"url\(\s*['\"]?([^'\")]+)", css.read_text())
        assert [u for u in urls if re.match(r"(https?:)?//", u)] == [], css


def test_scripts_and_documents_name_no_cdn(site):
    """The figure documents and our scripts point Panel's CSS at the self-hosted copy."""
    scripts = list((site / "static").rglob("*.js"))
    assert {path.name for path in scripts} >= {"page.js", "cells.js", "worker.js"}
    for path in [*html_pages(site), *scripts]:
        text = path.read_text()
        assert "cdn.holoviz.org" not in text and "cdn.jsdelivr.net" not in text, path


def test_the_page_script_ships_bundled_not_as_its_modules(site):
    (page_js,) = (site / "static").rglob("page.js")
    text = page_js.read_text()
    for name in pagescript.modules():
        assert f"// {pagescript.SOURCE}/{name}" in text, name
        if name != "page.js":
            assert not list((site / "static").rglob(name)), name


def test_no_tex_leaks_into_the_prose(site):
    # A number formatted for math ("4{,}096") printed outside $...$ shows its braces.
    for page in html_pages(site):
        prose = _Prose()
        prose.feed(page.read_text())
        text = " ".join(prose.text)
        assert text.strip(), page
        leaks = re.findall(r".{0,30}(?:[{}$]|\\[A-Za-z]+).{0,10}", text)
        assert leaks == [], f"{page}: {leaks}"


def test_a_missing_variable_fails_the_build(tmp_path):
    (tmp_path / "t.html").write_text("<p>{{ n.missing }}</p>")
    with pytest.raises(jinja2.UndefinedError):
        build.environment(tmp_path).get_template("t.html").render(n={})


def test_a_bad_base_url_is_refused(tmp_path):
    with pytest.raises(SystemExit, match="base-url"):
        build.build(tmp_path / "out", base="no-slashes")


def page_config(path: Path) -> dict | None:
    pattern = r'<script type="application/json" id="page-config">(.*?)</script>'
    found = re.search(pattern, path.read_text())
    return json.loads(found.group(1)) if found else None


def test_every_page_with_figures_has_a_snapshot_that_resolves(site):
    configs = {p: page_config(p) for p in html_pages(site)}
    with_figures = {p: c for p, c in configs.items() if c}
    assert len(with_figures) == len(pages.posts())
    # One snapshot for the whole site: every page restores the same heap.
    assert len({json.dumps(c["snapshot"]) for c in with_figures.values()}) == 1
    for config in with_figures.values():
        snapshot = config["snapshot"]
        parts = [_local_file(site, url) for url in snapshot["state"]]
        assert sum(part.stat().st_size for part in parts) > 1_000_000
        # Each part small enough for a private window's memory cache to keep (about 6 MB).
        assert len(parts) > 1 and all(part.stat().st_size < 5_000_000 for part in parts)
        assert _local_file(site, snapshot["files"]).is_file()
        assert _local_file(site, snapshot["decoder"]).read_bytes()[:4] == b"\0asm"
        # The sizes the worker unpacks to are the ones the zstd frames record (the heap's
        # parts are one frame, its header in the first part).
        for key, path in (("state", parts[0]), ("files", _local_file(site, snapshot["files"]))):
            with path.open("rb") as frame:
                assert snapshot[f"{key}Bytes"] == zstandard.frame_content_size(frame.read(18))
        # numpy's libraries, in load order, each past the room left for the browser's own.
        tables = [lib["tableBase"] for lib in snapshot["libs"]]
        assert len(tables) > 10 and tables == sorted(tables)
        assert snapshot["tableAfterLibs"] > tables[-1]


def figure_page_config(site: Path) -> dict:
    """The config of the site's first page with figures (every such page shares its snapshot)."""
    return next(filter(None, map(page_config, html_pages(site))))


def test_the_heap_links_only_the_libraries_the_figures_import(site):
    """numpy's libraries that no figure imports (its FFT, its tests') are not linked in the
    heap: they ship with the files only an import opens, beside the modules no figure imports."""
    snapshot = figure_page_config(site)["snapshot"]
    linked = {lib["name"].rsplit("/", 1)[1].split(".")[0] for lib in snapshot["libs"]}
    assert {"_multiarray_umath", "_umath_linalg", "_generator", "mtrand"} <= linked
    later_url = next(f["url"] for f in snapshot["later"] if f["file"] == LATER_FILES)
    later = unpack(_local_file(site, later_url).read_bytes())
    now = unpack(_local_file(site, snapshot["files"]).read_bytes())
    libraries = {
        rel.rsplit("/", 1)[1].split(".")[0]: rel for rel in {*later, *now} if rel.endswith(".so")
    }
    for name in ("_pocketfft_umath", "lapack_lite", "_simd", "_umath_tests"):
        assert name not in linked and libraries[name] in later, name
    assert all(libraries[name] in now for name in linked)


def shipped_heap(site: Path) -> tuple[dict, bytes, bytes]:
    """The site's snapshot config, its heap as shipped (unpacked) and Pyodide's WebAssembly."""
    snapshot = figure_page_config(site)["snapshot"]
    frame = b"".join(_local_file(site, url).read_bytes() for url in snapshot["state"])
    packed = next(p for p in snapshot["packed"] if p["file"] == "pyodide.asm.wasm")
    module = _local_file(site, packed["url"]).read_bytes()
    unzstd = zstandard.ZstdDecompressor().decompress
    return snapshot, unpacked(unzstd(frame), snapshot["snapshotBytes"]), unzstd(module)


def test_the_heap_ships_the_static_data_as_what_python_changed_in_it(site):
    """The heap's static data is XORed with Pyodide's WebAssembly's data segment, which the
    worker downloads anyway: most of it unchanged, so mostly zeros; undone, the segment."""
    snapshot, saved, module = shipped_heap(site)
    where = snapshot["staticData"]
    start = heap_offset(saved) + where["base"]
    shipped = saved[start : start + where["bytes"]]
    assert shipped.count(0) > 0.9 * len(shipped)
    segment = module[where["at"] : where["at"] + where["bytes"]]
    undone = bytes(a ^ b for a, b in zip(shipped, segment, strict=True))
    assert undone.count(0) < 0.9 * len(undone)  # the data Python starts from, not zeros


def test_the_heap_holds_no_copy_of_numpys_libraries(site):
    """Python's imports read each library's file into memory through C's dlopen, which keeps
    the copy; the build frees them before it saves the heap (7 MB of it)."""
    snapshot, saved, _ = shipped_heap(site)
    files = unpack(_local_file(site, snapshot["files"]).read_bytes())
    libraries = {rel: data for rel, data in files.items() if rel.endswith(".so")}
    assert len(libraries) > 10
    assert [rel for rel, data in libraries.items() if data[1000:1128] in saved] == []


def test_the_ordinary_start_ships_bytecode_for_what_it_imports(site):
    """The ordinary start's standard library (sitebuild/startup.py) is Pyodide's with bytecode
    in place of the modules Pyodide's start, numpy and the figures import, and of those alone;
    numpy's wheel has bytecode in place of the modules the figures import, and the lock pins
    that wheel. The snapshot start's standard library is Pyodide's own, untouched."""
    config = figure_page_config(site)
    urls = config["urls"]
    with zipfile.ZipFile(_local_file(site, urls["stdlib"])) as stdlib:
        names = stdlib.namelist()
    compiled = {name[:-1] for name in names if name.endswith(".pyc")}
    # Pyodide's own start, then json for its messages, then what numpy imports.
    assert {"_pyodide/__init__.py", "json/__init__.py", "pickle.py"} <= compiled
    assert 50 < len(compiled) < len(names) / 2
    original = _local_file(site, urls["pyodide"] + "python_stdlib.zip")
    with zipfile.ZipFile(original) as pyodides:
        assert [n for n in pyodides.namelist() if n.endswith(".pyc")] == []
        assert pyodides.namelist() == [n[:-1] if n.endswith(".pyc") else n for n in names]
    lock = json.loads(_local_file(site, urls["lock"]).read_text())["packages"]["numpy"]
    wheel = _local_file(site, urls["pyodide"] + lock["file_name"])
    assert sha256_file(wheel) == lock["sha256"]
    with zipfile.ZipFile(wheel) as numpy:
        members = set(numpy.namelist())
    assert {"numpy/__init__.pyc", "numpy/linalg/__init__.pyc"} <= members
    assert not members & {"numpy/__init__.py", "numpy/linalg/__init__.py"}
    # No figure imports f2py: its source ships as it was.
    assert "numpy/f2py/__init__.py" in members and "numpy/f2py/__init__.pyc" not in members
