"""Each post as a notebook (sitebuild/notebook.py), made from the page as the build renders it:
valid, the page's code in page order with the page's output, the prose as Markdown with its
math untouched and its links absolute, and a failing or disagreeing block a build error that
names the page and the block. The built site's notebooks (their links, names and types, and
their run in a Jupyter kernel) are tests/site/test_notebooks.py's."""

import re
from functools import cache
from types import SimpleNamespace

import nbformat
import pytest

import pages
from sitebuild import mathtex, notebook
from sitebuild.checks import BuildError
from sitebuild.snippets import cell_html
from tests.pages import render

PAGE_URL = "https://example.github.io/attention-explained/{slug}/"
WHEEL_URL = "https://example.github.io/attention-explained/runtime/0123/a.whl"
POSTS = pages.posts()


@cache
def prose(page) -> str:
    return render.prose(page, "/attention-explained/")


@cache
def made(page) -> nbformat.NotebookNode:
    return notebook.build(page, prose(page), PAGE_URL.format(slug=page.SLUG), WHEEL_URL)


def code_cells(book, role: str | None = None) -> list:
    return [
        cell
        for cell in book.cells
        if cell.cell_type == "code" and role in (None, cell.metadata["attention"]["role"])
    ]


def markdown(book) -> str:
    return "\n\n".join(cell.source for cell in book.cells if cell.cell_type == "markdown")


def stdout(cell) -> str:
    return "".join(o.text for o in cell.outputs if o.output_type == "stream").rstrip("\n")


@pytest.mark.parametrize("page", POSTS, ids=lambda p: p.SLUG)
def test_the_notebook_is_valid_and_starts_by_installing_the_core(page):
    book = made(page)
    nbformat.validate(book)
    first = code_cells(book)[0]
    assert first.metadata["attention"]["role"] == "install"
    assert f'"{WHEEL_URL}"' in first.source and first.source.count("%pip install") == 1


def test_the_same_page_makes_the_same_bytes():
    """A notebook's name is its content's hash, so an unchanged post keeps its notebook's."""
    page = POSTS[0]
    again = notebook.build(page, prose(page), PAGE_URL.format(slug=page.SLUG), WHEEL_URL)
    assert nbformat.writes(again) == nbformat.writes(made(page))


@pytest.mark.parametrize("page", POSTS, ids=lambda p: p.SLUG)
def test_its_code_is_the_pages_code_in_order_with_the_pages_output(page):
    blocks = notebook.page_blocks(prose(page))
    cells = code_cells(made(page), "page")
    assert blocks, f"{page.TEMPLATE} has no code blocks to compare"
    assert [(c.source, c.metadata["attention"]["page_cell"]) for c in cells] == [
        (code, number) for code, number, _ in blocks
    ]
    assert [stdout(c) for c in cells] == [printed for _, _, printed in blocks]
    counts = [c.execution_count for c in code_cells(made(page)) if c.execution_count]
    assert counts == list(range(1, len(counts) + 1))


@pytest.mark.parametrize("page", POSTS, ids=lambda p: p.SLUG)
def test_its_prose_keeps_the_headings_the_math_and_working_links(page):
    html, text = prose(page), markdown(made(page))
    for heading in re.findall(r"<h2 id=\"[^\"]+\">([^<]+)<", html):
        assert f"## {heading}" in text
    outside_code = re.sub(r"<(pre|script)\b.*?</\1>", "", html, flags=re.S)
    for display, inline in mathtex._MATH.findall(outside_code):
        assert (f"$${display}$$" if display else f"${inline}$") in text
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    assert links and all(link.startswith("https://") for link in links), links
    assert "Contents" not in text and "Link to this section" not in text  # the page's own
    assert "<span" not in text and "term-tip" not in text


@pytest.mark.parametrize("page", POSTS, ids=lambda p: p.SLUG)
def test_each_figure_is_a_note_linking_to_it_live(page):
    text = markdown(made(page))
    ids = re.findall(r'<figure class="fig" data-figure="([^"]+)"', prose(page))
    assert ids
    for figure_id in ids:
        assert f"({PAGE_URL.format(slug=page.SLUG)}#figure-{figure_id})" in text


def test_an_exercise_is_its_task_its_starter_a_check_and_the_answers():
    post2 = next(p for p in POSTS if "exercise(" in (pages.TEMPLATES / p.TEMPLATE).read_text())
    book = made(post2)
    starters, checks = code_cells(book, "exercise-starter"), code_cells(book, "exercise-check")
    assert len(starters) == len(checks) == 3
    assert "### Exercise 3.1" in markdown(book) and "<summary>Solution</summary>" in markdown(book)
    # A starter that fails is the exercise's point: tagged so that a run from the top goes on.
    failing = [c for c in starters if any(o.output_type == "error" for o in c.outputs)]
    assert failing and all(c.metadata["tags"] == ["raises-exception"] for c in failing)
    assert all(stdout(c).startswith("fail: ") for c in checks)  # the starters are unsolved


def fake_page(code: str, printed: str):
    """A page of one code block that printed ``printed`` on the page."""
    page = SimpleNamespace(SLUG="p", TITLE="P", TEMPLATE="p.html")
    html = f"<article><h1>P</h1><p>One block.</p>{cell_html('1', code, printed)}</article>"
    return page, html


def test_a_block_that_fails_is_a_build_error_naming_the_page_and_the_block():
    page, html = fake_page("x = 1\nprint(1 / 0)", "")
    with pytest.raises(
        BuildError, match=r"p\.html's notebook, code cell \d+ \(the page's cell 1\)"
    ):
        notebook.build(page, html, "https://example.org/p/", WHEEL_URL)
    with pytest.raises(BuildError, match=r"ZeroDivisionError.*\n.*1 \| x = 1"):
        notebook.build(page, html, "https://example.org/p/", WHEEL_URL)


def test_a_block_that_prints_other_than_the_page_is_a_build_error():
    page, html = fake_page("print(2)", "1")
    with pytest.raises(BuildError, match=r"cell 1\) printed '2' where the page printed '1'"):
        notebook.build(page, html, "https://example.org/p/", WHEEL_URL)
    page, html = fake_page("print(2)", "2")
    assert stdout(code_cells(notebook.build(page, html, "https://e.org/p/", WHEEL_URL))[1]) == "2"


def test_a_last_expression_is_shown_as_a_kernel_shows_it():
    page, html = fake_page("x = 3\nprint(x)\nx * 2", "3")
    cell = code_cells(notebook.build(page, html, "https://e.org/p/", WHEEL_URL))[1]
    assert [o.output_type for o in cell.outputs] == ["stream", "execute_result"]
    assert cell.outputs[1].data == {"text/plain": "6"}
