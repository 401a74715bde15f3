"""The link-preview images: one per post and the site's, 1200x630 PNG, drawn from what each page
declares, the same bytes every time, served from a folder named by their content."""

import io
import re
from types import ModuleType

import numpy as np
import pytest
from PIL import Image

import pages
from figures import REGISTRY
from sitebuild import frame, preview


def made() -> dict:
    return preview.cards(pages.all_pages(), pages.posts(), frame.NAME)


@pytest.fixture(scope="module")
def drawn() -> dict:
    return made()


def a_page(slug: str, declared: dict | None) -> ModuleType:
    page = ModuleType(f"pages.fake_{slug or 'index'}")
    page.SLUG, page.TITLE, page.SUMMARY = slug, f"A page called {slug}", "What it says."
    if declared is not None:
        page.preview = lambda: declared
    return page


def declared(**change) -> dict:
    return {
        "figure": "magnitude",
        "matrix": np.arange(9.0).reshape(3, 3),
        "labels": ("a", "b", "c"),
        "caption": "A caption",
        "alt": "An alt text",
        **change,
    }


def test_every_post_and_the_site_have_a_card_of_1200_by_630_png(drawn):
    names = {f"{p.SLUG}.png" for p in pages.posts()} | {"site.png"}
    assert set(drawn["images"]) == names
    for name, data in drawn["images"].items():
        image = Image.open(io.BytesIO(data))
        assert (image.format, image.size) == ("PNG", (1200, 630)), name
        assert len(data) < 60_000, name  # a card is flat colours: a small file


def test_a_post_names_its_own_card_and_the_index_page_the_sites(drawn):
    assert drawn["pages"][preview.SITE][0] == "site.png"
    for post in pages.posts():
        name, alt = drawn["pages"][post.SLUG]
        assert name == f"{post.SLUG}.png" and alt == post.preview()["alt"]


def test_the_cards_are_the_same_bytes_every_time(drawn):
    assert made()["images"] == drawn["images"]


def test_a_card_shows_the_pages_matrix(drawn):
    """The heatmap's darkest cell is where the declared matrix is largest: the picture is
    the page's data, not a stock image."""
    for post in pages.posts():
        matrix = post.preview()["matrix"]
        image = Image.open(io.BytesIO(drawn["images"][f"{post.SLUG}.png"])).convert("RGB")
        n = len(matrix)
        cell = min(70, 420 // n)
        left, top = 1200 - preview.MARGIN - cell * n, 630 - preview.MARGIN - cell * n + 8
        centre = [
            image.getpixel((left + j * cell + cell // 2, top + i * cell + cell // 2))
            for i, j in np.ndindex(matrix.shape)
        ]
        darkest = int(np.argmin([sum(rgb) for rgb in centre]))
        assert darkest == int(np.nanargmax(np.where(np.isfinite(matrix), matrix, np.nan)))


def test_each_declared_picture_is_one_of_its_pages_figures():
    for post in pages.posts():
        assert post.preview()["figure"] in pages.placed_figures(post.TEMPLATE), post.SLUG
    home = next(p for p in pages.all_pages() if p.SLUG == preview.SITE)
    assert home.preview()["figure"] in REGISTRY


def test_a_post_without_a_preview_fails_the_build():
    index = a_page("", declared())
    with pytest.raises(ValueError, match=r"pages\.fake_bare declares no preview"):
        preview.cards([index], [a_page("bare", None)], frame.NAME)
    with pytest.raises(ValueError, match="declares no preview"):
        preview.cards([a_page("", None)], [], frame.NAME)  # nor the site's card
    assert set(preview.cards([index], [], frame.NAME)["images"]) == {"site.png"}


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"matrix": np.ones((2, 3))}, "square matrix"),
        ({"labels": ("a", "b")}, "square matrix"),
        ({"matrix": np.full((3, 3), -np.inf)}, "no finite value"),
        ({"alt": " "}, "must not be empty"),
        ({"caption": "weights α"}, "lacks: 'α'"),
        ({"extra": 1}, "exactly"),
    ],
)
def test_a_bad_declaration_says_what_is_wrong(change, says):
    with pytest.raises(ValueError, match=says):
        preview.picture(a_page("p", declared(**change)))


def test_the_cards_move_into_folders_named_by_their_content(tmp_path):
    index, post = a_page("", declared()), a_page("p", declared())
    first = preview.write(tmp_path / "a", [index], [post], frame.NAME)
    again = preview.write(tmp_path / "b", [index], [post], frame.NAME)
    assert first == again  # the same picture keeps its URL across builds
    for slug, card in first.items():
        assert re.fullmatch(r"preview/[0-9a-f]{12}/(site|p)\.png", card.path), slug
        assert (tmp_path / "a" / card.path).is_file()
    assert not list((tmp_path / "a" / "preview").glob("*.png"))  # none left unhashed
    changed = a_page("p", declared(matrix=np.arange(9.0)[::-1].reshape(3, 3)))
    other = preview.write(tmp_path / "c", [index], [changed], frame.NAME)
    assert other["p"].path != first["p"].path and other[""] == first[""]


def test_a_blank_cell_shows_an_infinity_of_its_sign():
    """The font has no minus sign and no infinity; the card draws them: -inf with a bar."""

    def ink(value: float) -> int:
        image = Image.new("RGB", (80, 40), "#ffffff")
        preview.draw_infinity(image, (40, 20), 20, value)
        return int(np.count_nonzero(np.asarray(image.convert("L")) < 255))

    assert 0 < ink(np.inf) < ink(-np.inf)
