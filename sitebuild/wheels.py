"""Reading and writing wheels: the one writer for the slimmed third-party wheels, the
precompiled ones and the project's own wheel.

Every wheel written here has a fresh RECORD, its members sorted with the dist-info last (as
the wheel spec recommends) and one fixed timestamp, so the same files give the same bytes,
and so the same sha256 in the lock, on every build.
"""

from __future__ import annotations

import base64
import csv
import email.message
import email.parser
import hashlib
import io
import tomllib
import zipfile
from pathlib import Path, PurePosixPath

from packaging.utils import canonicalize_name

from sitebuild.files import write_atomic

ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)  # the earliest date a zip can record
# The project wheel's WHEEL file; METADATA and top_level.txt follow pyproject.toml.
PROJECT_WHEEL_FILE = (
    b"Wheel-Version: 1.0\nGenerator: sitebuild\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
)


def record_hash(data: bytes) -> str:
    """The RECORD form of a sha256: urlsafe base64 without padding."""
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode()


def with_record(files: dict[str, bytes]) -> dict[str, bytes]:
    """``files`` with their ``.dist-info/RECORD`` rewritten to list them as they are."""
    record = next(n for n in files if n.endswith(".dist-info/RECORD"))
    rows = io.StringIO()
    writer = csv.writer(rows, lineterminator="\n")
    for name in sorted(files):
        if name != record:
            writer.writerow([name, record_hash(files[name]), len(files[name])])
    writer.writerow([record, "", ""])
    return {**files, record: rows.getvalue().encode()}


def write_wheel(dest: Path, files: dict[str, bytes]) -> Path:
    """Write ``files`` (archive path -> bytes) as a wheel with a fresh RECORD, reproducibly."""
    files = with_record(files)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name in sorted(files, key=lambda n: (".dist-info/" in n, n)):
            info = zipfile.ZipInfo(name, ZIP_EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, files[name])
    return write_atomic(dest, out.getvalue())


def read_wheel(path: Path) -> dict[str, bytes]:
    """All files of a wheel: archive path -> bytes (directories dropped)."""
    with zipfile.ZipFile(path) as archive:
        return {n: archive.read(n) for n in archive.namelist() if not n.endswith("/")}


def metadata_of(files: dict[str, bytes]) -> email.message.Message:
    """The parsed top-level METADATA of a wheel given as files (vendored ones are ignored)."""
    (name,) = [n for n in files if n.count("/") == 1 and n.endswith(".dist-info/METADATA")]
    return email.parser.Parser().parsestr(files[name].decode())


def wheel_metadata(path: Path) -> email.message.Message:
    """Parsed METADATA of the wheel at ``path``."""
    with zipfile.ZipFile(path) as archive:
        (name,) = [
            n for n in archive.namelist() if n.count("/") == 1 and n.endswith(".dist-info/METADATA")
        ]
        return email.parser.Parser().parsestr(archive.read(name).decode())


def wheel_imports(path: Path) -> list[str]:
    """Top-level importable names in a wheel: packages and single-file modules."""
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
    tops = set()
    for name in names:
        parts = PurePosixPath(name).parts
        if parts[0].endswith((".dist-info", ".data")):
            continue
        if len(parts) == 1 and name.endswith(".py"):
            tops.add(name[:-3])
        elif len(parts) == 2 and parts[1] == "__init__.py":
            tops.add(parts[0])
    return sorted(tops)


def cached_bytecode(source: str) -> str:
    """Where CPython 3.12 keeps the bytecode of the module at path ``source`` (DIR/NAME.py):
    DIR/__pycache__/NAME.cpython-312.pyc."""
    folder, _, name = source.rpartition("/")
    return f"{folder}/__pycache__/{name[:-3]}.cpython-312.pyc".lstrip("/")


def binary_members(wheel: Path) -> list[str]:
    """Compiled extension modules inside ``wheel``."""
    with zipfile.ZipFile(wheel) as archive:
        return [n for n in archive.namelist() if n.endswith((".so", ".pyd", ".dylib"))]


def read_pyproject(root: Path) -> dict:
    """The project's ``pyproject.toml``, parsed: the one place its metadata is read from."""
    with (root / "pyproject.toml").open("rb") as handle:
        return tomllib.load(handle)


# The project's packages that only the build runs: each figure's Bokeh layout and the kit they
# share. The reader's browser runs the figures without them (tests/figurekit/test_lean.py), so
# its wheel leaves them out.
BUILD_ONLY = ("layoutkit", "layouts")


def project_spec(root: Path) -> tuple[str, str, list[str]]:
    """The project's name, version and packages, as ``pyproject.toml`` declares them."""
    pyproject = read_pyproject(root)
    project = pyproject["project"]
    return project["name"], project["version"], pyproject["tool"]["setuptools"]["packages"]


def project_wheel_name(root: Path) -> str:
    """The file name of the project's own wheel: ``attention_explained-0.1.0-py3-none-any.whl``."""
    name, version, _ = project_spec(root)
    return f"{canonicalize_name(name).replace('-', '_')}-{version}-py3-none-any.whl"


def project_wheel(root: Path, dest: Path, layouts: bool = False) -> Path:
    """The project's own pure wheel in ``dest``, for the browser and a reader's notebook: its
    packages' .py files, the build's own (``BUILD_ONLY``) only with ``layouts``, and its
    requirements."""
    name, version, packages = project_spec(root)
    packages = [p for p in packages if layouts or p not in BUILD_ONLY]
    wheel_name = project_wheel_name(root)
    stem = wheel_name.removesuffix("-py3-none-any.whl")
    files: dict[str, bytes] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            files[path.relative_to(root).as_posix()] = path.read_bytes()
    dist_info = f"{stem}.dist-info"
    requires = "".join(
        f"Requires-Dist: {r}\n" for r in read_pyproject(root)["project"]["dependencies"]
    )
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n{requires}"
    files[f"{dist_info}/METADATA"] = metadata.encode()
    files[f"{dist_info}/WHEEL"] = PROJECT_WHEEL_FILE
    files[f"{dist_info}/top_level.txt"] = "\n".join(packages).encode() + b"\n"
    files[f"{dist_info}/RECORD"] = b""
    return write_wheel(Path(dest) / wheel_name, files)
