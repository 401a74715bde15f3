"""One page rendered as the build renders it, minus the runtime and the math typesetting.

The build renders every page's prose, adds its figures' pre-render and live scripts, then
typesets the math with KaTeX (``build.build``). The page tests need only the first two steps,
without installing the runtime; tests/site checks the built site whole.
"""

import build


def render(page, base: str = "/") -> str:
    """``page``'s HTML with its prose, snippets' output, figures' pre-render and scripts."""
    env = build.environment(build.ROOT / "templates")
    html, ids = build.render_prose(env, page, base)
    return build.add_live_figures(env, html, base, ids, [], None) if ids else html
