"""A page's figures are the ones its template places: read from the template, counted from it.

``pages.placed_figures`` is the one list of a page's figures that the prose's counts and the
tests use; here it is checked against the figures the rendered page holds.
"""

import re

import pytest

import pages
from pages import post1
from tests.pages.render import render


@pytest.mark.parametrize("page", pages.all_pages(), ids=lambda p: p.SLUG or "index")
def test_the_template_places_what_the_build_renders_each_once(page):
    rendered = re.findall(r'<figure class="fig" data-figure="([^"]+)"', render(page))
    placed = pages.placed_figures(page.TEMPLATE)
    assert placed == rendered
    assert len(set(placed)) == len(placed), "a figure is placed twice"


def test_a_section_holds_the_figures_under_its_heading():
    everything = pages.placed_figures(post1.TEMPLATE)
    in_section = pages.placed_figures(post1.TEMPLATE, "what-it-did")
    assert in_section and everything[-len(in_section) :] == in_section
    assert pages.placed_figures(post1.TEMPLATE, "look-back") == []  # prose only
    with pytest.raises(ValueError, match="no section"):
        pages.placed_figures(post1.TEMPLATE, "no-such-section")


def test_the_prose_counts_a_figure_added_to_the_template(tmp_path, monkeypatch):
    """What a new author does: one more figure in section 06, and the counts follow it."""
    source = (pages.TEMPLATES / post1.TEMPLATE).read_text()
    extra = '{{ figure("magnitude") }}\n\n<h2 id="next">'
    (tmp_path / post1.TEMPLATE).write_text(source.replace('<h2 id="next">', extra))
    before = post1.context()
    monkeypatch.setattr(pages, "TEMPLATES", tmp_path)
    after = post1.context()
    assert (before["figures_on_tensor"], after["figures_on_tensor"]) == (
        "five of the six",
        "six of the seven",
    )
    assert (before["what_it_did_figures"], after["what_it_did_figures"]) == ("two", "three")
    assert before["counting_figure"] == after["counting_figure"] == "first"
