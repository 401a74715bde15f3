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


def test_a_fast_tier_test_that_fills_the_runtime_cache_fails_the_run(tmp_path):
    """The fast tier points the runtime's cache at a folder no test may make (tests/conftest.py)."""
    (tmp_path / "test_fills.py").write_text(
        "from sitebuild.cache import default_cache_dir\n"
        "def test_fills():\n"
        "    default_cache_dir().mkdir(parents=True)\n"
    )
    (tmp_path / "test_reads.py").write_text("def test_reads():\n    assert 1 + 1 == 2\n")
    command = [sys.executable, "-m", "pytest", "-p", "tests.conftest", "--fast", "-q"]

    def run(name: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [*command, "--rootdir", str(tmp_path), str(tmp_path / name)],
            cwd=ROOT, capture_output=True, text=True, check=False,
        )  # fmt: skip

    assert run("test_reads.py").returncode == 0
    filled = run("test_fills.py")
    assert filled.returncode == 1, filled.stdout[-2000:]
    assert "The fast tier filled a runtime cache" in filled.stdout


def test_the_whole_suite_keeps_the_browser_tests_to_one_worker(tmp_path):
    """./dev test's workers (tests/conftest.py): the browser and build tests all run in one
    pytest-xdist worker, which holds the one build and the shared pages; the rest anywhere."""
    (tmp_path / "test_where.py").write_text(
        "import os, pytest\n"
        "def where(tmp, name):\n"
        "    (tmp / name).write_text(os.environ['PYTEST_XDIST_WORKER'])\n"
        "@pytest.mark.browser\n"
        "def test_a(): where(OUT, 'a')\n"
        "@pytest.mark.browser\n"
        "def test_b(): where(OUT, 'b')\n"
        "def test_c(): where(OUT, 'c')\n"
        "def test_d(): where(OUT, 'd')\n"
        "from pathlib import Path\n"
        f"OUT = Path({str(tmp_path)!r})\n"
    )
    command = [sys.executable, "-m", "pytest", "-p", "tests.conftest", "-n", "2"]
    done = subprocess.run(
        [*command, "--dist", "loadgroup", "-q", "--rootdir", str(tmp_path), str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:]
    workers = {name: (tmp_path / name).read_text() for name in "abcd"}
    assert workers["a"] == workers["b"], f"the browser tests ran apart: {workers}"
    assert len(set(workers.values())) == 2, f"one worker did everything: {workers}"
