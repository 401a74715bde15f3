"""Changes to third-party wheels, as unified diffs in ``patches/``, applied by one checked step.

A patch is named ``PACKAGE-VERSION-WHAT.diff`` and is written for that release alone; its
header, before the first ``---`` line, says why it exists. ``apply_patch`` refuses another
release, refuses any file whose original text differs from the patch's by a single
character, and compiles every patched module, so a patch that no longer fits fails the build
rather than the reader's page.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

FOLDER = Path(__file__).with_name("patches")


def patch_for(package: str) -> Path | None:
    """The one patch for ``package`` in FOLDER, or None when the package is used as is."""
    found = sorted(FOLDER.glob(f"{package}-*.diff"))
    if len(found) > 1:
        raise RuntimeError(f"several patches for {package}: {[p.name for p in found]}; merge them")
    return found[0] if found else None


def written_for(patch: Path) -> str:
    """The release a patch is written for, from its name ('bokeh-3.7.3-x.diff' -> '3.7.3')."""
    return patch.name.split("-")[1]


def check_version(patch: Path, package: str, version: str) -> None:
    """A patch is written against one release: refuse any other."""
    if version != written_for(patch):
        raise RuntimeError(
            f"{patch.name} is written for {package} {written_for(patch)} exactly, but the wheel "
            f"is {package} {version}: re-read the patched code in the new release and write "
            f"a new patch"
        )


def touched(patch_text: str) -> list[str]:
    """The files a unified diff changes, from its '+++ b/PATH' lines."""
    lines = patch_text.splitlines()
    return list(dict.fromkeys(line[6:] for line in lines if line.startswith("+++ b/")))


def run_git_apply(folder: Path, patch: Path, *options: str) -> None:
    """``git apply`` inside ``folder``, which must not be taken for part of a repository.

    git rather than a hand-written applier: it is on every machine that checks this project
    out, it has no fuzz (every context line must match exactly) and it changes all files or
    none.
    """
    git = shutil.which("git")
    if git is None:
        raise RuntimeError("git is needed to apply the patches to bokeh and panel")
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(folder.parent)}
    cmd = [git, "apply", "--whitespace=nowarn", *options, str(patch)]
    done = subprocess.run(cmd, cwd=folder, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(
            f"{patch.name} does not apply to this wheel (no fuzz is allowed); update the patch:\n"
            + (done.stderr or done.stdout).strip()
        )


def apply_patch(files: dict[str, bytes], package: str, version: str) -> dict[str, bytes]:
    """``files`` (a wheel's path -> bytes) with the package's patch applied, if it has one.

    The patch runs in a temporary folder holding only the files it touches; every patched
    .py file is compiled, so a broken patch fails here, not in the browser.
    """
    patch = patch_for(package)
    if patch is None:
        return dict(files)
    check_version(patch, package, version)
    paths = touched(patch.read_text())
    if absent := [path for path in paths if path not in files]:
        raise RuntimeError(f"{patch.name} patches {absent}, which the {package} wheel lacks")
    with tempfile.TemporaryDirectory(prefix="patch-") as tmp:
        folder = Path(tmp) / "files"
        for path in paths:
            (folder / path).parent.mkdir(parents=True, exist_ok=True)
            (folder / path).write_bytes(files[path])
        run_git_apply(folder, patch, "--check")
        run_git_apply(folder, patch)
        patched = {**files, **{path: (folder / path).read_bytes() for path in paths}}
    for path in paths:
        if path.endswith(".py"):
            compile(patched[path], path, "exec")
    return patched
