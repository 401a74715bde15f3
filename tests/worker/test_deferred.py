"""worker.deferred: the deferred files are fetched once, before the first import that reaches
the finders, and a failed fetch fails that import with a message, not the worker."""

import importlib
import sys
import zipfile

import pytest

from worker import deferred


@pytest.fixture
def module_dir(tmp_path, monkeypatch):
    """A folder on sys.path with a module no test has imported; the finders put back after."""
    (tmp_path / "deferred_probe.py").write_text("ANSWER = 42\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    monkeypatch.delitem(sys.modules, "deferred_probe", raising=False)
    return tmp_path


def test_the_first_new_import_fetches_once_then_the_finder_steps_aside(module_dir):
    calls = []
    deferred.install(lambda name: calls.append(f"fetched for {name}"))
    import json  # in sys.modules already: no finder is asked

    assert json and calls == []
    import deferred_probe

    assert deferred_probe.ANSWER == 42
    assert calls == ["fetched for deferred_probe"]
    assert not [f for f in sys.meta_path if isinstance(f, deferred.FetchFirst)]


def test_a_failed_fetch_fails_the_import_with_a_message_and_tries_again_next_time(module_dir):
    answers = [OSError("503 Service Unavailable"), None]

    def fetch(_name):
        answer = answers.pop(0)
        if answer:
            raise answer

    deferred.install(fetch)
    with pytest.raises(ImportError, match=r"deferred_probe cannot be imported: .*503"):
        import deferred_probe
    import deferred_probe

    assert deferred_probe.ANSWER == 42 and answers == []


def test_a_zip_written_by_the_fetch_serves_the_same_import(tmp_path, monkeypatch):
    """As in the worker: the zip on the path is an empty stand-in until the fetch writes it,
    and the zip's importer (which may have read the stand-in) sees the real one."""
    archive = tmp_path / "library.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("zipped_first.py", "")
        z.writestr("zipped_later.py", "Y = 'from the zip'\n")
    real = archive.read_bytes()
    monkeypatch.syspath_prepend(str(archive))
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    import zipped_first  # noqa: F401  (the zip's importer now exists)

    archive.write_bytes(b"")
    importlib.invalidate_caches()  # anything may do this while the stand-in is there
    deferred.install(lambda _name: archive.write_bytes(real))
    import zipped_later

    assert zipped_later.Y == "from the zip"
    for name in ("zipped_first", "zipped_later"):
        del sys.modules[name]
