"""The fast tier (``./dev test --fast``, tests/conftest.py) leaves out every test that drives a
browser, builds the whole site or needs the runtime's cache, and keeps the rest."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# A browser test, the whole site's build, the runtime's cache, and pure tests beside them.
FILES = [
    "tests/site/test_post1_browser.py",
    "tests/site/test_navigation.py",
    "tests/sitebuild/test_slim.py",
    "tests/sitebuild/test_hashed.py",
    "tests/formatting/test_formatting.py",
]


def collected(*options: str) -> set[str]:
    """The test ids pytest collects from FILES with ``options``."""
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q", *options, *FILES]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return {line for line in done.stdout.splitlines() if "::" in line}


def test_the_fast_tier_leaves_out_the_browser_the_build_and_the_runtime():
    whole, fast = collected(), collected("--fast")
    left_out = whole - fast
    assert fast < whole
    assert {i.split("::")[0] for i in left_out} == {
        "tests/site/test_post1_browser.py",  # a browser
        "tests/site/test_navigation.py",  # the site built whole
        "tests/sitebuild/test_slim.py",  # the runtime's cache, at least in part
    }
    assert not [i for i in fast if "_browser.py" in i]
    # What needs none of them stays, the pure tests of the same files among them.
    for kept in ("test_hashed.py", "test_formatting.py", "test_slim.py", "test_navigation.py"):
        assert any(i.split("::")[0].endswith(kept) for i in fast), kept


def pytest_in(folder: Path, *options: str) -> subprocess.CompletedProcess:
    """pytest run on the test files in ``folder`` with this suite's settings (tests/conftest.py)."""
    command = [sys.executable, "-m", "pytest", "-p", "tests.conftest", "-q", *options]
    return subprocess.run(
        [*command, "--rootdir", str(folder), str(folder)],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip


def test_a_fast_tier_test_that_fills_the_runtime_cache_fails_the_run(tmp_path):
    """The fast tier points the runtime's cache at a folder no test may make (tests/conftest.py)."""
    reads, fills = tmp_path / "reads", tmp_path / "fills"
    reads.mkdir(), fills.mkdir()
    (reads / "test_reads.py").write_text("def test_reads():\n    assert 1 + 1 == 2\n")
    (fills / "test_fills.py").write_text(
        "from sitebuild.cache import default_cache_dir\n"
        "def test_fills():\n"
        "    default_cache_dir().mkdir(parents=True)\n"
    )
    assert pytest_in(reads, "--fast").returncode == 0
    filled = pytest_in(fills, "--fast")
    assert filled.returncode == 1, filled.stdout[-2000:]
    assert "The fast tier filled a runtime cache" in filled.stdout


def test_the_whole_suite_keeps_the_browser_tests_to_one_worker(tmp_path):
    """./dev test's workers (tests/conftest.py): the browser and build tests all run in one
    pytest-xdist worker, which holds the one build and the shared pages; the rest anywhere."""
    suite, out = tmp_path / "suite", tmp_path / "out"
    suite.mkdir(), out.mkdir()
    (suite / "test_where.py").write_text(
        "import os, pytest\n"
        "from pathlib import Path\n"
        f"OUT = Path({str(out)!r})\n"
        "def where(name): (OUT / name).write_text(os.environ['PYTEST_XDIST_WORKER'])\n"
        "@pytest.mark.browser\n"
        "def test_a(): where('a')\n"
        "@pytest.mark.browser\n"
        "def test_b(): where('b')\n"
        "def test_c(): where('c')\n"
        "def test_d(): where('d')\n"
    )
    done = pytest_in(suite, "-n", "2", "--dist", "loadgroup")
    assert done.returncode == 0, done.stdout[-2000:]
    workers = {name: (out / name).read_text() for name in "abcd"}
    assert workers["a"] == workers["b"], f"the browser tests ran apart: {workers}"
    assert len(set(workers.values())) == 2, f"one worker did everything: {workers}"


def test_a_test_that_runs_long_is_named_while_it_runs(tmp_path, monkeypatch):
    """A hung run says which test it waits in (tests/conftest.py), and a quick one says nothing."""
    (tmp_path / "test_slow.py").write_text(
        "import time\ndef test_quick(): pass\ndef test_slow(): time.sleep(3)\n"
    )
    monkeypatch.setenv("ATTENTION_STILL_RUNNING_S", "1")
    for workers in ("0", "2"):  # in pytest's own process, and in pytest-xdist's workers
        done = pytest_in(tmp_path, "-p", "no:cacheprovider", "-n", workers)
        assert done.returncode == 0, done.stdout[-2000:]
        assert "still running after 1 s: test_slow.py::test_slow" in done.stderr, workers
        assert "test_quick" not in done.stderr
