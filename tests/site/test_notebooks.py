"""The posts' notebooks in the built site: each post's footer links its own, content-hashed and
named by its slug, served with a notebook's type; the feed entry names it too; its first cell
installs the very wheel the site ships, by the site's public URL; its code cells show what the
built page printed; and it runs from the top in a real Jupyter kernel, in a Python environment
of its own that holds only the kernel and numpy, as on a reader's fresh machine, installing the
site's wheel from a local file URL, and shows there what it says it printed."""

import json
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.request import urlopen

import nbformat
import pytest
from bs4 import BeautifulSoup
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

import build
import pages
from harness.site import BASE, SITE_URL, path
from sitebuild import notebook
from sitebuild.wheels import project_wheel_name

ATOM = "{http://www.w3.org/2005/Atom}"
POSTS = pages.posts()
# The reader's side: a kernel and the numpy the site's core is pinned to, nothing else.
KERNEL_PACKAGES = ("ipykernel==7.4.0", "numpy==2.0.2")
KERNEL_NAME = "attention-notebook"


def footer_link(site: Path, page):
    html = (site / path(page) / "index.html").read_text()
    return BeautifulSoup(html, "html.parser").select_one("footer .notebook-link a")


def linked(site: Path, page) -> str:
    """The site-relative path of the notebook ``page``'s footer links."""
    return footer_link(site, page)["href"].removeprefix(BASE)


@pytest.mark.parametrize("page", POSTS, ids=lambda p: p.SLUG)
def test_each_post_links_its_own_notebook_from_its_footer(site, page):
    link = footer_link(site, page)
    assert link is not None, f"{page.SLUG}'s footer has no notebook link"
    rel = linked(site, page)
    assert link["href"] == BASE + rel
    assert re.fullmatch(rf"notebooks/[0-9a-f]{{12}}/{page.SLUG}\.ipynb", rel), link["href"]
    assert link["download"] == f"{page.SLUG}.ipynb"
    assert link["type"] == notebook.CONTENT_TYPE
    book = nbformat.reads((site / rel).read_text(), as_version=4)
    nbformat.validate(book)
    assert page.TITLE in book.cells[0].source


@pytest.mark.parametrize("page", pages.all_pages(), ids=lambda p: p.SLUG or "index")
def test_only_the_posts_have_one(site, page):
    assert (footer_link(site, page) is not None) == (page in POSTS)


def test_the_local_server_serves_a_notebook_with_a_notebooks_type(site, server_url):
    with urlopen(server_url + linked(site, POSTS[0])) as response:
        assert response.headers["Content-Type"] == notebook.CONTENT_TYPE
        assert json.loads(response.read())["nbformat"] == 4


def test_each_feed_entry_names_its_posts_notebook(site):
    feed = ET.parse(site / "feed.xml").getroot()
    entries = feed.findall(f"{ATOM}entry")
    assert len(entries) == len(POSTS)
    for page, entry in zip(POSTS, entries, strict=True):
        enclosure = entry.find(f"{ATOM}link[@rel='enclosure']")
        assert enclosure is not None, f"{page.SLUG}'s feed entry names no notebook"
        assert enclosure.get("href") == SITE_URL + linked(site, page)
        assert enclosure.get("type") == notebook.CONTENT_TYPE
        assert int(enclosure.get("length")) == (site / linked(site, page)).stat().st_size


def shipped_wheel(site: Path) -> Path:
    """The project's wheel in the built site."""
    (wheel,) = site.glob(f"runtime/*/{project_wheel_name(build.ROOT)}")
    return wheel


def test_the_first_cell_installs_the_wheel_the_site_ships(site):
    url = SITE_URL + shipped_wheel(site).relative_to(site).as_posix()
    for page in POSTS:
        install = json.loads((site / linked(site, page)).read_text())["cells"][1]
        assert f'"{url}"' in "".join(install["source"])


@pytest.mark.parametrize("page", POSTS, ids=lambda p: p.SLUG)
def test_its_code_cells_show_what_the_built_page_printed(site, page):
    blocks = notebook.page_blocks((site / path(page) / "index.html").read_text())
    book = nbformat.reads((site / linked(site, page)).read_text(), as_version=4)
    cells = [c for c in book.cells if c.metadata.get("attention", {}).get("role") == "page"]
    assert [c.source for c in cells] == [code for code, _, _ in blocks]
    printed = ["".join(o.text for o in c.outputs).rstrip("\n") for c in cells]
    assert printed == [text for _, _, text in blocks]


class Kernel:
    """A Python environment with a Jupyter kernel in it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.python = root / "bin" / "python"
        self.specs = KernelSpecManager(kernel_dirs=[str(root / "share" / "jupyter" / "kernels")])

    def manager(self) -> KernelManager:
        return KernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=self.specs)


def run(*command) -> None:
    """Run ``command``; if it fails, fail with what it said."""
    done = subprocess.run([str(part) for part in command], capture_output=True, text=True)
    if done.returncode:
        pytest.fail(f"{' '.join(map(str, command))} failed:\n{done.stdout}{done.stderr}")


@pytest.fixture(scope="session")
def kernel(tmp_path_factory) -> Kernel:
    root = tmp_path_factory.mktemp("kernel") / "env"
    run(getattr(sys, "_base_executable", sys.executable), "-m", "venv", root)
    env = Kernel(root)
    run(
        env.python,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        *KERNEL_PACKAGES,
    )
    run(env.python, "-m", "ipykernel", "install", "--prefix", root, "--name", KERNEL_NAME)
    return env


def shown(cell) -> list[tuple]:
    """What a code cell shows, output by output."""
    seen: list[tuple] = []
    for output in cell.outputs:
        if output.output_type == "stream":  # a kernel may send one print in several parts
            if seen and seen[-1][:2] == ("stream", output.name):
                seen[-1] = ("stream", output.name, seen[-1][2] + output.text)
            else:
                seen.append(("stream", output.name, output.text))
        elif output.output_type == "execute_result":
            seen.append(("result", output.data["text/plain"]))
        elif output.output_type == "error":
            seen.append(("error", output.ename, output.evalue))
        else:
            seen.append((output.output_type,))
    return seen


@pytest.mark.parametrize("page", POSTS, ids=lambda p: p.SLUG)
def test_the_notebook_runs_in_a_fresh_kernel_and_shows_what_it_says(site, kernel, page, tmp_path):
    book = nbformat.reads((site / linked(site, page)).read_text(), as_version=4)
    code = [cell for cell in book.cells if cell.cell_type == "code"]
    expected = [shown(cell) for cell in code[1:]]
    wheel = shipped_wheel(site)
    code[0].source = code[0].source.replace(
        SITE_URL + wheel.relative_to(site).as_posix(), wheel.as_uri()
    )
    assert code[0].source.count(wheel.as_uri()) == 1
    # Last, which attention the kernel imported: the wheel's, in the kernel's environment.
    book.cells.append(nbformat.v4.new_code_cell("import attention\nprint(attention.__file__)"))
    started = time.monotonic()
    client = NotebookClient(book, km=kernel.manager(), timeout=600, allow_errors=False)
    client.execute(cwd=str(tmp_path))  # not the project's folder, whose attention/ is beside
    print(f"{page.SLUG}: a fresh kernel ran its notebook in {time.monotonic() - started:.1f} s")
    *ran, where = [cell for cell in book.cells if cell.cell_type == "code"][1:]
    assert [shown(cell) for cell in ran] == expected
    assert Path(where.outputs[0].text.strip()).is_relative_to(kernel.root)
