"""A static server for the built site under a sub-path, as GitHub Pages serves a project site:
text, scripts and WebAssembly gzipped for a browser that accepts it, and a ten-minute cache
lifetime, so that timings taken through it are the ones a reader of the real host gets.

Under the serve command's watch mode (sitebuild/watch.py) the server is also told of every
build (a ``Live``): it then adds the live-reload script to the HTML it sends, never to the
files on disk, answers the script's polls for the build id and the build error, and asks the
browser to revalidate every file, since a rebuilt file keeps its name there.
"""

import functools
import gzip
import http.server
import json
import os
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

# What the host compresses on the fly; everything else (zst, wheels, zips, fonts) is sent as is.
COMPRESSED_TYPES = ("text/", "application/javascript", "application/json", "application/wasm",
                    "image/svg+xml")  # fmt: skip
CACHE_CONTROL = "max-age=600"

LIVE = "__live__/"  # under the base path: the watch mode's script and the state it polls
RELOAD_SCRIPT = Path(__file__).with_name("reload.js")

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


@dataclass
class Live:
    """What the open pages learn under the watch mode: the id of the build they should show,
    and the error of the last rebuild, if it failed (the pages still show the build before)."""

    build: str = "0"
    error: str | None = None
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def set(self, build: str | None = None, error: str | None = None) -> None:
        """A new build (``build``) or a failed rebuild (``error``): what the pages learn next."""
        with self.lock:
            self.build = build or self.build
            self.error = error

    def state(self) -> bytes:
        with self.lock:
            return json.dumps({"build": self.build, "error": self.error}).encode()


def with_reload_script(html: bytes, script_url: str) -> bytes:
    """``html`` with the live-reload script in its head (or at its end, if it has none)."""
    tag = f'<script defer src="{script_url}"></script>'.encode()
    if b"</head>" in html:
        return html.replace(b"</head>", tag + b"\n</head>", 1)
    return html + tag


class _Handler(http.server.SimpleHTTPRequestHandler):
    base = "/"
    live: Live | None = None
    extensions_map: ClassVar[dict[str, str]] = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".whl": "application/zip",
        ".ipynb": "application/x-ipynb+json",  # the posts' notebooks (sitebuild/notebook.py)
    }

    def translate_path(self, path: str) -> str:
        # Anything outside the base path does not exist, as on the real host.
        if not path.startswith(self.base):
            return str(Path(self.directory) / "__outside_base__")
        return super().translate_path("/" + path[len(self.base) :])

    def do_GET(self) -> None:
        url = self.path.split("?", 1)[0]
        if self.live and url.startswith(self.base + LIVE):
            return self.send_live(url[len(self.base + LIVE) :])
        path = self.translate_path(url)
        if url.endswith("/") and os.path.isdir(path):
            path = os.path.join(path, "index.html")
        kind = self.guess_type(path)
        if self.live and kind == "text/html" and os.path.isfile(path):
            script = f"{self.base}{LIVE}reload.js?build={self.live.build}"
            return self.send_body(with_reload_script(Path(path).read_bytes(), script), kind)
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

    def send_live(self, name: str) -> None:
        """The watch mode's own two answers: its script, and the state the script polls."""
        if name == "reload.js":
            return self.send_body(RELOAD_SCRIPT.read_bytes(), "text/javascript")
        if name == "state":
            return self.send_body(self.live.state(), "application/json")
        self.send_error(404)

    def send_body(self, body: bytes, kind: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache" if self.live else CACHE_CONTROL)
        super().end_headers()

    def log_message(self, format: str, *args) -> None:  # keep test output quiet
        pass


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address) -> None:
        # A browser that closes a page mid-download closes its connections, and the answer's
        # write then fails: the reader has gone, nothing went wrong here.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def make_server(
    root: Path, base: str, port: int = 0, live: Live | None = None
) -> http.server.ThreadingHTTPServer:
    """A server for ``root`` at ``base`` on 127.0.0.1 (port 0 picks a free one); with ``live``,
    the watch mode's server."""
    handler = type("Handler", (_Handler,), {"base": base, "live": live})
    return _Server(("127.0.0.1", port), functools.partial(handler, directory=str(root)))


def serve_forever(root: Path, base: str, port: int) -> None:
    with make_server(root, base, port) as server:
        server.serve_forever()


def serve_in_thread(
    root: Path, base: str, live: Live | None = None, port: int = 0
) -> http.server.ThreadingHTTPServer:
    """Start a server in a daemon thread (for tests, the benchmark and the watch mode); call
    .shutdown()."""
    server = make_server(root, base, port, live)
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
