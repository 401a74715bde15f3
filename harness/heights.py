"""``python -m harness.heights SITE``: measure the room each figure's drawing takes at every
width of the ladder below, in the tests' Chromium, over the site built in SITE (as ``python -m
harness.prepare SITE`` builds it), and write the table the build sizes the placeholders from
(sitebuild/placeholders.py). Run it after changing a figure's layout (the heights test says
when)."""

import json
import sys
from pathlib import Path

from harness import chromium
from harness.site import BASE, WITH_FIGURES
from harness.visit import Visit
from sitebuild import placeholders
from sitebuild.serve import serve_in_thread

# Phones (320 to 430 px), small tablets, and the width past which the page's column stops
# growing (site.css: main is at most 60rem, 1080 px).
WIDTHS = [320, 360, 375, 390, 412, 430, 480, 600, 768, 992, 1024, 1080]
SCREEN_HEIGHT = 900
# The room each figure's drawing takes, by figure id: from its slot's top to its view buttons'
# top, less the buttons' margin (what an empty slot leaves between the two): the slot and the
# "Data" disclosure drawn after it (static/plot-tables.js). A slot not drawn yet takes it all
# (sitebuild/placeholders.py), so measured on one the room is its placeholder's height.
ROOMS = """(figures) => Object.fromEntries(figures.map((f) => {
  const slot = f.querySelector(".fig-slot"), view = f.querySelector(".fig-view");
  const gap = parseFloat(getComputedStyle(view).marginTop);
  const room = view.getBoundingClientRect().top - slot.getBoundingClientRect().top - gap;
  return [f.dataset.figure, Math.round(room)];
}))"""


def drawn_heights(browser, url: str, width: int) -> dict[str, int]:
    """The room each figure's drawing takes on the page at ``url``, at a screen ``width``
    wide."""
    v = Visit(browser, url, "**/worker.js", viewport={"width": width, "height": SCREEN_HEIGHT})
    try:
        v.page.wait_for_load_state("load")
        v.show_every_figure()
        return v.page.locator("figure[data-figure]").evaluate_all(ROOMS)
    finally:
        v.close()


def measure(site: Path, widths: list[int] = WIDTHS) -> dict:
    server = serve_in_thread(site, BASE)
    root = f"http://127.0.0.1:{server.server_address[1]}{BASE}"
    heights: dict[str, list[int]] = {}
    try:
        with chromium.launch() as browser:
            for width in widths:
                for path in WITH_FIGURES:
                    for figure_id, height in drawn_heights(browser, root + path, width).items():
                        heights.setdefault(figure_id, []).append(height)
    finally:
        server.shutdown()
    return {"widths": widths, "heights": dict(sorted(heights.items()))}


def as_text(table: dict) -> str:
    """The table as JSON, one figure a line."""
    rows = [f"  {json.dumps(fid)}: {json.dumps(h)}" for fid, h in table["heights"].items()]
    widths = json.dumps(table["widths"])
    return '{\n "widths": ' + widths + ',\n "heights": {\n' + ",\n".join(rows) + "\n }\n}\n"


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python -m harness.heights SITE (a site harness.prepare built)")
    table = measure(Path(sys.argv[1]))
    placeholders.HEIGHTS.write_text(as_text(table))
    print(f"wrote {placeholders.HEIGHTS}: {len(table['heights'])} figures")
