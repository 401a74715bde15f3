"""The page script: the ES modules of ``static/page/``, one file per job, bundled by esbuild
into the one ``static/page.js`` a page loads.

The modules import each other and nothing else; the bundle is plain (not minified), so a
reader who opens it finds each module under its own name. The build bundles them every time
(esbuild takes a fraction of a second), with the esbuild the code editor's lock pins
(sitebuild/editor.py).
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable
from pathlib import Path

from sitebuild import editor
from sitebuild.fetch import run

Log = Callable[[str], None]
ROOT = Path(__file__).resolve().parent.parent
SOURCE = "static/page"  # the modules, relative to the root
ENTRY = f"{SOURCE}/main.js"
BUNDLE = "page.js"  # in the site's static/
# An import between the modules: `import ... from "./name.js";`
IMPORT = re.compile(r'^import\b[^;]*?\bfrom\s+"([^"]+)";', re.MULTILINE | re.DOTALL)


def modules(root: Path = ROOT) -> dict[str, list[str]]:
    """Each module of the page script -> the modules it imports (file names)."""
    folder = root / SOURCE
    return {
        path.name: [name.removeprefix("./") for name in IMPORT.findall(path.read_text())]
        for path in sorted(folder.glob("*.js"))
    }


def bundle(cache: Path, log: Log, root: Path = ROOT) -> bytes:
    """The page script bundled from ``static/page/main.js``."""
    esbuild = editor.esbuild(cache, log)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / BUNDLE
        # Run from the root, so the bundle names each module by its path in the project.
        run(
            [str(esbuild), ENTRY, "--bundle", "--format=iife", "--charset=utf8",
             "--banner:js=\"use strict\";", f"--outfile={out}", "--log-level=warning"],
            log,
            cwd=root,
        )  # fmt: skip
        return out.read_bytes()


def write_bundle(cache: Path, static: Path, log: Log) -> None:
    """Write the page script into the site's ``static`` folder."""
    data = bundle(cache, log)
    (static / BUNDLE).write_bytes(data)
    log(f"page script: {BUNDLE}, {len(data)} bytes from {len(modules())} modules")
