"""Downloads from the package registries, through their own clients, each checked against its pin.

npm fetches the Pyodide core and the zstd decoder, pip the pure wheels; PyYAML and
MarkupSafe are built from their pinned sources as pure-Python wheels.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from sitebuild import pins
from sitebuild.files import check_sha256, has_content, sha256_file
from sitebuild.wheels import binary_members, read_wheel, write_wheel

Log = Callable[[str], None]
PINNED = "the pin in sitebuild/pins.py"


def run(cmd: list[str], log: Log, env: dict[str, str] | None = None, cwd: Path | None = None):
    """Run a registry client; on failure raise with the tail of its output."""
    log("runtime: " + " ".join(cmd[2:] if cmd[0] == sys.executable else cmd))
    done = subprocess.run(
        cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL
    )
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-20:])
        raise RuntimeError(f"command failed ({done.returncode}): {' '.join(cmd)}\n{tail}")
    return done


def npm_pack(name: str, version: str, sha256: str, downloads: Path, log: Log) -> Path:
    """`npm pack name@version` into ``downloads``; return the tarball, checked against sha256."""
    tarball = downloads / f"{name}-{version}.tgz"
    if not has_content(tarball, sha256):
        npm = shutil.which("npm")
        if npm is None:
            raise RuntimeError(f"npm is needed once to fetch {name} (npm pack {name})")
        downloads.mkdir(parents=True, exist_ok=True)
        run([npm, "pack", f"{name}@{version}", "--pack-destination", "."], log, cwd=downloads)
        check_sha256(tarball.name, sha256_file(tarball), sha256, PINNED)
    return tarball


def fetch_pyodide(downloads: Path, log: Log) -> Path:
    """The verified npm tarball of pyodide@PYODIDE_VERSION."""
    return npm_pack("pyodide", pins.PYODIDE_VERSION, pins.PYODIDE_NPM_SHA256, downloads, log)


def fetch_zstd_decoder(downloads: Path, log: Log) -> Path:
    """The verified npm tarball of the zstd decoder."""
    return npm_pack(*pins.ZSTD_DECODER, pins.ZSTD_NPM_SHA256, downloads, log)


def fetch_wheels(downloads: Path, log: Log) -> dict[str, Path]:
    """`pip download` the pinned wheels missing from ``downloads`` (hash-checked by pip and
    again here). Returns file name -> path for all of them."""
    wanted = pins.pinned_wheels()
    missing = {f: pin for f, pin in wanted.items() if not has_content(downloads / f, pin[1])}
    if missing:
        downloads.mkdir(parents=True, exist_ok=True)
        requirements = downloads / "requirements-wheels.txt"
        requirements.write_text(
            "".join(f"{req} --hash=sha256:{sha}\n" for req, sha in missing.values())
        )
        run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
             "--python-version", "3.12", "--implementation", "py", "--abi", "none",
             "--platform", "any", "--require-hashes", "-r", str(requirements),
             "-d", str(downloads)],
            log,
        )  # fmt: skip
        for file_name, (req, sha) in missing.items():
            path = downloads / file_name
            if not path.is_file():
                raise RuntimeError(f"pip did not produce {file_name} for {req}")
            check_sha256(file_name, sha256_file(path), sha, PINNED)
    return {f: downloads / f for f in wanted}


def build_source_wheels(built: Path, log: Log) -> dict[str, Path]:
    """Build PyYAML and MarkupSafe from their pinned sources as pure-Python wheels."""
    out: dict[str, Path] = {}
    for name, (version, sha, extra_env) in pins.SOURCE_WHEELS.items():
        wheel = built / pins.wheel_name(name, version)
        if not wheel.is_file():
            built.mkdir(parents=True, exist_ok=True)
            requirements = built / f"requirements-{name}.txt"
            requirements.write_text(f"{name}=={version} --hash=sha256:{sha}\n")
            # No C compiler: the build falls back to pure Python. No pip cache: a cached
            # wheel might carry the C extension.
            env = {**os.environ, **extra_env, "CC": shutil.which("false") or "false"}
            run(
                [sys.executable, "-m", "pip", "wheel", "--no-cache-dir", "--no-deps",
                 f"--no-binary={name}", "--require-hashes", "-r", str(requirements),
                 "-w", str(built)],
                log,
                env=env,
            )  # fmt: skip
            if not wheel.is_file():
                raise RuntimeError(f"building {name}=={version} did not give {wheel.name}")
        write_wheel(wheel, read_wheel(wheel))  # fixed timestamps: same bytes every build
        if binaries := binary_members(wheel):
            raise RuntimeError(f"{wheel.name} is not pure Python: it contains {binaries}")
        out[name] = wheel
    return out
