"""The runtime cache: trusted only while every file matches its manifest.

They use the real runtime cache: the first run fills it through npm and pip, later runs
only re-hash it.
"""

from __future__ import annotations

import json

import pytest

from sitebuild import cache as runtime_cache
from sitebuild import install
from tests.sitebuild.wheelmaking import quiet


def test_tampered_cache_is_not_trusted(tmp_path, cache, manifest):
    copy = tmp_path / "cache"
    (copy / runtime_cache.WHEELS).mkdir(parents=True)
    (copy / runtime_cache.MANIFEST).write_text(json.dumps(manifest))
    for rel in manifest["files"]:
        (copy / rel).parent.mkdir(parents=True, exist_ok=True)
        (copy / rel).write_bytes((cache / rel).read_bytes())
    assert runtime_cache.read_manifest(copy) is not None
    tqdm = manifest["packages"]["tqdm"]["file_name"]
    (copy / runtime_cache.WHEELS / tqdm).write_bytes(b"not a wheel")
    assert runtime_cache.read_manifest(copy) is None
    with pytest.raises(RuntimeError, match="missing or stale"):
        install.install(copy, tmp_path / "site", [], log=quiet)
