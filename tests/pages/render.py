"""One page rendered as the build renders it, minus the runtime and the math typesetting.

The build renders every page's prose, adds its figures' pre-render and live scripts, then
typesets the math with KaTeX (``build.build``). The page tests need only the first two steps,
without installing the runtime; tests/site checks the built site whole, hashed names included.
"""

import re
from html import unescape

import jinja2

import build
from sitebuild import hashed, livepage, pagescript, pins

# The site's own scripts and styles: static/'s files, and the page script bundled from its
# modules (static/page/).
STATIC = sorted(
    [
        *(
            p.relative_to(build.ROOT).as_posix()
            for p in (build.ROOT / "static").iterdir()
            if p.is_file()
        ),
        f"static/{pagescript.BUNDLE}",
    ]
)


def unhashed() -> hashed.Manifest:
    """Every file a page names, served from its own path: the names before the build hashes
    them, since these tests build no site to hash."""
    named = [
        *STATIC,
        "static/code.css",
        f"{livepage.VENDOR}/katex/katex.min.css",
        *(f"{livepage.VENDOR}/{script}" for script in pins.BROWSER_SCRIPTS),
        *hashed.CORE,
        hashed.LOCK,
    ]
    return {rel: rel for rel in named}


def environment(base: str) -> jinja2.Environment:
    """The build's template environment, its assets named by their unhashed paths."""
    env = build.environment(build.ROOT / "templates")
    env.globals["asset"] = hashed.urls(unhashed(), base)
    return env


def prose(page, base: str = "/") -> str:
    """``page``'s prose and snippets' output as the build renders them, before its figures'
    pre-render and scripts are added and its math is typeset."""
    return build.render_prose(environment(base), page, base)[0]


def render(page, base: str = "/") -> str:
    """``page``'s HTML with its prose, snippets' output, figures' pre-render and scripts."""
    env = environment(base)
    html, ids = build.render_prose(env, page, base)
    if not ids:
        return html
    moved = unhashed()
    return livepage.add_live_figures(env, html, base, ids, [], None, moved, build.prerender_figure)


# The output of a snippet the page runs in its namespace: not of a cell of its own (a figure's
# try-it cell, an exercise), marked data-cell-solo.
OUTPUT = re.compile(
    r'<div class="snippet"(?![^>]*data-cell-solo)[^>]*>.*?'
    r'<pre class="code-output"[^>]*>(.*?)</pre>',
    re.S,
)


def snippet_outputs(html: str) -> list[str]:
    """What each of the page's snippets printed, as text, in page order."""
    return [unescape(o) for o in OUTPUT.findall(html)]
