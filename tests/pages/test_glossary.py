"""The glossary: one data file, checked; term() links first uses; the page has every anchor."""

import re
from html import unescape

import pytest

from pages import glossary as glossary_page
from sitebuild import glossary
from tests.pages.render import render

TOOLTIP = re.compile(
    r'<span class="term-wrap"><a class="term" href="([^"]+)" aria-describedby="([^"]+)">'
    r'(.*?)</a><span class="term-tip" role="tooltip" id="([^"]+)"><b>(.*?)</b> (.*?)</span></span>'
)


@pytest.fixture(scope="module")
def terms():
    return glossary.load()


def test_the_terms_the_issue_names_are_all_defined(terms):
    for name in (
        "context vector", "attention score", "attention weight", "dot product", "softmax",
        "query", "key", "value", "causal mask", "dropout", "attention head",
    ):  # fmt: skip
        assert glossary.lookup(terms, name).name == name


def test_every_entry_is_complete_and_short_definitions_fit_a_tooltip(terms):
    assert len(terms) >= 25
    for t in terms.values():
        assert t.short and t.long and t.name
        assert len(t.short) <= 140, f"{t.id}: the tooltip text is too long"
        assert t.short.endswith(".") and t.long.endswith(".")
        assert all(r in terms for r in t.related)


def test_lookup_by_id_name_or_alias_in_any_case(terms):
    assert glossary.lookup(terms, "attention-weight").id == "attention-weight"
    assert glossary.lookup(terms, "Attention Weights").id == "attention-weight"
    assert glossary.lookup(terms, "matmul").id == "matrix-multiplication"
    with pytest.raises(ValueError, match="no glossary term 'flux capacitor'"):
        glossary.lookup(terms, "flux capacitor")


def test_first_use_gets_a_tooltip_link_and_later_uses_are_plain(terms):
    term = glossary.renderer("/sub/", terms)
    first = str(term("softmax"))
    (match,) = TOOLTIP.findall(first)
    href, described_by, text, tip_id, name, short = match
    assert href == "/sub/glossary/#softmax"
    assert described_by == tip_id == glossary.tip_id("softmax")
    assert (text, name) == ("softmax", "softmax")
    assert unescape(short) == terms["softmax"].short
    assert str(term("softmax", "Softmax")) == "Softmax"  # second use: plain text
    assert str(term("row softmax")) == "softmax"  # an alias is the same term
    # A page of its own starts afresh.
    assert TOOLTIP.findall(str(glossary.renderer("/sub/", terms)("softmax")))


def test_text_is_escaped(terms):
    term = glossary.renderer("/", terms)
    assert "<i>" not in str(term("key", "<i>keys</i>"))
    assert str(term("key", "a<b")) == "a&lt;b"


def _write(tmp_path, body: str):
    path = tmp_path / "g.toml"
    path.write_text(body)
    return path


ENTRY = '[[term]]\nid = "{id}"\nname = "{name}"\nshort = "s."\nlong = "l."\n'


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("", "defines no"),
        (ENTRY.format(id="a", name="a") + ENTRY.format(id="a", name="b"), "defined twice"),
        (ENTRY.format(id="a", name="x") + ENTRY.format(id="b", name="x"), "names both"),
        (ENTRY.format(id="a", name="a") + 'related = ["b"]\n', "unknown 'b'"),
        (ENTRY.format(id="A b", name="a"), "lower-case"),
        ('[[term]]\nid = "a"\nname = "a"\nshort = "s."\n', "lacks long"),
        (ENTRY.format(id="a", name="a") + 'colour = "red"\n', "unknown fields"),
    ],
)
def test_a_broken_data_file_fails_loudly(tmp_path, body, message):
    with pytest.raises(ValueError, match=message):
        glossary.load(_write(tmp_path, body))


def test_the_glossary_page_has_an_entry_at_every_anchor(terms):
    html = render(glossary_page)
    ids = re.findall(r'<div class="glossary-entry" id="([^"]+)">', html)
    assert sorted(ids) == sorted(terms)
    for t in terms.values():
        entry = html[html.index(f'id="{t.id}"') :]
        entry = entry[: entry.index("</div>")]
        assert unescape(re.sub(r"<[^>]+>", "", entry)).count(t.long) == 1
    for target in re.findall(r'<a href="#([^"]+)">', html):
        assert target in terms, f"see-also link to a missing entry {target}"
