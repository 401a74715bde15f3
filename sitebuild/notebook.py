"""Each post as a Jupyter notebook (nbformat 4) the reader downloads and runs.

The notebook is made from the page's own article as the build rendered it: its headings and
prose become Markdown cells (the math left as ``$...$`` for Jupyter to typeset, every link
made absolute so it works outside the site), its code blocks code cells in page order with
the output the page printed, each figure a short note linking back to the live figure, each
exercise its task, its starter code, a check to run, the hint and the solution. The first code
cell installs the core the page runs on: the project's wheel, from the site.

The build runs the notebook's code (after the install) from top to bottom in a fresh
namespace, as a kernel would: a cell that fails fails the build, naming the page and the
block, and a block that prints other than the page printed does too.
"""

from __future__ import annotations

import inspect
import posixpath
import re
import traceback
from typing import NamedTuple
from urllib.parse import urljoin

import nbformat
from bs4 import BeautifulSoup, Comment, NavigableString, Tag
from markdownify import MarkdownConverter

from pages import exercises
from sitebuild.checks import BuildError
from sitebuild.snippets import execute_cell

FOLDER = "notebooks"  # under site/, each notebook in a folder named by its hash
CONTENT_TYPE = "application/x-ipynb+json"
# The footer's link names this until the notebook is written and hashed (build.write_pages).
PENDING = "notebook-of:{slug}"
# The code cell's source, the page's numbering, printed output: every code block of a page.
Block = tuple[str, str, str]


class Notebook(NamedTuple):
    """A written notebook: its site-relative path (hashed) and its size in bytes."""

    path: str
    size: int


def pending(page) -> str:
    """The footer's link to ``page``'s notebook, before the notebook exists."""
    return PENDING.format(slug=page.SLUG)


def file_name(page) -> str:
    """What the reader's download is called: the post's slug."""
    return f"{page.SLUG}.ipynb"


# Markdown as Jupyter reads it: nothing escaped, since the math between $ signs must reach
# its typesetter untouched (Jupyter lifts the math out before it parses the Markdown).
_MARKDOWN = MarkdownConverter(
    escape_asterisks=False,
    escape_underscores=False,
    escape_misc=False,
    heading_style="ATX",
    bullets="-",
)


def _markdown(html: str) -> str:
    # Display equations that follow each other stay paragraphs of their own, as on the page.
    return re.sub(r"\$\$\n\$\$", "$$\n\n$$", _MARKDOWN.convert(html).strip())


def _absolute_links(article: Tag, page_url: str) -> None:
    """Make every link work from a notebook: relative to the page it came from."""
    for link in article.find_all("a", href=True):
        link["href"] = urljoin(page_url, link["href"])


def _drop_page_furniture(article: Tag) -> None:
    """What only the page needs: its table of contents, the headings' own links, the
    glossary's hover text (the term stays a link to its entry), the references' back links."""
    for element in article.select("nav.toc, a.self-link, span.term-tip, a.ref-back, script"):
        element.decompose()


def _text(element: Tag | None) -> str:
    return element.get_text() if element is not None else ""


def _kind(element) -> str | None:
    """Which of the article's blocks ``element`` is: "snippet", "figure", "exercise" or None
    (prose)."""
    if not isinstance(element, Tag):
        return None
    if element.name == "div" and "snippet" in (element.get("class") or []):
        return "snippet"
    if element.name == "figure" and element.has_attr("data-figure"):
        return "figure"
    if element.name == "section" and element.has_attr("data-exercise"):
        return "exercise"
    return None


class _Cells:
    """The notebook's cells as they are made, prose gathered until the next code or heading."""

    def __init__(self) -> None:
        self.cells: list = []
        self.prose: list[str] = []

    def markdown(self, text: str) -> None:
        self.flush()
        self.cells.append(nbformat.v4.new_markdown_cell(text))

    def code(self, source: str, page_cell: str | None, role: str) -> None:
        self.flush()
        cell = nbformat.v4.new_code_cell(source)
        cell.metadata["attention"] = {
            "role": role,
            **({"page_cell": page_cell} if page_cell else {}),
        }
        self.cells.append(cell)

    def flush(self) -> None:
        html = "".join(self.prose).strip()
        self.prose.clear()
        if html and (text := _markdown(html)):
            self.cells.append(nbformat.v4.new_markdown_cell(text))


def _figure_note(figure: Tag, page_url: str) -> str:
    title = _text(figure.select_one(".fig-title")).strip()
    caption = _text(figure.select_one(".fig-caption")).strip()
    link = f"{page_url}#{figure['id']}"
    return (
        f"> **{title}.** {caption}\n>\n"
        f"> This figure is live [on the page]({link}): the same numpy, rerun in your browser as "
        "you move its controls. Its source and a try-it cell are there too."
    )


def _exercise(cells: _Cells, section: Tag) -> None:
    exercise = exercises.by_number(section["data-exercise"])
    heading = section.find(["h3", "h2"])
    task = section.find("p")
    cells.markdown(_markdown(f"<h3>{heading.decode_contents()}</h3>{task}"))
    cells.code(exercise.starter, None, "exercise-starter")
    name = exercise.check.__name__
    check = (
        "# Run after your code: the check the page runs when you press Check.\n"
        f"{inspect.getsource(exercise.check)}\n"
        f"verdict, reason = {name}(globals())\nprint(f'{{verdict}}: {{reason}}')"
    )
    cells.code(check, None, "exercise-check")
    solution = f"```python\n{exercise.solution.strip()}\n```"
    cells.markdown(
        f"<details><summary>Hint</summary>\n\n{exercise.hint}\n\n</details>\n\n"
        f"<details><summary>Solution</summary>\n\n{solution}\n\n</details>"
    )


def _walk(element: Tag, cells: _Cells, page_url: str) -> None:
    for child in element.children:
        kind = _kind(child)
        if kind == "snippet":
            code, number, _ = _block(child)
            cells.code(code, number, "page")
        elif kind == "figure":
            cells.markdown(_figure_note(child, page_url))
        elif kind == "exercise":
            _exercise(cells, child)
        elif isinstance(child, Tag) and any(map(_kind, child.descendants)):
            _walk(child, cells, page_url)  # a wrapper: its blocks in order
        elif isinstance(child, Tag) and child.name in ("h2", "h3"):
            cells.flush()  # a section starts a cell of its own
            cells.prose.append(str(child))
        elif isinstance(child, Tag) or (
            isinstance(child, NavigableString) and not isinstance(child, Comment)
        ):
            cells.prose.append(str(child))
    cells.flush()


def _block(snippet: Tag) -> Block:
    """A code block as the page shows it: (code, cell number, printed output)."""
    code = _text(snippet.select_one("[data-cell-code]")).strip("\n")
    return code, snippet["data-cell"], _text(snippet.select_one("[data-cell-output]"))


def page_blocks(html: str | BeautifulSoup) -> list[Block]:
    """The page's own code blocks (not an exercise's or a try-it cell), in page order, from its
    HTML or the HTML already parsed."""
    soup = BeautifulSoup(html, "html.parser") if isinstance(html, str) else html
    return [
        _block(snippet)
        for snippet in soup.select("article div.snippet[data-cell]")
        if not snippet.has_attr("data-cell-solo")
    ]


def install_cell(wheel_url: str) -> str:
    """The notebook's first code cell: numpy, and the project's wheel from the site."""
    return (
        "# The core this page runs on: numpy and the project's own package (attention/,\n"
        "# formatting/), installed from the site. Run this cell once per environment.\n"
        f'%pip install --quiet "numpy>=2" "{wheel_url}"'
    )


def build(page, html: str, page_url: str, wheel_url: str) -> nbformat.NotebookNode:
    """``page``'s notebook from its rendered prose ``html`` (math not yet typeset), with
    outputs: every code cell after the install runs here, in order, in one namespace."""
    soup = BeautifulSoup(html, "html.parser")
    article = soup.find("article")
    if article is None:
        raise BuildError(f"{page.TEMPLATE} has no <article>: the notebook is made from it")
    blocks = page_blocks(soup)  # what the page printed, to hold the notebook to
    _absolute_links(article, page_url)
    _drop_page_furniture(article)
    cells = _Cells()
    cells.markdown(
        f"This is the notebook of [{page.TITLE}]({page_url}): the page's prose and code, in its "
        "order, with the output the page printed. Run the cells from the top; the figures stay "
        "live on the page, which each note below links to. The page numbers its code cells "
        "from 1, as the counts beside them here do until you run them, and a comment such as "
        "`# from cell 1: X` names the earlier cell a name comes from."
    )
    cells.code(install_cell(wheel_url), None, "install")
    _walk(article, cells, page_url)
    for number, cell in enumerate(cells.cells, 1):  # ids by place: the same page, the same bytes
        cell.id = f"cell-{number}"
    notebook = nbformat.v4.new_notebook(
        cells=cells.cells,
        metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "language_info": {"name": "python"},
        },
    )
    run(notebook, page, blocks)
    nbformat.validate(notebook)
    return notebook


def run(notebook: nbformat.NotebookNode, page, blocks: list[Block]) -> None:
    """Run the notebook's code cells after the install, in order, in one fresh namespace, and
    store what each printed as its output; BuildError naming the page and the block for a
    cell that fails, or a page's block that prints other than the page shows."""
    printed_on_page = {number: printed for _, number, printed in blocks}
    namespace: dict = {"__name__": "__main__"}
    count = 0
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code" or cell.metadata["attention"]["role"] == "install":
            continue
        count += 1
        role, page_cell = (
            cell.metadata["attention"]["role"],
            cell.metadata["attention"].get("page_cell"),
        )
        block = f"the page's cell {page_cell}" if page_cell else role.replace("-", " ")
        where = f"{page.TEMPLATE}'s notebook, code cell {index + 1} ({block})"
        try:
            printed, shown = execute_cell(cell.source, namespace)
        except BuildError as err:
            if role != "exercise-starter":
                raise BuildError(f"{where}: {err}") from err
            # An exercise may start from code that fails: the failure is the task. Jupyter
            # runs on past a cell tagged so, as the reader's run from the top must.
            cell.metadata["tags"] = ["raises-exception"]
            cell.execution_count = count
            cell.outputs = [error_output(err.__cause__)]
            continue
        if page_cell is not None and printed != printed_on_page.get(page_cell):
            raise BuildError(
                f"{where} printed {printed!r} where the page printed "
                f"{printed_on_page.get(page_cell)!r}: the notebook runs the page's cells in order, "
                "so the page's output depends on something a notebook does not share"
            )
        cell.execution_count = count
        cell.outputs = []
        if printed:
            cell.outputs.append(
                nbformat.v4.new_output("stream", name="stdout", text=printed + "\n")
            )
        if shown is not None:
            result = {"text/plain": shown}
            cell.outputs.append(
                nbformat.v4.new_output("execute_result", data=result, execution_count=count)
            )


def error_output(err: BaseException) -> nbformat.NotebookNode:
    """A cell's error output, as a kernel shows an exception: its type, message and lines."""
    lines = traceback.format_exception_only(type(err), err)
    return nbformat.v4.new_output(
        "error",
        ename=type(err).__name__,
        evalue=str(err),
        traceback=[line.rstrip("\n") for line in lines],
    )


def write(out, page, notebook: nbformat.NotebookNode) -> str:
    """Write ``page``'s notebook under ``out/notebooks/`` (not yet hashed); return its path,
    site-relative."""
    rel = posixpath.join(FOLDER, file_name(page))
    target = out / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(nbformat.writes(notebook) + "\n")
    return rel
