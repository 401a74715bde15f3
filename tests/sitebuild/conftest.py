"""Fixtures for the runtime's tests: the real runtime cache, its manifest, the official lock.

The first run fills the cache through npm and pip; later runs only re-hash it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitebuild import cache as runtime_cache
from sitebuild import pins
from tests.sitebuild.wheelmaking import quiet


@pytest.fixture(scope="session")
def cache() -> Path:
    return runtime_cache.ensure_cache(runtime_cache.default_cache_dir(), log=quiet)


@pytest.fixture(scope="session")
def manifest(cache: Path) -> dict:
    return runtime_cache.load_manifest(cache)


@pytest.fixture(scope="session")
def official_lock(cache: Path) -> dict:
    return json.loads((cache / runtime_cache.CORE / pins.LOCK_NAME).read_text())
