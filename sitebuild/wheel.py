"""Package the project's own Python (attention/ and figures/) as a wheel for the browser."""

import base64
import hashlib
import zipfile
from pathlib import Path

NAME, VERSION = "attention_explained", "0.1.0"
PACKAGES = ("attention", "formatting", "figures")


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def build_wheel(root: Path, dest: Path) -> Path:
    """Write ``NAME-VERSION-py3-none-any.whl`` into ``dest`` from the packages under ``root``."""
    dist_info = f"{NAME}-{VERSION}.dist-info"
    files: dict[str, bytes] = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            files[path.relative_to(root).as_posix()] = path.read_bytes()
    files[f"{dist_info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: {NAME.replace('_', '-')}\nVersion: {VERSION}\n"
    ).encode()
    files[f"{dist_info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: sitebuild\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    files[f"{dist_info}/top_level.txt"] = "\n".join(PACKAGES).encode() + b"\n"
    record = [_record_line(name, data) for name, data in files.items()]
    files[f"{dist_info}/RECORD"] = ("\n".join([*record, f"{dist_info}/RECORD,,"]) + "\n").encode()

    dest.mkdir(parents=True, exist_ok=True)
    wheel = dest / f"{NAME}-{VERSION}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            # A fixed timestamp keeps the wheel (and its sha256) reproducible.
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    return wheel
