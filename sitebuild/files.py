"""Content hashes, atomic writes and cache keys: what every cache of the build relies on."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path


def sha256_bytes(data: bytes) -> str:
    """Hex sha256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    """Hex sha256 of the file at ``path``, read in chunks (some files are tens of MB)."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def check_sha256(name: str, actual: str, expected: str, source: str) -> None:
    """Refuse a file whose sha256 differs from the one ``source`` promises."""
    if actual != expected:
        raise RuntimeError(
            f"sha256 mismatch for {name}: got {actual}, but {source} says {expected}; "
            "refusing to use it"
        )


def has_content(path: Path, sha256: str) -> bool:
    """Whether ``path`` exists with the content whose sha256 is given."""
    return path.is_file() and sha256_file(path) == sha256


def write_atomic(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file beside it, then rename it in place.

    A build killed midway, or a reader in another thread, never sees half a file: a cache
    entry is either whole or absent. The temporary name is unique per process and thread.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}-{threading.get_ident()}.tmp")
    try:
        with temporary.open("xb") as handle:
            handle.write(data)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    return path


def cache_key(recipe: object) -> str:
    """Hex sha256 of ``recipe`` as JSON with sorted keys: equal recipes, equal keys."""
    return sha256_bytes(json.dumps(recipe, sort_keys=True).encode())


def most_recent(folder: Path, pattern: str, keep: int) -> list[Path]:
    """Delete the files in ``folder`` matching ``pattern`` beyond the ``keep`` most recently
    touched (a cache touches what it uses); returns those deleted."""
    entries = sorted(folder.glob(pattern), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in entries[keep:]:
        old.unlink()
    return entries[keep:]
