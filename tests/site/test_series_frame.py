"""The frame of the series: every page's title, description, canonical and card tags, the 404
page, the sitemap and the Atom feed, built for a public URL under a base path.

Each check is a function returning what it found wrong, run on the built site and on a broken
copy of what it reads, so that it is known to fail.
"""

import re
import shutil
import xml.etree.ElementTree as ET
from datetime import date
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from PIL import Image

import build
import pages
from harness.site import BASE, SITE_URL, SOURCE_URL
from sitebuild import frame, preview

ATOM = "{http://www.w3.org/2005/Atom}"
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


@pytest.fixture(scope="module")
def framed(site) -> Path:
    """The session's one build of the site (tests/site/conftest.py), made as the deploy makes
    it, with its public and source URLs given."""
    return site


class _Head(HTMLParser):
    """The page's <title>, its named and property <meta> tags, its <link>s, its <a href>s."""

    def __init__(self) -> None:
        super().__init__()
        self.title = ""
        self.meta: dict[str, str] = {}
        self.links: dict[str, str] = {}
        self.anchors: list[str] = []
        self.in_title = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "title":
            self.in_title = True
        elif tag == "meta" and (a.get("name") or a.get("property")):
            self.meta[a.get("name") or a["property"]] = a.get("content", "")
        elif tag == "link":
            self.links[a.get("rel", "")] = a.get("href", "")
        elif tag == "a" and a.get("href"):
            self.anchors.append(a["href"])

    def handle_endtag(self, tag):
        self.in_title = self.in_title and tag != "title"

    def handle_data(self, data):
        if self.in_title:
            self.title += data


def head(html: str) -> _Head:
    parser = _Head()
    parser.feed(html)
    return parser


def page_file(site: Path, page) -> Path:
    return site / page.SLUG / "index.html"


def tag_problems(html: str, page) -> list[str]:
    """The page's title names the site, and it has its description, canonical URL and cards."""
    found = head(html)
    url = f"{SITE_URL}{page.SLUG}/" if page.SLUG else SITE_URL
    kind = "article" if page in pages.posts() else "website"
    want = {
        "description": page.SUMMARY,
        "og:title": page.TITLE,
        "og:description": page.SUMMARY,
        "og:type": kind,
        "og:url": url,
        "og:site_name": frame.NAME,
        "twitter:card": "summary_large_image",
    }
    problems = [
        f"{name} is {found.meta.get(name)!r}, not {value!r}"
        for name, value in want.items()
        if found.meta.get(name) != value
    ]
    if frame.NAME not in found.title or page.TITLE not in found.title:
        problems.append(f"title {found.title!r} lacks the page's title or the site's name")
    if found.links.get("canonical") != url:
        problems.append(f"canonical is {found.links.get('canonical')!r}, not {url!r}")
    return problems


def test_every_page_has_its_title_description_canonical_and_cards(framed):
    for page in pages.all_pages():
        assert tag_problems(page_file(framed, page).read_text(), page) == [], page.SLUG


def image_problems(site: Path, html: str, page) -> list[str]:
    """The page's card image: named by og:image and twitter:image alike, absolute under the
    public URL, a PNG of 1200x630 at that path in the site, its size and alt text given; a
    post's its own, any other page's the site's. The page names it in no other way (it
    never loads it)."""
    found = head(html)
    url = found.meta.get("og:image", "")
    if not url.startswith(SITE_URL):
        return [f"og:image {url!r} is not absolute under {SITE_URL}"]
    problems = []
    if found.meta.get("twitter:image") != url:
        problems.append("twitter:image is not og:image")
    target = site / url[len(SITE_URL) :]
    try:
        with Image.open(target) as image:
            if (image.format, image.size) != ("PNG", (1200, 630)):
                problems.append(f"{url} is a {image.format} of {image.size}, not a 1200x630 PNG")
    except OSError as err:
        problems.append(f"{url} is no image in the site: {err}")
    sizes = (found.meta.get("og:image:width"), found.meta.get("og:image:height"))
    if sizes != ("1200", "630") or found.meta.get("og:image:type") != "image/png":
        problems.append(f"og:image:width/height/type are {sizes}, not 1200x630 PNG")
    alt = found.meta.get("og:image:alt", "")
    if not alt.strip() or found.meta.get("twitter:image:alt") != alt:
        problems.append("no alt text, or twitter's differs from og's")
    own = page in pages.posts()
    if own != url.endswith(f"/{page.SLUG}.png") or (not own and not url.endswith("/site.png")):
        problems.append(f"{url} is not the page's own card (a post) or the site's (any other)")
    if html.count(url[len(SITE_URL) :]) != 2:
        problems.append(f"{url} is named other than by og:image and twitter:image")
    return problems


def test_every_page_names_its_card_image_and_it_is_in_the_site(framed):
    urls = set()
    for page in pages.all_pages():
        html = page_file(framed, page).read_text()
        assert image_problems(framed, html, page) == [], page.SLUG
        urls.add(head(html).meta["og:image"])
    assert len(urls) == len(pages.posts()) + 1  # one per post, and the site's


def test_the_image_check_fails_on_a_missing_or_wrong_image(framed, tmp_path):
    post, other = pages.posts()[0], pages.all_pages()[0]
    html = page_file(framed, post).read_text()
    url = head(html).meta["og:image"]
    path = url[len(SITE_URL) :]
    assert image_problems(framed, html.replace(url, url.replace(path, path + "x")), post)
    assert image_problems(framed, html.replace(url, url[len(SITE_URL) - len(BASE) :]), post)
    assert image_problems(framed, html, other)  # a post's card on a page that is no post
    assert image_problems(framed, html.replace('content="630"', 'content="600"'), post)
    assert image_problems(framed, html.replace("</body>", f'<img src="{path}"></body>'), post)
    copy = tmp_path / path
    copy.parent.mkdir(parents=True)
    Image.new("RGB", (1200, 600), "white").save(copy, "PNG")
    assert image_problems(tmp_path, html, post)


def test_the_card_images_are_the_same_bytes_in_another_build(framed, tmp_path):
    """Drawn again, as the next build draws them, every card keeps its name and its bytes: a
    redeploy churns no image."""
    out = tmp_path / "again"
    preview.write(out, pages.all_pages(), pages.posts(), frame.NAME)
    for site in (framed, out):
        assert sorted(p.relative_to(site) for p in (site / "preview").rglob("*.png")) == sorted(
            p.relative_to(out) for p in (out / "preview").rglob("*.png")
        )
    for png in (out / "preview").rglob("*.png"):
        assert png.read_bytes() == (framed / png.relative_to(out)).read_bytes()


def test_the_tag_check_fails_on_a_page_without_them(framed):
    post = pages.posts()[0]
    html = page_file(framed, post).read_text()
    assert tag_problems(html.replace('rel="canonical"', 'rel="x"'), post)
    assert tag_problems(html.replace("og:type", "og:kind"), post)
    assert tag_problems(html.replace(f" · {frame.NAME}</title>", "</title>"), post)
    assert tag_problems(html, pages.all_pages()[1])  # another page's tags


def test_the_glossary_title_names_the_site(framed):
    glossary = next(p for p in pages.all_pages() if p.TEMPLATE == "glossary.html")
    assert head(page_file(framed, glossary).read_text()).title == f"Glossary · {frame.NAME}"


def post_footer_problems(html: str, page) -> list[str]:
    """A post says when it was published, by whom, under which licence, and where its source is."""
    footer = html[html.index('<footer class="site-footer">') :]
    wanted = [
        f'<time datetime="{page.PUBLISHED}">',
        f"by {frame.AUTHOR}",
        "MIT licence",
        f'href="{SOURCE_URL}templates/{page.TEMPLATE}"',
    ]
    return [f"the footer lacks {w!r}" for w in wanted if w not in footer]


def test_every_post_gives_its_date_author_licence_and_source(framed):
    for post in pages.posts():
        assert post_footer_problems(page_file(framed, post).read_text(), post) == [], post.SLUG
    other = pages.all_pages()[0]
    assert post_footer_problems(page_file(framed, other).read_text(), pages.posts()[0])


def test_every_post_is_dated_in_iso(framed):
    for post in pages.posts():
        assert date.fromisoformat(post.PUBLISHED).year >= 2026
        updated = getattr(post, "UPDATED", None)
        assert updated is None or updated >= post.PUBLISHED


def feed_problems(text: str) -> list[str]:
    """Valid Atom: the feed's id, title and updated, and per post one entry with its link,
    dates and summary, as the page module gives them."""
    try:
        feed = ET.fromstring(text)
    except ET.ParseError as err:
        return [f"not XML: {err}"]
    if feed.tag != f"{ATOM}feed":
        return [f"root is {feed.tag}, not an Atom feed"]
    problems = [
        f"the feed has no {name}"
        for name in ("id", "title", "updated", "author/" + ATOM + "name")
        if not (feed.findtext(ATOM + name) or "").strip()
    ]
    entries = {e.findtext(f"{ATOM}id"): e for e in feed.findall(f"{ATOM}entry")}
    posts = pages.posts()
    if len(feed.findall(f"{ATOM}entry")) != len(posts):
        problems.append(f"{len(entries)} entries for {len(posts)} posts")
    for post in posts:
        url = f"{SITE_URL}{post.SLUG}/"
        entry = entries.get(url)
        if entry is None:
            problems.append(f"no entry with id {url}")
            continue
        link = entry.find(f"{ATOM}link")
        if link is None or link.get("href") != url:
            problems.append(f"{url}: its link is not the post's URL")
        if entry.findtext(f"{ATOM}title") != post.TITLE:
            problems.append(f"{url}: wrong title")
        if entry.findtext(f"{ATOM}summary") != post.SUMMARY:
            problems.append(f"{url}: its summary is not the post's")
        stamp = f"{getattr(post, 'UPDATED', post.PUBLISHED)}T00:00:00Z"
        if entry.findtext(f"{ATOM}updated") != stamp:
            problems.append(f"{url}: updated is not {stamp}")
        if entry.findtext(f"{ATOM}published") != f"{post.PUBLISHED}T00:00:00Z":
            problems.append(f"{url}: published is not {post.PUBLISHED}")
    return problems


def test_the_feed_is_atom_with_one_entry_per_post(framed):
    assert feed_problems((framed / "feed.xml").read_text()) == []


def test_the_feed_check_fails_on_a_broken_feed(framed):
    text = (framed / "feed.xml").read_text()
    first = text.index("<entry>")
    assert feed_problems(text.replace("</feed>", ""))
    assert feed_problems(text[:first] + text[text.index("</entry>") + 8 :])
    assert feed_problems(re.sub(r"<summary>[^<]*", "<summary>", text, count=1))
    assert feed_problems(text.replace("<updated>", "<published>", 1))
    assert feed_problems(text.replace(SITE_URL, "http://127.0.0.1:8000/"))


def sitemap_problems(text: str) -> list[str]:
    """Every page, by its absolute URL under the public URL, and nothing else."""
    urls = [loc.text for loc in ET.fromstring(text).iter(f"{SITEMAP}loc")]
    want = [f"{SITE_URL}{p.SLUG}/" if p.SLUG else SITE_URL for p in pages.all_pages()]
    return [] if sorted(urls) == sorted(want) else [f"lists {urls}, not {want}"]


def test_the_sitemap_lists_every_page_by_its_public_url(framed):
    text = (framed / "sitemap.xml").read_text()
    assert sitemap_problems(text) == []
    assert sitemap_problems(text.replace(SITE_URL, BASE))
    assert sitemap_problems(re.sub(r"<url>.*?</url>", "", text, count=1, flags=re.S))


def not_found_problems(site: Path) -> list[str]:
    """The 404 page, served from any depth, names every link and asset absolutely under the
    base path, and each resolves in the site."""
    page = site / "404.html"
    if not page.is_file():
        return ["no 404.html at the site's root"]
    html = page.read_text()
    found = head(html)
    targets = [*found.anchors, *found.links.values()]
    targets += re.findall(r'<script[^>]* src="([^"]+)"', html)
    problems = []
    for url in targets:
        path = urlsplit(url).path
        if not path.startswith(BASE):
            problems.append(f"{url} is not absolute under {BASE}")
            continue
        target = site / path[len(BASE) :]
        if not (target / "index.html" if path.endswith("/") else target).is_file():
            problems.append(f"{url} does not resolve")
    if frame.NAME not in found.title:
        problems.append("its title does not name the site")
    return problems


def test_the_404_page_links_work_from_any_depth(framed):
    assert not_found_problems(framed) == []
    assert len(head((framed / "404.html").read_text()).anchors) > len(pages.posts())


def test_the_404_check_fails_on_relative_or_missing_links(framed, tmp_path):
    copy = tmp_path / "site"
    shutil.copytree(framed, copy, ignore=shutil.ignore_patterns("runtime", "vendor"))
    html = (copy / "404.html").read_text()
    (copy / "404.html").write_text(html.replace(f'href="{BASE}glossary/"', 'href="glossary/"'))
    assert not_found_problems(copy)
    (copy / "404.html").write_text(html.replace(f'href="{BASE}glossary/"', f'href="{BASE}no/"'))
    assert not_found_problems(copy)
    (copy / "404.html").unlink()
    assert not_found_problems(copy) == ["no 404.html at the site's root"]


def test_a_site_url_outside_the_base_path_is_refused(tmp_path):
    with pytest.raises(SystemExit, match="site-url"):
        build.build(tmp_path / "out", BASE, site_url="https://example.github.io/other/")
    with pytest.raises(SystemExit, match="site-url"):
        build.build(tmp_path / "out", BASE, site_url="example.github.io/attention-explained/")


def test_the_local_default_and_the_git_source_are_never_invented(tmp_path):
    assert frame.local_url(BASE) == f"http://127.0.0.1:8000{BASE}"
    assert frame.source_from_git(tmp_path) is None  # no repository, no link
