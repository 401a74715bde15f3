"""A static server for the built site under a sub-path, as GitHub Pages serves a project site:
text, scripts and WebAssembly gzipped for a browser that accepts it, and a ten-minute cache
lifetime, so that timings taken through it are the ones a reader of the real host gets.
"""

import functools
import gzip
import http.server
import os
import threading
from pathlib import Path
from typing import ClassVar

# What the host compresses on the fly; everything else (zst, wheels, zips, fonts) is sent as is.
COMPRESSED_TYPES = ("text/", "application/javascript", "application/json", "application/wasm",
                    "image/svg+xml")  # fmt: skip
CACHE_CONTROL = "max-age=600"

_gzipped: dict[tuple[str, int, int], bytes] = {}
_gzip_lock = threading.Lock()


def gzipped(path: str) -> bytes:
    """``path``'s bytes gzipped (level 6), memoised while the file is unchanged."""
    stat = os.stat(path)
    key = (path, stat.st_mtime_ns, stat.st_size)
    with _gzip_lock:
        if key not in _gzipped:
            _gzipped[key] = gzip.compress(Path(path).read_bytes(), 6, mtime=0)
        return _gzipped[key]


class _Handler(http.server.SimpleHTTPRequestHandler):
    base = "/"
    extensions_map: ClassVar[dict[str, str]] = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".whl": "application/zip",
    }

    def translate_path(self, path: str) -> str:
        # Anything outside the base path does not exist, as on the real host.
        if not path.startswith(self.base):
            return str(Path(self.directory) / "__outside_base__")
        return super().translate_path("/" + path[len(self.base) :])

    def do_GET(self) -> None:
        url = self.path.split("?", 1)[0]
        path = self.translate_path(url)
        if url.endswith("/") and os.path.isdir(path):
            path = os.path.join(path, "index.html")
        kind = self.guess_type(path)
        wants = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (wants and kind.startswith(COMPRESSED_TYPES) and os.path.isfile(path)):
            return super().do_GET()
        body = gzipped(path)
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Vary", "Accept-Encoding")
        self.end_headers()
        self.wfile.write(body)

    def end_headers(self) -> None:
        self.send_header("Cache-Control", CACHE_CONTROL)
        super().end_headers()

    def log_message(self, format: str, *args) -> None:  # keep test output quiet
        pass


def make_server(root: Path, base: str, port: int = 0) -> http.server.ThreadingHTTPServer:
    """A server for ``root`` at ``base`` on 127.0.0.1 (port 0 picks a free one)."""
    handler = type("Handler", (_Handler,), {"base": base})
    return http.server.ThreadingHTTPServer(
        ("127.0.0.1", port), functools.partial(handler, directory=str(root))
    )


def serve_forever(root: Path, base: str, port: int) -> None:
    with make_server(root, base, port) as server:
        server.serve_forever()


def serve_in_thread(root: Path, base: str) -> http.server.ThreadingHTTPServer:
    """Start a server in a daemon thread (for tests and the benchmark); call .shutdown()."""
    server = make_server(root, base)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def gzip_ahead(root: Path) -> None:
    """Compress every file the server would gzip now, so that no timed request waits for it."""
    handler = _Handler.__new__(_Handler)  # only its type guessing is used
    for path in sorted(Path(root).rglob("*")):
        if path.is_file() and handler.guess_type(str(path)).startswith(COMPRESSED_TYPES):
            gzipped(str(path))


def switch_root(server: http.server.ThreadingHTTPServer, root: Path) -> None:
    """Answer from ``root`` from the next request on, as the host does after a deploy: the
    folder changes, the headers (the ten-minute cache lifetime) do not."""
    handler = server.RequestHandlerClass.func  # make_server's partial
    server.RequestHandlerClass = functools.partial(handler, directory=str(root))
