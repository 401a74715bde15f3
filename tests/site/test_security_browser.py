"""Security and privacy, on every page: a Content-Security-Policy that admits only the site's
own origin, no inline event handlers or inline scripts, and no request to any other origin,
while the figures go live (the session's shared pages are read)."""

import re
from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest

from harness.site import PATHS

pytestmark = pytest.mark.browser
CSP_SOURCES = {"'self'", "'wasm-unsafe-eval'", "'unsafe-inline'", "'none'"}
CSP_SOURCES.add("data:")  # images only: Bokeh draws the select arrow from one


class _Scan(HTMLParser):
    """Collects the CSP meta tags, inline event handlers and inline scripts of one page."""

    def __init__(self):
        super().__init__()
        self.policies: list[str] = []
        self.handlers: list[str] = []
        self.inline_scripts: list[str] = []
        self._script: str | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.handlers += [f"<{tag} {a}>" for a in attrs if a.lower().startswith("on")]
        if tag == "meta" and (attrs.get("http-equiv") or "").lower() == "content-security-policy":
            self.policies.append(attrs["content"])
        if tag == "script" and "src" not in attrs:
            self._script = attrs.get("type") or "text/javascript"

    def handle_data(self, data):
        if self._script and self._script != "application/json" and data.strip():
            self.inline_scripts.append(data[:80])

    def handle_endtag(self, tag):
        if tag == "script":
            self._script = None


def scan(site, path: str) -> _Scan:
    parser = _Scan()
    parser.feed((site / path / "index.html").read_text())
    return parser


def directives(policy: str) -> dict[str, list[str]]:
    parts = [d.split() for d in policy.split(";") if d.strip()]
    return {d[0]: d[1:] for d in parts}


@pytest.mark.parametrize("path", PATHS)
def test_built_page_has_a_same_origin_policy_and_no_inline_code(site, path):
    page = scan(site, path)
    assert len(page.policies) == 1, page.policies
    policy = directives(page.policies[0])
    assert policy["default-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert "'wasm-unsafe-eval'" in policy["script-src"]
    assert "'unsafe-eval'" not in policy["script-src"]  # WebAssembly only, never eval()
    # No other origin, scheme-wide wildcard or inline script is admitted anywhere.
    for name, sources in policy.items():
        assert set(sources) <= CSP_SOURCES, (name, sources)
        if name.startswith("script"):
            assert "'unsafe-inline'" not in sources and "data:" not in sources
    assert page.handlers == []
    assert page.inline_scripts == []


def test_no_page_links_a_resource_from_another_origin(site):
    """Attributes that make the browser fetch something name only paths on this site."""
    fetching = re.compile(r'\b(?:src|href|srcset|action|poster)="(?:https?:)?//', re.I)
    for path in PATHS:
        html = (site / path / "index.html").read_text()
        # Plain links, and the canonical and feed links of the head, are not fetched.
        heads_and_assets = re.sub(r"<a\b[^>]*>", "", html)
        heads_and_assets = re.sub(
            r'<link\b[^>]*\brel="(?:canonical|alternate)"[^>]*>', "", heads_and_assets
        )
        assert not fetching.search(heads_and_assets), path


@pytest.mark.parametrize("path", PATHS)
def test_page_goes_live_with_no_violation_and_only_same_origin_requests(live, server_url, path):
    v = live(path)
    origin = urlsplit(server_url)[:2]
    assert v.requests, "the page made no requests at all"
    assert [u for u in v.requests if urlsplit(u)[:2] != origin] == []
    assert [e for e in v.errors if "Content Security Policy" in e] == []
    assert v.errors == []


def test_the_policy_is_enforced(live, server_url):
    """An injected inline script and a script from another origin are both refused."""
    v = live(PATHS[-1])
    blocked = v.page.evaluate(
        """() => new Promise((resolve) => {
          const seen = [];
          document.addEventListener("securitypolicyviolation", (e) => {
            seen.push([e.violatedDirective, e.blockedURI]);
            if (seen.length === 2) resolve(seen);
          });
          setTimeout(() => resolve(seen), 20000);  // a refusal not reported fails, not hangs
          const inline = document.createElement("script");
          inline.textContent = "window.__ranInline = true";
          document.body.append(inline);
          const remote = document.createElement("script");
          remote.src = "http://example.invalid/x.js";
          document.body.append(remote);
        })"""
    )
    assert sorted(blocked) == [
        ["script-src-elem", "http://example.invalid/x.js"],
        ["script-src-elem", "inline"],
    ]
    assert v.page.evaluate("window.__ranInline") is None
    # The two refusals above were logged on purpose.
    v.errors.clear()
    v.requests[:] = [u for u in v.requests if "example.invalid" not in u]
