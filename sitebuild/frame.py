"""The frame a published series carries: what a reader, a feed reader and a search engine are
told about each page, from the site's public URL.

Every page gets its canonical URL and the Open Graph and Twitter card tags (the layout's head);
each post its dates, author, licence and a link to its source (the layout's footer); the site a
404 page, a sitemap and an Atom feed of the posts. All of it is static text: a page loads no
byte more for it.

The card tags name a preview image (``sitebuild/preview.py`` draws them): a post's own, every
other page the site's. The image is only named, for the sites that show a link: no page loads
it.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from sitebuild.wheels import read_pyproject

if TYPE_CHECKING:
    from sitebuild.notebook import Notebook
    from sitebuild.preview import Card

ROOT = Path(__file__).resolve().parent.parent
NAME = "Attention, explained live"
# The repository names no authors (pyproject.toml has none), so the site speaks for itself.
AUTHOR = NAME
LICENCE = read_pyproject(ROOT)["project"]["license"]
LOCAL_PORT = 8000  # where build.py serves by default, and the public URL of a local build
GITHUB_REMOTE = re.compile(
    r"^(?:https://github\.com/|git@github\.com:)([\w.-]+/[\w.-]+?)(?:\.git)?/?$"
)


def local_url(base: str) -> str:
    """The public URL of a site built for this machine alone."""
    return f"http://127.0.0.1:{LOCAL_PORT}{base}"


def checked_url(url: str, base: str) -> str:
    """``url`` if it is an http(s) URL that ends with the base path; else why not."""
    if not re.match(r"^https?://[^/]+/", url) or not url.endswith("/"):
        raise ValueError(f"--site-url must be an http(s) URL ending in '/', got {url!r}")
    if not url.endswith(base):
        raise ValueError(f"--site-url {url!r} does not end with the base path {base!r}")
    return url


def source_from_git(root: Path = ROOT) -> str | None:
    """Where the repository's files are browsed at this commit, if its remote is on GitHub
    (the one host whose file URLs are known here); None otherwise, rather than a guess."""

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", *args], cwd=root, capture_output=True, text=True, check=True
            )
        except (OSError, subprocess.CalledProcessError):
            return None
        return done.stdout.strip()

    found = GITHUB_REMOTE.match(git("remote", "get-url", "origin") or "")
    commit = git("rev-parse", "HEAD")
    if not (found and commit):
        return None
    return f"https://github.com/{found.group(1)}/blob/{commit}/"


def day(page: ModuleType, name: str) -> date | None:
    """The page's ``PUBLISHED`` or ``UPDATED`` date, checked; None if it gives none."""
    text = getattr(page, name, None)
    if text is None:
        return None
    try:
        return date.fromisoformat(text)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{page.__name__}.{name} is not an ISO date: {text!r}") from err


@dataclass(frozen=True)
class Frame:
    """The site-wide facts the frame prints: its public URL (ending with the base path),
    where its source is browsed (a URL a repository path is appended to, or None) and the
    link-preview images, by page slug ("": the index page's, the site's), and the posts'
    notebooks, by slug (sitebuild/notebook.py; empty until the build wrote them)."""

    url: str
    source: str | None = None
    name: str = NAME
    author: str = AUTHOR
    licence: str = LICENCE
    cards: dict[str, Card] = field(default_factory=dict)
    notebooks: dict[str, Notebook] = field(default_factory=dict)

    def page_url(self, page: ModuleType) -> str:
        return f"{self.url}{page.SLUG}/" if page.SLUG else self.url

    def card(self, page: ModuleType) -> Card | None:
        """The page's preview image: its own, else the site's (None before the build made
        them)."""
        return self.cards.get(page.SLUG) or self.cards.get("")

    def image_url(self, card: Card) -> str:
        """A preview image's absolute URL: crawlers need one."""
        return self.url + card.path

    def notebook(self, page: ModuleType) -> Notebook | None:
        return self.notebooks.get(page.SLUG)

    def source_of(self, page: ModuleType) -> str | None:
        return f"{self.source}templates/{page.TEMPLATE}" if self.source else None

    def title(self, page: ModuleType) -> str:
        return page.TITLE if page.TITLE == self.name else f"{page.TITLE} · {self.name}"

    def published(self, page: ModuleType) -> date | None:
        return day(page, "PUBLISHED")

    def updated(self, page: ModuleType) -> date | None:
        """The last change: UPDATED if later than PUBLISHED, else PUBLISHED."""
        published, updated = day(page, "PUBLISHED"), day(page, "UPDATED")
        if updated and published and updated < published:
            raise ValueError(f"{page.__name__}.UPDATED {updated} is before PUBLISHED {published}")
        return updated or published


def stamp(when: date) -> str:
    """An Atom date (RFC 3339) for a day."""
    return f"{when.isoformat()}T00:00:00Z"


def dated_posts(frame: Frame, posts: list[ModuleType]) -> list[ModuleType]:
    """The posts, each required to say when it was published (the feed needs it)."""
    if missing := [p.__name__ for p in posts if frame.published(p) is None]:
        raise ValueError(f"posts without PUBLISHED (an ISO date): {', '.join(missing)}")
    return posts


@dataclass(frozen=True)
class NotFound:
    """What the layout needs of a page, for the 404 page (no page module: it is no page)."""

    SLUG: None = None
    TEMPLATE: str = "404.html"
    TITLE: str = "Page not found"
    SUMMARY: str = "There is no page at this address."


def write(env, out: Path, base: str, all_pages: list[ModuleType], posts: list[ModuleType]) -> None:
    """The 404 page, the sitemap and the feed into ``out``, from ``env``'s ``frame``. The 404
    page is served at any depth, so everything it names is absolute under ``base``."""
    frame = env.globals["frame"]
    posts = dated_posts(frame, posts)
    missing = NotFound()
    (out / "404.html").write_text(
        env.get_template("404.html").render(
            page=missing,
            base=base,
            posts=posts,
            prev=None,
            next=None,
            url=lambda p: f"{base}{p.SLUG}/" if p.SLUG else base,
        )
    )
    (out / "sitemap.xml").write_text(env.get_template("sitemap.xml").render(pages=all_pages))
    updated = max(frame.updated(p) for p in posts)
    (out / "feed.xml").write_text(
        env.get_template("feed.xml").render(posts=posts, updated=updated, stamp=stamp)
    )
