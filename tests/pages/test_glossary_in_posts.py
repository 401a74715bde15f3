"""Glossary terms in the two posts: each term's first use is a tooltip link, in prose only."""

import re
from html import unescape
from html.parser import HTMLParser

import pytest

from pages import post1, post2
from sitebuild import glossary
from tests.pages.render import render

# Each post's linked terms and the words each link shows (the prose's own words at that spot).
EXPECTED = {
    post1: {
        "token": "token",
        "embedding": "embedding",
        "parameter": "trainable weights",
        "head": "heads",
        "rnn": "recurrent networks",
        "vanishing-gradient": "vanishing-gradient",
        "self-attention": "self-attention",
        "attention-score": "Scores",
        "context-vector": "context vector",
        "dot-product": "dot product",
        "query": "query",
        "convex-combination": "convex combination",
        "attention-weight": "attention weights",
        "softmax": "softmax",
        "normalisation": "Divide each of journey's scores by their total",
        "matrix-multiplication": "matrix product",
        "entropy": "Entropy",
        "cosine-similarity": "Cosine similarity",
        "key": "key",
        "value": "value",
        "scaled-dot-product-attention": "scaled dot-product attention",
        "causal-mask": "triangular mask",
    },
    post2: {
        "token": "token",
        "dot-product": "dot product",
        "softmax": "softmax",
        "embedding": "embeddings",
        "parameter": "parameters",
        "dropout": "dropout",
        "head": "heads",
        "context-vector": "context vector",
        "weight-matrices": "weight matrices",
        "causal-mask": "causal mask",
        "query": "queries",
        "key": "keys",
        "head-dim": "width of one head",
        "value": "value",
        "gram-matrix": "Gram matrix",
        "jacobian": "Jacobian",
        "context-length": "context length",
        "attention-weight": "attention weights",
        "matrix-multiplication": "matrix products",
        "residual-connection": "residual connection",
        "layer-norm": "layer normalisation",
        "feed-forward": "feed-forward network",
        "kv-cache": "key–value cache",
        "permutation-equivariance": "permutation-equivariant",
        "positional-embedding": "position embeddings",
    },
}
POSTS = list(EXPECTED)
LINK = re.compile(r'<a class="term" href="/glossary/#([^"]+)"[^>]*>(.*?)</a>', re.S)
# Where a tooltip link does not belong: headings, code, figure captions and typeset math.
NOT_PROSE = {"h1", "h2", "h3", "h4", "h5", "h6", "pre", "code", "figcaption", "math"}
VOID = {"area", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


@pytest.fixture(scope="module", params=POSTS, ids=lambda p: p.__name__)
def post(request) -> tuple:
    return request.param, render(request.param)


def test_every_expected_id_is_a_glossary_term():
    terms = glossary.load()
    for page, expected in EXPECTED.items():
        assert set(expected) <= set(terms), page.__name__


def test_each_term_has_exactly_one_tooltip_showing_the_prose_words(post):
    page, html = post
    links = LINK.findall(html)
    ids = [term_id for term_id, _ in links]
    for term_id in EXPECTED[page]:
        assert ids.count(term_id) == 1, f"{term_id} has {ids.count(term_id)} tooltips"
    assert set(ids) == set(EXPECTED[page])
    shown = {term_id: unescape(re.sub(r"<[^>]+>", "", text)) for term_id, text in links}
    assert shown == EXPECTED[page]


def test_each_tooltip_follows_its_link_and_defines_its_term(post):
    _, html = post
    terms = glossary.load()
    ids = [term_id for term_id, _ in LINK.findall(html)]
    tips = re.findall(r'role="tooltip" id="([^"]+)"><b>(.*?)</b> (.*?)</span>', html)
    assert [t for t, _, _ in tips] == [glossary.tip_id(i) for i in ids]
    for term_id, (_, name, short) in zip(ids, tips, strict=True):
        assert unescape(name) == terms[term_id].name
        assert unescape(short) == terms[term_id].short


class _TermPlaces(HTMLParser):
    """Records, for each tooltip link, the tags and classes it sits inside."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, str]] = []
        self.places: dict[str, list[tuple[str, str]]] = {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "a" and attrs.get("class") == "term":
            self.places[attrs["href"].rsplit("#", 1)[1]] = list(self.stack)
        if tag not in VOID:
            self.stack.append((tag, attrs.get("class") or ""))

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                return


def test_tooltips_sit_in_prose_not_math_code_headings_or_captions(post):
    page, html = post
    places = _TermPlaces()
    places.feed(html)
    assert set(places.places) == set(EXPECTED[page])
    for term_id, ancestors in places.places.items():
        tags = {tag for tag, _ in ancestors}
        assert not tags & NOT_PROSE, f"{term_id} inside {tags & NOT_PROSE}"
        assert not any("katex" in cls or "figure" in cls for _, cls in ancestors), term_id
        assert "article" in tags and tags & {"p", "li"}, f"{term_id} is not in the article's prose"
