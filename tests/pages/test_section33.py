"""The section 3.3 page: every number the book's section prints, rendered from the core."""

import re
from html import unescape

import pytest

import build
import pages
from pages import home, section33
from sitebuild import glossary
from tests.pages.render import render, snippet_outputs

TEMPLATE = build.ROOT / "templates" / section33.TEMPLATE

# What section 3.3 prints, passage by passage (expected values, not inputs to the page).
BOOK = {
    "3.3.1 step 1, attn_scores_2": ["0.9544", "1.4950", "1.4754", "0.8434", "0.7070", "1.0865"],
    "3.3.1 step 1, worked example for ω21": ["0.2365", "0.1305", "0.5874", "0.9544"],
    "3.3.1 step 2, divide by the sum": ["0.1455", "0.2278", "0.2249", "0.1285", "0.1077", "0.1656"],
    "3.3.1 step 2, softmax": ["0.1385", "0.2379", "0.2333", "0.1240", "0.1082", "0.1581"],
    "3.3.1 step 3, context_vec_2": ["0.4419", "0.6515", "0.5683"],
    "3.3.2 all_context_vecs": [
        "0.4421", "0.5931", "0.5790", "0.4419", "0.6515", "0.5683", "0.4431", "0.6496",
        "0.5671", "0.4304", "0.6298", "0.5510", "0.4671", "0.5910", "0.5266", "0.4177",
        "0.6503", "0.5645",
    ],
}  # fmt: skip


@pytest.fixture(scope="module")
def html() -> str:
    return render(section33)


def visible_text(html: str) -> str:
    """The page as a reader sees it: no scripts (the figures' data), no templates, no tags."""
    html = re.sub(r"<(script|template)\b.*?</\1>", " ", html, flags=re.S)
    return unescape(re.sub(r"<[^>]+>", " ", html))


def test_context_quotes_the_books_numbers():
    n = section33.context()
    assert n["scores"] == "[0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865]"
    assert n["by_sum"] == "[0.1455, 0.2278, 0.2249, 0.1285, 0.1077, 0.1656]"
    assert n["weights"] == "[0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581]"
    assert n["z"] == n["z_row"] == "[0.4419, 0.6515, 0.5683]"
    assert n["worked_factors"] == "0.55 · 0.43 + 0.87 · 0.15 + 0.66 · 0.89"
    assert n["worked_products"] == "0.2365 + 0.1305 + 0.5874"
    assert n["worked_sum"] == "0.9544"
    assert n["contexts"][0] == "[0.4421, 0.5931, 0.5790]"
    assert n["contexts"][5] == "[0.4177, 0.6503, 0.5645]"
    assert (n["T"], n["d"], n["gpt2_embed"]) == ("6", "3", "768")


@pytest.mark.parametrize("passage", BOOK)
def test_every_number_the_section_prints_is_on_the_page(html, passage):
    text = visible_text(html)
    for number in BOOK[passage]:
        assert number in text, f"{passage}: {number} missing"


def test_printed_outputs_are_the_books(html):
    outputs = snippet_outputs(html)
    assert "[0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865]" in outputs
    assert "[0.1455, 0.2278, 0.2249, 0.1285, 0.1077, 0.1656]\ntotal: 1.0000" in outputs
    assert "[0.4419, 0.6515, 0.5683]" in outputs
    matrix = next(o for o in outputs if o.startswith("[[0.4421"))
    rows = re.findall(r"\[([\d., ]+)\]", matrix)
    flat = [v for row in rows for v in row.split(", ")]
    assert flat == BOOK["3.3.2 all_context_vecs"]
    assert all("False" not in o for o in outputs)  # every cross-check printed True


def test_no_number_is_typed_into_the_template():
    source = TEMPLATE.read_text()
    assert re.findall(r"\d\.\d{2,}", source) == []


def test_each_term_has_one_tooltip_and_every_link_lands_on_an_entry(html):
    terms = glossary.load()
    links = re.findall(r'<a class="term" href="/glossary/#([^"]+)"', html)
    assert len(links) >= 10
    assert len(links) == len(set(links)), "a term has a tooltip twice on one page"
    assert set(links) <= set(terms)
    tips = re.findall(r'role="tooltip" id="([^"]+)"', html)
    assert tips == [glossary.tip_id(t) for t in links]


def test_reading_order_and_navigation():
    order = [p.__name__ for p in pages.posts()]
    # Post 1 opens the series; this page works its section through by hand, before post 2.
    assert order == ["pages.post1", "pages.section33", "pages.post2", "pages.post3"]
    index = render(home)
    assert f'href="/{section33.SLUG}/"' in index
    page = render(section33)
    following = pages.posts()[order.index("pages.section33") + 1]
    assert f'rel="next" href="/{following.SLUG}/"' in page
    assert 'href="/glossary/"' in page
