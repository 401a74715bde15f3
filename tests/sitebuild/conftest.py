"""Fixtures for the runtime's tests: the real runtime cache's manifest and official lock (the
cache itself, filled on first use, is tests/conftest.py's ``cache``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitebuild import cache as runtime_cache
from sitebuild import pins


@pytest.fixture(scope="session")
def manifest(cache: Path) -> dict:
    return runtime_cache.load_manifest(cache)


@pytest.fixture(scope="session")
def official_lock(cache: Path) -> dict:
    return json.loads((cache / runtime_cache.CORE / pins.LOCK_NAME).read_text())
