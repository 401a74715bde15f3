"""Link-preview images: the picture another site shows beside a link to a page (Open Graph and
Twitter cards), 1200x630 PNG, drawn at build time with Pillow.

A post's card pictures a matrix one of its figures shows, computed by ``attention/``: the page
declares which in ``preview()`` (``pages/__init__.py`` says what it returns), so nothing here
knows what a post is about. Beside it go the post's title and the site's name. The index
page's ``preview()`` makes the site's card (the site's name and a small heatmap), which every
page that is no post shows too (the glossary, the 404 page).

The images are named only in the pages' meta tags: no page loads one. Each is served from a
folder named by its content's hash (``sitebuild/hashed.py``), so a crawler that caches images
by URL sees a new URL exactly when the picture changes, and a redeploy that changes nothing
keeps every URL. The same inputs give the same bytes.

The text is set in the font Pillow ships inside its own package (``ImageFont.load_default``
at a size: Aileron Regular, through FreeType), so the build reads no font from the system or
the network; its one weight is made bolder for the titles with a thin stroke.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType

import numpy as np
from bokeh.palettes import Oranges256
from PIL import Image, ImageDraw, ImageFont

from sitebuild import hashed

WIDTH, HEIGHT = 1200, 630  # the card size Open Graph and Twitter's large card ask for
FOLDER = "preview"  # under the site; each image then moves into a folder named by its hash
SITE = ""  # the key of the site's card: the index page's slug
# The site's colours (static/site.css) and the figures' heatmap ramp (layoutkit/plots.py).
PAPER, INK, ACCENT, MUTED, RULE = "#fffdf9", "#1f2937", "#c2410c", "#475569", "#e7e0d6"
HEAT = tuple(reversed(Oranges256))  # light for small values, dark for large
MARGIN = 64


@dataclass(frozen=True)
class Picture:
    """What a page's ``preview()`` declares: the matrix its card shows (a non-finite cell is
    drawn blank, with an infinity of its sign: the causal mask's -inf), the rows' and columns'
    token labels, a short caption printed under it, the image's alt text, and the id of the
    figure that shows the same numbers."""

    figure: str
    matrix: np.ndarray
    labels: tuple[str, ...]
    caption: str
    alt: str


@dataclass(frozen=True)
class Card:
    """A page's link-preview image: its path in the site (the hashed one) and its alt text."""

    path: str
    alt: str
    width: int = WIDTH
    height: int = HEIGHT


def picture(page: ModuleType) -> Picture:
    """``page.preview()``, checked; a ValueError names the page and what is wrong."""
    name = page.__name__
    declare = getattr(page, "preview", None)
    if not callable(declare):
        raise ValueError(f"{name} declares no preview(): its link card needs a picture")
    given = declare()
    keys = {"figure", "matrix", "labels", "caption", "alt"}
    if not isinstance(given, dict) or set(given) != keys:
        raise ValueError(f"{name}.preview() must return a dict with exactly {sorted(keys)}")
    matrix = np.asarray(given["matrix"], dtype=np.float64)
    labels = tuple(str(t) for t in given["labels"])
    if matrix.ndim != 2 or matrix.shape != (len(labels), len(labels)):
        raise ValueError(f"{name}.preview(): a square matrix with one label per row and column")
    if not np.isfinite(matrix).any():
        raise ValueError(f"{name}.preview(): the matrix has no finite value to colour")
    texts = {k: str(given[k]).strip() for k in ("figure", "caption", "alt")}
    if not all(texts.values()):
        raise ValueError(f"{name}.preview(): figure, caption and alt must not be empty")
    for label in labels:
        checked_text(label, f"{name}.preview()'s label {label!r}")
    checked_text(texts["caption"], f"{name}.preview()'s caption")
    return Picture(texts["figure"], matrix, labels, texts["caption"], texts["alt"])


@cache
def font(size: int) -> ImageFont.FreeTypeFont:
    found = ImageFont.load_default(size=size)
    if not isinstance(found, ImageFont.FreeTypeFont):  # a Pillow built without FreeType
        raise RuntimeError("Pillow has no FreeType: the link-preview images cannot be drawn")
    return found


def text_width(text: str, size: int, stroke: int = 0) -> float:
    return font(size).getlength(text) + 2 * stroke


def wrap(text: str, size: int, width: float, stroke: int = 0) -> list[str]:
    """``text`` broken at spaces into lines no wider than ``width`` (a word wider stays whole)."""
    lines: list[str] = []
    for word in text.split():
        joined = f"{lines[-1]} {word}" if lines else word
        if lines and text_width(joined, size, stroke) <= width:
            lines[-1] = joined
        else:
            lines.append(word)
    return lines


def fit(text: str, width: float, sizes: Sequence[int], max_lines: int, stroke=0) -> tuple:
    """The largest of ``sizes`` at which ``text`` wraps into ``max_lines`` lines or fewer."""
    for size in sizes:
        lines = wrap(text, size, width, stroke)
        if len(lines) <= max_lines and all(text_width(x, size, stroke) <= width for x in lines):
            return size, lines
    size = sizes[-1]
    return size, wrap(text, size, width, stroke)


def heat(value: float) -> str:
    """The ramp's colour of a value in [0, 1]."""
    return HEAT[min(len(HEAT) - 1, max(0, round(value * (len(HEAT) - 1))))]


def ink_on(colour: str) -> str:
    """Ink or paper, whichever reads on a cell of ``colour``."""
    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return INK if 0.299 * r + 0.587 * g + 0.114 * b > 150 else PAPER


def missing_glyphs(text: str) -> str:
    """The characters of ``text`` the font has no glyph for (it would draw them as boxes)."""
    notdef = bytes(font(40).getmask("\U000f0000"))  # a private-use character: the box
    return "".join(
        sorted({c for c in text if not c.isspace() and bytes(font(40).getmask(c)) == notdef})
    )


def checked_text(text: str, what: str) -> str:
    if missing := missing_glyphs(text):
        raise ValueError(f"{what} has characters the card's font lacks: {missing!r}")
    return text


def draw_infinity(image: Image.Image, centre: tuple[float, float], size: int, sign: float) -> None:
    """A signed infinity, drawn (the font has neither the minus sign nor the infinity): a
    bar and a lemniscate, stroked at four times the size and scaled down, for smooth edges."""
    k = 4
    w, h = round(size * 1.7) * k, size * k
    mask = Image.new("L", (w, h), 0)
    draw = ImageDraw.Draw(mask)
    stroke = max(2, round(size * 0.09)) * k
    a = h * 0.5  # the lemniscate's half width
    cx, cy = w - a - stroke, h / 2
    points = [
        (
            cx + a * math.cos(t) / (1 + math.sin(t) ** 2),
            cy + a * math.sin(t) * math.cos(t) / (1 + math.sin(t) ** 2),
        )
        for t in np.linspace(0, 2 * math.pi, 181)
    ]
    draw.line(points, fill=255, width=stroke, joint="curve")
    if sign < 0:
        draw.line((stroke, cy, cx - a - stroke * 1.5, cy), fill=255, width=stroke)
    small = mask.resize((w // k, h // k), Image.Resampling.LANCZOS)
    image.paste(
        MUTED, (round(centre[0] - small.width / 2), round(centre[1] - small.height / 2)), small
    )


def draw_heatmap(
    image: Image.Image, pic: Picture, left: int, top: int, cell: int, label_size: int
) -> None:
    """``pic``'s matrix as a grid of ``cell``-pixel squares from (left, top): rows labelled on
    the left (right-aligned), columns above (turned to read upwards), colour scaled from the
    smallest finite value to the largest; a non-finite cell blank, with its infinity."""
    draw = ImageDraw.Draw(image)
    m = pic.matrix
    finite = m[np.isfinite(m)]
    low, high = float(finite.min()), float(finite.max())
    span = high - low or 1.0
    labels = font(label_size)
    gap = 2
    for i, j in np.ndindex(m.shape):
        x, y = left + j * cell, top + i * cell
        box = (x + gap // 2, y + gap // 2, x + cell - gap // 2 - 1, y + cell - gap // 2 - 1)
        value = float(m[i, j])
        if math.isfinite(value):
            draw.rectangle(box, fill=heat((value - low) / span))
        else:
            draw.rectangle(box, fill=PAPER, outline=RULE, width=2)
            if not math.isnan(value):
                draw_infinity(image, (x + cell / 2, y + cell / 2), label_size * 4 // 5, value)
    for i, label in enumerate(pic.labels):
        y = top + i * cell + cell / 2
        draw.text((left - 14, y), label, font=labels, fill=INK, anchor="rm")
    for j, label in enumerate(pic.labels):
        # A column label is drawn level on its own strip, turned, and pasted above its column.
        w = math.ceil(labels.getlength(label)) + 4
        strip = Image.new("L", (w, label_size * 2), 0)
        ImageDraw.Draw(strip).text((2, label_size), label, font=labels, fill=255, anchor="lm")
        turned = strip.rotate(90, expand=True)
        x = round(left + j * cell + cell / 2 - turned.width / 2)
        image.paste(INK, (x, top - 14 - turned.height), turned)


def draw_lines(draw, lines, y: int, size: int, leading: int, colours, stroke: int = 0) -> int:
    """Lines of text at the left margin from baseline ``y``, ``leading`` apart, each in its
    colour (the last colour for the lines past the list), bolder by ``stroke``; returns the
    baseline after the last line."""
    for k, line in enumerate(lines):
        colour = colours[min(k, len(colours) - 1)]
        draw.text(
            (MARGIN, y),
            line,
            font=font(size),
            fill=colour,
            anchor="ls",
            stroke_width=stroke,
            stroke_fill=colour,
        )
        y += leading
    return y


def post_card(title: str, site_name: str, pic: Picture) -> Image.Image:
    """A post's card: the site's name and the post's title on the left, its heatmap on the
    right, the heatmap's caption under the title."""
    checked_text(title, f"the title {title!r}")
    image = Image.new("RGB", (WIDTH, HEIGHT), PAPER)
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, WIDTH, 11), fill=ACCENT)
    n = len(pic.labels)
    cell = min(70, 420 // n)
    grid = cell * n
    left = WIDTH - MARGIN - grid
    top = HEIGHT - MARGIN - grid + 8
    label_size = 26
    widest = max(text_width(x, label_size) for x in pic.labels)
    text_right = left - 14 - widest - 44
    width = text_right - MARGIN
    draw.text(
        (MARGIN, 58),
        site_name,
        font=font(30),
        fill=ACCENT,
        anchor="ls",
        stroke_width=1,
        stroke_fill=ACCENT,
    )
    size, lines = fit(title, width, range(64, 51, -2), 3, stroke=1)
    if len(lines) > 3:
        size, lines = fit(title, width, range(64, 39, -2), 4, stroke=1)
    draw_lines(draw, lines, 124 + size, size, round(size * 1.18), [INK], stroke=1)
    cap_size, cap_lines = fit(pic.caption, width, range(28, 21, -1), 3)
    cap_y = HEIGHT - MARGIN - (len(cap_lines) - 1) * round(cap_size * 1.3)
    draw.line(
        (MARGIN, cap_y - cap_size - 26, MARGIN + 72, cap_y - cap_size - 26), fill=ACCENT, width=4
    )
    draw_lines(draw, cap_lines, cap_y, cap_size, round(cap_size * 1.3), [MUTED])
    draw_heatmap(image, pic, left, top, cell, label_size)
    return image


def site_card(site_name: str, summary: str, pic: Picture) -> Image.Image:
    """The site's card: its name large, its summary under it, a small heatmap on the right."""
    checked_text(site_name + summary, "the site's name and summary")
    image = Image.new("RGB", (WIDTH, HEIGHT), PAPER)
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, WIDTH, 11), fill=ACCENT)
    n = len(pic.labels)
    cell = min(56, 336 // n)
    grid = cell * n
    left = WIDTH - MARGIN - grid
    top = (HEIGHT - grid) // 2 + 50
    label_size = 24
    widest = max(text_width(x, label_size) for x in pic.labels)
    width = left - 14 - widest - 48 - MARGIN
    size, lines = fit(site_name, width, range(84, 47, -2), 3, stroke=2)
    colours = [INK] * (len(lines) - 1) + [ACCENT]  # the name's last line in the accent
    y = draw_lines(draw, lines, 150 + size, size, round(size * 1.12), colours, stroke=2) + 30
    draw.line((MARGIN, y - 6, MARGIN + 72, y - 6), fill=ACCENT, width=4)
    sub_size, sub_lines = fit(summary, width, range(32, 23, -1), 4)
    draw_lines(draw, sub_lines, y + 24 + sub_size, sub_size, round(sub_size * 1.35), [MUTED])
    draw_heatmap(image, pic, left, top, cell, label_size)
    return image


def png(image: Image.Image) -> bytes:
    """The image as a small PNG: a 256-colour palette (the cards are flat colours and
    anti-aliased text), no metadata, the same bytes for the same pixels."""
    flat = image.quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    buffer = io.BytesIO()
    flat.save(buffer, "PNG", optimize=True)
    return buffer.getvalue()


def cards(all_pages: Sequence[ModuleType], posts: Sequence[ModuleType], site_name: str) -> dict:
    """Every card's PNG by its file name under FOLDER, and each page's (file name, alt) by
    slug: a post its own, the index page the site's (key SITE), the other pages none (they
    show the site's). A post or an index page that declares no preview fails here."""
    root = [p for p in all_pages if p.SLUG == SITE]
    if len(root) != 1:
        raise ValueError("the site's card is the index page's, and there is no one index page")
    images, named = {}, {}
    home = root[0]
    pic = picture(home)
    images["site.png"] = png(site_card(site_name, home.SUMMARY, pic))
    named[SITE] = ("site.png", pic.alt)
    for post in posts:
        pic = picture(post)
        name = f"{post.SLUG}.png"
        images[name] = png(post_card(post.TITLE, site_name, pic))
        named[post.SLUG] = (name, pic.alt)
    return {"images": images, "pages": named}


def write(
    out: Path, all_pages: Sequence[ModuleType], posts: Sequence[ModuleType], site_name: str
) -> dict[str, Card]:
    """Draw every card into ``out/FOLDER/``, each moved into a folder named by its hash;
    return each page's Card by slug (see ``cards``)."""
    made = cards(all_pages, posts, site_name)
    (out / FOLDER).mkdir(parents=True, exist_ok=True)
    for name, data in made["images"].items():
        (out / FOLDER / name).write_bytes(data)
    moved = hashed.move_each(out, [f"{FOLDER}/{name}" for name in made["images"]])
    return {
        slug: Card(moved[f"{FOLDER}/{name}"], alt) for slug, (name, alt) in made["pages"].items()
    }
