"""The engines' table of the benchmark (bench/engines.py): the server's byte count, and the
ratios to Chromium it prints."""

import gzip
import urllib.request

from bench.engines import Counter, EngineLoad, lines
from sitebuild.serve import serve_in_thread


def fetch(url: str, gzipped: bool) -> bytes:
    headers = {"Accept-Encoding": "gzip"} if gzipped else {}
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers)) as response:
        return response.read()


def test_the_counter_counts_every_byte_the_server_writes(tmp_path):
    (tmp_path / "app.js").write_text("let x = 1;\n" * 2000)
    server = serve_in_thread(tmp_path, "/base/")
    try:
        counter = Counter(server)
        url = f"http://127.0.0.1:{server.server_address[1]}/base/app.js"
        body = fetch(url, gzipped=True)
        sent = counter.reset()
        # The body as sent (gzipped, far smaller than the file) and its headers, nothing else.
        assert gzip.decompress(body) == (tmp_path / "app.js").read_bytes()
        assert len(body) < sent < len(body) + 1000
        assert counter.reset() == 0  # counted from the last reset
        fetch(url, gzipped=False)
        assert counter.reset() > 22_000
    finally:
        server.shutdown()


def load(engine: str, live: float, start: str = "snapshot") -> EngineLoad:
    return EngineLoad(engine, live, "live", start, 5_000_000, {"figures-live": live})


def test_the_table_gives_each_engine_as_a_ratio_to_chromium():
    results = {"post/": {"chromium": [load("chromium", 1000), load("chromium", 3000)],
                         "webkit": [load("webkit", 3000), load("webkit", 5000)]}}  # fmt: skip
    table = lines(results, runs=2)
    chromium_row = next(line for line in table if line.split()[1:2] == ["chromium"])
    webkit_row = next(line for line in table if line.split()[1:2] == ["webkit"])
    assert " 1.00 " in chromium_row
    assert " 2.00 " in webkit_row  # median 4 s against 2 s
    assert "snapshot" in webkit_row and "5.0 MB" in webkit_row
