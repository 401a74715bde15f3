"""Citations and each post's references (pages/references.py, sitebuild/references.py): every
key a template cites exists, a page lists exactly the works it cites, in the order it first
cites them, and every link between a citation and its entry lands on an id of the page."""

import re
import types
from html import unescape

import jinja2
import pytest

import build
from pages import posts
from pages.references import WORKS
from sitebuild import hashed
from sitebuild.checks import BuildError
from sitebuild.references import Citations
from tests.pages.render import render, unhashed

CITE = re.compile(r"""{{\s*cite\(\s*"([^"]+)"\s*\)\s*}}""")
CITATION = re.compile(r'<a class="cite" id="([^"]+)" href="#([^"]+)"[^>]*>\[(\d+)\]</a>')
ENTRY = re.compile(r'<li id="(ref-[^"]+)">(.*?)</li>', re.S)
BACK = re.compile(r'<a class="ref-back" href="#([^"]+)"')


@pytest.fixture(scope="module", params=posts(), ids=lambda p: p.SLUG)
def page(request):
    return request.param, render(request.param)


def test_every_key_a_template_cites_is_a_work():
    for page in posts():
        source = (build.ROOT / "templates" / page.TEMPLATE).read_text()
        keys = CITE.findall(source)
        assert keys, f"{page.TEMPLATE} cites nothing"
        assert set(keys) <= set(WORKS), f"{page.TEMPLATE}: {set(keys) - set(WORKS)}"


def test_every_work_is_cited_somewhere():
    cited = set()
    for page in posts():
        cited |= set(CITE.findall((build.ROOT / "templates" / page.TEMPLATE).read_text()))
    assert cited == set(WORKS)


def test_a_post_lists_the_works_it_cites_in_the_order_it_cites_them(page):
    _, html = page
    citations = CITATION.findall(html)
    first_order = list(dict.fromkeys(href for _, href, _ in citations))
    section = html[html.index('<section class="references">') :]
    entries = ENTRY.findall(section)
    assert [ident for ident, _ in entries] == first_order
    assert html.count('<section class="references">') == 1
    assert section.index("</section>") > section.index("</ol>")  # the list is the section's
    # numbers follow the order of first citation, and a work keeps its number
    for _, href, number in citations:
        assert int(number) == first_order.index(href) + 1
    # each entry names its work and links to it
    for ident, text in entries:
        work = WORKS[ident.removeprefix("ref-")]
        assert f'<a href="{work.url}">' in text
        assert work.title in unescape(text)


def test_every_link_between_citation_and_entry_lands(page):
    module, html = page
    ids = set(re.findall(r'\bid="([^"]+)"', html))
    citations = CITATION.findall(html)
    assert citations
    cite_ids = [ident for ident, _, _ in citations]
    assert len(set(cite_ids)) == len(cite_ids), "two citations share an id"
    for _, href, _ in citations:
        assert href in ids, f"{module.SLUG}: a citation links to #{href}, which is not on the page"
    backs = BACK.findall(html)
    assert len(backs) == len(set(href for _, href, _ in citations))
    for href in backs:
        assert href in cite_ids, f"{module.SLUG}: a back-link to #{href}, no such citation"


def _render(source: str) -> str:
    env = build.environment(build.ROOT / "templates")
    citations = Citations(env)
    html = env.from_string(source).render(cite=citations.cite, references=citations.references)
    citations.check()
    return html


def test_an_unknown_key_fails_naming_it_and_the_known_keys():
    with pytest.raises(BuildError) as err:
        _render('<p>As shown {{ cite("nobody1999") }}.</p>{{ references() }}')
    message = str(err.value)
    assert "'nobody1999'" in message
    assert all(key in message for key in WORKS)


def test_an_unknown_key_fails_the_page_build_naming_its_template_line(tmp_path):
    """Through the build's own render: the error names the key, the known keys and the line."""
    (tmp_path / "bad.html").write_text(
        '{% extends "_layout.html" %}{% block content %}\n<p>{{ cite("nobody1999") }}</p>\n'
        "{{ references() }}{% endblock %}"
    )
    env = build.environment(build.ROOT / "templates")
    env.loader = jinja2.FileSystemLoader([tmp_path, build.ROOT / "templates"])
    env.globals["asset"] = hashed.urls(unhashed(), "/")
    page = types.ModuleType("pages.bad")
    page.SLUG, page.TEMPLATE, page.TITLE, page.SUMMARY = "bad", "bad.html", "Bad", "Bad."
    page.context = dict
    with pytest.raises(BuildError) as err:
        build.render_prose(env, page, "/")
    message = str(err.value)
    assert "bad.html:2 (page pages.bad)" in message
    assert "'nobody1999'" in message and "vaswani2017" in message


def test_citing_without_listing_fails():
    with pytest.raises(BuildError, match="never lists them"):
        _render('<p>{{ cite("vaswani2017") }}</p>')


def test_a_citation_after_the_list_fails():
    with pytest.raises(BuildError, match="after references"):
        _render('{{ references() }}<p>{{ cite("vaswani2017") }}</p>')


def test_a_page_that_cites_nothing_lists_nothing():
    assert _render("<p>No sources.</p>{{ references() }}") == "<p>No sources.</p>"


def test_a_citation_names_a_person_by_surname_and_an_organisation_whole():
    assert WORKS["vaswani2017"].short == "Vaswani et al., 2017"
    assert WORKS["shazeer2019"].short == "Shazeer, 2019"
    assert WORKS["mistral2023code"].short == "Mistral AI, 2023"
