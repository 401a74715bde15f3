"""The build's Node scripts (KaTeX, the snapshots, the start's imports), run one way: node
found or asked for by its Debian package, and a failure told by the end of what it said."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path


def run_script(script: Path, args: list[str], purpose: str, stdin: str | None = None) -> str:
    """``node script *args``, fed ``stdin``; returns what it printed. ``purpose`` finishes the
    errors' sentences: "to make the snapshots"."""
    node = shutil.which("node")
    if node is None:
        raise RuntimeError(f"node is needed {purpose} (Debian package: nodejs)")
    done = subprocess.run(
        [node, str(script), *args], input=stdin, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
        raise RuntimeError(f"node {script.name} failed ({purpose}): " + " / ".join(tail))
    return done.stdout
