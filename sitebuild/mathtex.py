"""Typeset ``$...$`` and ``$$...$$`` in rendered HTML with KaTeX, once, at build time."""

import json
import re
import shutil
import subprocess
from pathlib import Path

from sitebuild import node
from sitebuild.snippets import focusable

KATEX_VERSION = "0.16.22"
_SCRIPT = Path(__file__).with_name("render_math.js")
# Text inside these elements is never math (code may contain dollar signs).
_SKIP = re.compile(r"(<(pre|code|script|style)\b.*?</\2>)", re.S)
_MATH = re.compile(r"\$\$(.+?)\$\$|(?<![\\\w$])\$(?=\S)(.+?)(?<=\S)\$(?![\w$])", re.S)
# In KaTeX's stylesheet: each font file, and the rules that give a class list a font.
_FACE = re.compile(
    r"@font-face\{font-family:(\w+);font-style:(\w+);font-weight:(\d+);src:url\(([^)]+\.woff2)\)"
)
_RULE = re.compile(r"([^{}]+)\{([^{}]*font-family:(KaTeX_\w+)[^{}]*)\}")
_CLASSES = re.compile(r'class="([^"]*)"')


def ensure_katex(cache_dir: Path) -> Path:
    """Unpack the pinned KaTeX npm package into the cache (offline once done); return its dist."""
    dist = cache_dir / f"katex-{KATEX_VERSION}" / "package" / "dist"
    if (dist / "katex.min.js").exists():
        return dist
    target = dist.parent.parent
    target.mkdir(parents=True, exist_ok=True)
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is needed once to fetch KaTeX (Debian package: npm)")
    subprocess.run(
        [npm, "pack", f"katex@{KATEX_VERSION}"], cwd=target, check=True, capture_output=True
    )
    shutil.unpack_archive(target / f"katex-{KATEX_VERSION}.tgz", target)
    return dist


def typeset(pages: dict[str, str], katex_dist: Path) -> dict[str, str]:
    """Replace the math in every page (name -> HTML) with KaTeX markup, in one node call."""
    found: list[tuple[str, bool]] = []

    def collect(html: str) -> list[str | int]:
        parts: list[str | int] = []
        for k, chunk in enumerate(_split(html)):
            if k % 2:  # a skipped element, kept verbatim
                parts.append(chunk)
                continue
            last = 0
            for m in _MATH.finditer(chunk):
                parts.append(chunk[last : m.start()].replace("\\$", "$"))
                found.append((m.group(1) or m.group(2), m.group(1) is not None))
                parts.append(len(found) - 1)
                last = m.end()
            parts.append(chunk[last:].replace("\\$", "$"))
        return parts

    split_pages = {name: collect(html) for name, html in pages.items()}
    rendered = _katex(found, katex_dist) if found else []
    rendered = [
        keyboard_scrollable(markup) if display else markup
        for markup, (_, display) in zip(rendered, found, strict=True)
    ]
    return {
        name: "".join(rendered[p] if isinstance(p, int) else p for p in parts)
        for name, parts in split_pages.items()
    }


DISPLAY = '<span class="katex-display">'


def keyboard_scrollable(markup: str) -> str:
    """A display equation's markup, focusable by a keyboard and named: on a phone or a zoomed
    page a wide equation scrolls sideways in its own box, which only a focused box can do by
    the arrow keys (as a code block, sitebuild/snippets.py)."""
    if not markup.startswith(DISPLAY):
        raise ValueError(f"expected KaTeX's display markup, starting {DISPLAY!r}")
    return f'<span class="katex-display" {focusable("Equation")}>' + markup[len(DISPLAY) :]


def fonts_used(html: str, css: str) -> list[str]:
    """The font files (as katex.min.css names them) that the page's math is drawn in.

    A page that names them in its head gets them with its first layout; found by the browser
    as it lays the math out, each arriving font lays the whole page out again, before any
    figure could be drawn. KaTeX draws in its Main font and switches font by class: a rule
    ``.katex .a.b{font-family:...}`` applies where an element has classes a and b. Rules on
    nested elements (``>span``) are not followed.
    """
    faces = {(family, style, weight): url for family, style, weight, url in _FACE.findall(css)}
    lists = [set(found.split()) for found in set(_CLASSES.findall(html))]
    if not any("katex" in classes for classes in lists):
        return []
    used = {faces[("KaTeX_Main", "normal", "400")]}
    for selectors, body, family in _RULE.findall(css):
        style = "italic" if "font-style:italic" in body else "normal"
        weight = "700" if "font-weight:700" in body else "400"
        for selector in selectors.split(","):
            *_, last = selector.split()
            if not re.fullmatch(r"(\.[\w-]+)+", last):
                continue
            needed = set(last.strip(".").split("."))
            if any(needed <= classes for classes in lists) and (family, style, weight) in faces:
                used.add(faces[(family, style, weight)])
    return sorted(used)


def _split(html: str) -> list[str]:
    """Alternate plain-HTML chunks and skipped elements, in document order."""
    out, last = [], 0
    for m in _SKIP.finditer(html):
        out += [html[last : m.start()], m.group(1)]
        last = m.end()
    return [*out, html[last:]]


def _katex(items: list[tuple[str, bool]], katex_dist: Path) -> list[str]:
    script = [str(katex_dist / "katex.min.js")]
    typeset = node.run_script(_SCRIPT, script, "to typeset math at build time", json.dumps(items))
    return json.loads(typeset)
