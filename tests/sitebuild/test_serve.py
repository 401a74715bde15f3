"""The local server behaves like the static host: gzip where the host gzips, cache lifetime."""

import gzip
import urllib.error
import urllib.request

import pytest

from sitebuild.serve import CACHE_CONTROL, gzip_ahead, make_server, serve_in_thread

BASE = "/sub/"


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    site = tmp_path_factory.mktemp("site")
    (site / "page").mkdir()
    (site / "page" / "index.html").write_text("<p>" + "hello " * 1000)
    (site / "app.js").write_text("let x = 1;\n" * 1000)
    (site / "core.wasm").write_bytes(b"\0asm" + bytes(4000))
    (site / "state.bin.zst").write_bytes(bytes(4000))
    gzip_ahead(site)
    server = serve_in_thread(site, BASE)
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def get(url: str, accept_gzip: bool = True):
    headers = {"Accept-Encoding": "gzip, deflate"} if accept_gzip else {}
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers)) as response:
        return response.headers, response.read()


@pytest.mark.parametrize("path", ["page/", "app.js", "core.wasm"])
def test_text_scripts_and_webassembly_are_gzipped(root, tmp_path, path):
    headers, body = get(f"{root}{BASE}{path}")
    assert headers["Content-Encoding"] == "gzip"
    assert headers["Cache-Control"] == CACHE_CONTROL
    plain = get(f"{root}{BASE}{path}", accept_gzip=False)
    assert plain[0]["Content-Encoding"] is None
    assert gzip.decompress(body) == plain[1]
    assert len(body) < len(plain[1]) / 5


def test_compressed_files_go_as_they_are(root):
    headers, body = get(f"{root}{BASE}state.bin.zst")
    assert headers["Content-Encoding"] is None
    assert body == bytes(4000)
    assert headers["Cache-Control"] == CACHE_CONTROL


def test_nothing_outside_the_base_path(root):
    with pytest.raises(urllib.error.HTTPError) as found:
        get(f"{root}/app.js")
    assert found.value.code == 404


def test_a_reader_gone_mid_answer_is_not_an_error(tmp_path, capsys):
    """A browser closing a page mid-download breaks the answer's write; the server says nothing
    of it, and still reports what does go wrong."""
    with make_server(tmp_path, BASE) as server:
        for error in (BrokenPipeError(32, "Broken pipe"), ConnectionResetError(104, "reset")):
            try:
                raise error
            except ConnectionError:
                server.handle_error(None, ("127.0.0.1", 1))
        assert capsys.readouterr().err == ""
        try:
            raise ValueError("a real fault")
        except ValueError:
            server.handle_error(None, ("127.0.0.1", 1))
        assert "ValueError: a real fault" in capsys.readouterr().err
