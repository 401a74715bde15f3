"""The package docstring lists every module of attention/ (the README sends a reader there)."""

import re
from pathlib import Path

import attention

PACKAGE = Path(attention.__file__).parent


def test_every_module_is_listed_in_the_package_docstring():
    modules = {p.stem for p in PACKAGE.glob("*.py") if not p.stem.startswith("_")}
    listed = set(re.findall(r"^- ``(\w+)``:", attention.__doc__, flags=re.M))
    assert listed == modules
