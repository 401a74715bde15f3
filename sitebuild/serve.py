"""A static server for the built site under a sub-path, as GitHub Pages serves a project site."""

import functools
import http.server
import threading
from pathlib import Path
from typing import ClassVar


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
