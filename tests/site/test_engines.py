"""The engine tier: the site in Firefox (Debian's ESR, over WebDriver BiDi) and WebKitGTK
(Safari's engine), beside the Chromium suite, which stays the main one.

In each engine, each page with figures is opened once (``engine_pages``) and checked as a
reader would find it: it goes live from the memory snapshot, and a broken snapshot gives way
to the ordinary start by itself; moving one control of each figure changes the figure's models
to what CPython's worker code computes for that change; a code cell's output is CPython's,
also where it imports a numpy library the heap does not link (loaded then); no
error, no request outside the site; and the engine keeps every declaration of the stylesheet
and computes the checked rules as written (a declaration an engine rejects is dropped from its
rule, or computes to the initial value, which is how a reader would have found it).
"""

import html
import json
import math
import os
import re
import shutil
import time
from urllib.parse import urlsplit

import pytest

from harness import engines
from harness.site import BASE, POST1, WITH_FIGURES, has_figures
from harness.visit import DRAWN
from sitebuild import snapshot
from sitebuild.cache import PROJECT_ROOT
from sitebuild.serve import serve_in_thread
from tests.figures.probe import same_but_rounding
from tests.site.test_cells_browser import in_cpython
from tests.site.test_snapshot_browser import CONFIG, FFT
from worker import live

# Every engine restores the memory snapshot (WebKit too, since static/restore.js keeps the
# identity of the functions in the wasm table, which WebKit does not).
START = "snapshot"
ENDED = ("live", "failed", "outdated")

pytestmark = pytest.mark.xdist_group("engines")


@pytest.fixture(scope="session", params=engines.ENGINES)
def engine(request):
    launched = engines.launch(request.param, PROJECT_ROOT / ".cache")
    yield launched
    launched.close()


@pytest.fixture(scope="session")
def engine_pages(engine, server_url):
    """``open(path)``: the engine's page at ``path``, once per engine, live where it has
    figures (opened again where the tab has left it: WebKit has one window, and a page opened
    there replaces the one before)."""
    opened: dict[str, engines.Tab] = {}

    def open_page(path: str) -> engines.Tab:
        url = server_url + path
        tab = opened.get(path)
        if tab is None or tab.evaluate("() => location.href") != url:
            tab = opened[path] = engine.open(url)
            if has_figures(path):
                tab.wait(
                    "(ended) => ended.includes(document.documentElement.dataset.figures)", ENDED
                )
        return tab

    return open_page


def test_every_page_goes_live_from_the_snapshot(engine, engine_pages):
    for path in WITH_FIGURES:
        tab = engine_pages(path)
        shown = tab.evaluate(
            "() => [document.documentElement.dataset.figures,"
            " document.documentElement.dataset.start]"
        )
        assert shown == ["live", START], (engine.name, path, shown)


@pytest.fixture(scope="session")
def broken_snapshot_url(site, tmp_path_factory):
    """The site served again with every snapshot's heap cut short (a copy of hard links, but
    for those). A heap that is gone would say the site was redeployed (a 404), not broken."""
    copy = tmp_path_factory.mktemp("broken-snapshot") / "site"
    shutil.copytree(site, copy, copy_function=os.link)
    parts = list(copy.glob(f"runtime/snapshots/*/{snapshot.HEAP.format('*')}"))
    assert parts, "the build has no snapshot heap to break"
    for part in parts:
        data = part.read_bytes()
        part.unlink()
        part.write_bytes(data[: len(data) // 2])
    server = serve_in_thread(copy, BASE)
    yield f"http://127.0.0.1:{server.server_address[1]}{BASE}"
    server.shutdown()


def test_the_tab_a_test_acts_on_is_the_one_in_front(engine, engine_pages):
    """A reader acts on the tab they see. A tab behind another is hidden, and its timers are
    throttled (in Firefox to one a second, then less): a figure drawn there took minutes."""
    first, second = WITH_FIGURES[:2]
    for path in (first, second, first):
        assert engine_pages(path).evaluate("() => document.visibilityState") == "visible", path


def test_a_broken_snapshot_falls_back_by_itself(engine, broken_snapshot_url):
    """The fast start that cannot be used gives way to the ordinary one, in every engine."""
    tab = engine.open(broken_snapshot_url + POST1)
    tab.wait("(ended) => ended.includes(document.documentElement.dataset.figures)", ENDED)
    shown = tab.evaluate(
        "() => [document.documentElement.dataset.figures, document.documentElement.dataset.start]"
    )
    assert shown == ["live", "ordinary"]
    assert tab.errors() == []
    tab.close()


# -- one control of each figure, moved

SCROLL_TO = "(id) => document.getElementById(`figure-${id}`).scrollIntoView()"

# The first control of a figure that can be moved to another value (its model changed as the
# reader's input changes it): a choice to another option, a switch flipped, a slider to its
# other end, a number box one up (or down, at its top). Returns {key, raw} (the model's new
# value), or null.
MOVE = """(figureId) => {
  const wiring = JSON.parse(document.getElementById("prerender").textContent)[figureId].wiring;
  const root = [...Bokeh.index].map((view) => view.model).find((m) => m.name === figureId);
  for (const [key, c] of Object.entries(wiring.controls)) {
    const model = root.document.get_model_by_id(c.id);
    const now = model[c.prop];
    let raw;
    if (model.disabled || c.prop === "clicks") continue;
    if (c.raws) raw = c.raws.find((r) => JSON.stringify(r) !== JSON.stringify(now));
    else if (typeof now === "boolean") raw = !now;
    else if (typeof model.end === "number") raw = now === model.end ? model.start : model.end;
    else if (typeof now === "number") raw = now < (model.high ?? Infinity) ? now + 1 : now - 1;
    if (raw === undefined) continue;
    model[c.prop] = raw;
    return { key, raw };
  }
  return null;
}"""

# What of `expected` (model id -> {property: value}, a source's changed columns under "data",
# NaN as {"nan": true}) figure `figureId`'s models do not hold: [model, property, what it holds
# (an HTML pane's text in full)], [] once they hold it all.
DIFFERING = """(figureId, expected) => {
  const root = [...Bokeh.index].map((view) => view.model).find((m) => m.name === figureId);
  const list = (v) => Array.isArray(v) || ArrayBuffer.isView(v);
  const same = (now, want) => {
    if (want && want.nan) return Number.isNaN(now);
    if (want && want.ndarray) return same(now, want.ndarray);
    if (typeof want === "number" && typeof now === "number") {
      return Math.abs(now - want) <= 1e-9 * Math.max(1, Math.abs(want));
    }
    if (Array.isArray(want)) {
      if (!list(now) || now.length !== want.length) return false;
      return want.every((w, i) => same(now[i], w));
    }
    if (want && typeof want === "object") {
      return Object.entries(want).every(([k, w]) => same(now?.[k], w));
    }
    return now === want;
  };
  const differing = [];
  for (const [id, props] of Object.entries(expected)) {
    const model = root.document.get_model_by_id(id);
    for (const [prop, want] of Object.entries(props)) {
      if (prop === "data") {
        for (const [column, w] of Object.entries(want)) {
          if (!same(model.data[column], w)) differing.push([id, `data.${column}`, "(a column)"]);
        }
      } else if (prop !== "clicks" && !same(model[prop], want)) {
        differing.push([id, prop, String(model[prop])]);
      }
    }
  }
  return differing;
}"""


def json_safe(value):
    """``value`` with every NaN as {"nan": True}, which JSON can carry."""
    if isinstance(value, float) and math.isnan(value):
        return {"nan": True}
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_safe(v) for v in value]
    return value


def in_cpython_worker(figure_id: str, wiring: dict, key: str, raw) -> dict:
    """What the page's worker code, run by CPython, sends back for that change."""
    live.FIGURES.clear()
    live.start([figure_id])
    live.connect(json.dumps({figure_id: wiring}))
    return json_safe(live.change(figure_id, key, raw))


def until_shown(tab, figure_id: str, expected: dict, timeout_s: float = 60) -> list:
    """Wait until the figure's models hold ``expected``, or differ from it only by the float64
    rounding a figure declares (``probe.same_but_rounding``); what still differs after
    ``timeout_s``, [] if nothing."""
    deadline = time.monotonic() + timeout_s
    while True:
        left = [
            (model, prop, now)
            for model, prop, now in tab.evaluate(DIFFERING, figure_id, expected)
            if not (
                prop == "text"
                and same_but_rounding(
                    figure_id, html.unescape(now), html.unescape(expected[model][prop])
                )
            )
        ]
        if not left or time.monotonic() > deadline:
            return [(model, prop, now[:300]) for model, prop, now in left]
        time.sleep(0.05)


@pytest.mark.parametrize("path", WITH_FIGURES)
def test_one_control_per_figure_recomputes_as_cpython_does(engine, engine_pages, path):
    tab = engine_pages(path)
    prerender = tab.evaluate('() => JSON.parse(document.getElementById("prerender").textContent)')
    moved = 0
    for figure_id, data in prerender.items():
        tab.evaluate(SCROLL_TO, figure_id)  # a figure is drawn as the reader nears it
        tab.wait(DRAWN, figure_id)
        move = tab.evaluate(MOVE, figure_id)
        if move is None:
            continue  # a figure of buttons alone (none today; the count below says)
        expected = in_cpython_worker(figure_id, data["wiring"], move["key"], move["raw"])
        assert expected, f"{figure_id}: moving {move['key']} changed nothing in CPython"
        left = until_shown(tab, figure_id, expected)
        assert left == [], f"{engine.name}, {figure_id}, {move}: {left}"
        moved += 1
    assert moved == len(prerender), f"{len(prerender) - moved} figures had no control to move"
    assert tab.evaluate("() => document.documentElement.dataset.figures") == "live"


# A cell run (its Run button pressed) and its output, once it has run.
RUN_CELL = """(number) => {
  const cell = document.querySelector(`[data-cell="${number}"]`);
  [...cell.querySelectorAll("button")].find((b) => b.textContent.trim() === "Run").click();
}"""
CELL_OUTPUT = """(number) => {
  const cell = document.querySelector(`[data-cell="${number}"]`);
  const done = cell.dataset.running === "false"
    && cell.querySelector(".cell-note").textContent !== "Running…";
  return done && cell.querySelector("[data-cell-output]").textContent;
}"""


def test_a_code_cell_prints_what_cpython_prints(engine, engine_pages):
    tab = engine_pages(POST1)
    code = tab.evaluate(
        """() => document.querySelector('[data-cell="1"] [data-cell-code]')
                   .textContent.replace(/\\n$/, "")"""
    )
    tab.evaluate(RUN_CELL, 1)
    shown = tab.wait(CELL_OUTPUT, 1)
    assert shown.strip() == in_cpython([code])[0].strip()


# A cell's code replaced as typing would. Its editor opens when the code gets focus (a focus
# event: the engine's window may not have focus itself, and would then send none)...
OPEN_EDITOR = """(number) => {
  const cell = document.querySelector(`[data-cell="${number}"]`);
  cell.querySelector("pre.code").dispatchEvent(new FocusEvent("focus"));
}"""
EDITOR_OPEN = """(number) => !!document.querySelector(`[data-cell="${number}"] .cm-content`)"""
# ... then everything in it is selected and the new text inserted, which CodeMirror reads from
# the DOM as the reader's input; the cell offers Reset once its code is not the original.
TYPE_CODE = """([number, code]) => {
  const content = document.querySelector(`[data-cell="${number}"] .cm-content`);
  content.focus();
  getSelection().selectAllChildren(content);
  document.execCommand("insertText", false, code);
}"""
CODE_CHANGED = """(number) =>
  !document.querySelector(`[data-cell="${number}"] [data-cell-reset]`).hidden"""


def type_into_cell(tab, number: int, code: str) -> None:
    tab.evaluate(OPEN_EDITOR, number)
    tab.wait(EDITOR_OPEN, number)
    tab.evaluate(TYPE_CODE, [number, code])
    tab.wait(CODE_CHANGED, number)


def test_a_cell_loads_a_library_the_heap_does_not_link(engine, engine_pages):
    """No figure imports numpy.fft, so the heap does not link its shared library: a cell that
    imports it has the worker load it then, from the files only an import opens."""
    tab = engine_pages(POST1)
    linked = [lib["name"] for lib in tab.evaluate(CONFIG)["snapshot"]["libs"]]
    assert linked and not [name for name in linked if "/fft/" in name], linked
    type_into_cell(tab, 2, FFT)
    tab.evaluate(RUN_CELL, 2)
    shown = tab.wait(CELL_OUTPUT, 2)
    assert shown.strip() == in_cpython([FFT])[0].strip(), shown


@pytest.mark.parametrize("path", WITH_FIGURES)
def test_no_error_and_no_request_outside_the_site(engine, engine_pages, server_url, path):
    tab = engine_pages(path)
    origin = urlsplit(server_url)[:2]
    fetched = [u for u in tab.requests() if urlsplit(u).scheme not in ("data", "blob")]
    assert [u for u in fetched if urlsplit(u)[:2] != origin] == []
    assert tab.errors() == []


# -- styles

STYLESHEET = PROJECT_ROOT / "static" / "site.css"

# Every declaration of every style rule the engine keeps, by the rule's selector (rules in
# @media and @supports blocks included): [selector, [property, ...]].
KEPT = """() => {
  const out = [];
  const walk = (rules) => {
    for (const rule of rules) {
      if (rule.cssRules && !rule.selectorText) walk(rule.cssRules);
      if (!rule.selectorText) continue;
      const names = [];
      for (let i = 0; i < rule.style.length; i++) names.push(rule.style[i]);
      out.push([rule.selectorText, names, rule.style.cssText]);
    }
  };
  for (const sheet of document.styleSheets) {
    if (sheet.href && sheet.href.includes("/site.")) walk(sheet.cssRules);
  }
  return out;
}"""


def declared(css: str) -> list[tuple[str, list[str]]]:
    """Each style rule of ``css`` by its selector, with the properties it declares."""
    import tinycss2

    out = []

    def walk(rules):
        for rule in rules:
            if rule.type == "qualified-rule":
                selector = " ".join(tinycss2.serialize(rule.prelude).split())
                names = [
                    d.lower_name
                    for d in tinycss2.parse_blocks_contents(rule.content)
                    if d.type == "declaration"
                ]
                out.append((selector, names))
            elif rule.type == "at-rule" and rule.content is not None:
                if rule.lower_at_keyword in ("media", "supports", "layer", "container"):
                    walk(tinycss2.parse_rule_list(rule.content, skip_whitespace=True))

    walk(tinycss2.parse_stylesheet(css, skip_whitespace=True, skip_comments=True))
    return out


def normal(selector: str) -> str:
    return re.sub(r"\s+", "", selector).replace('"', "'")


def test_the_engine_keeps_every_declaration_of_the_stylesheet(engine, engine_pages):
    tab = engine_pages(POST1)
    kept: dict[str, list[str]] = {}
    for selector, names, text in tab.evaluate(KEPT):
        kept.setdefault(normal(selector), []).extend(names)
        kept[normal(selector)].append(text)
    dropped = []
    for selector, names in declared(STYLESHEET.read_text()):
        engine_kept = kept.get(normal(selector))
        if engine_kept is None:
            dropped.append(f"{selector} (the whole rule)")
            continue
        text = " ".join(engine_kept)
        for name in names:
            # A shorthand the engine keeps is listed by its longhands, or by itself when it
            # holds a var() that is only resolved later.
            if name not in engine_kept and f"{name}:" not in text and f"{name}-" not in text:
                dropped.append(f"{selector} {{ {name} }}")
    assert dropped == [], f"{engine.name} drops: {dropped}"


# Rules whose look the engine must compute as intended: (selector, property, a value it holds).
COMPUTED = [
    ("a.term", "text-decoration-line", "underline"),
    ("a.term", "text-decoration-style", "dotted"),
]


@pytest.mark.parametrize(("selector", "prop", "want"), COMPUTED)
def test_the_checked_rules_compute_as_intended(engine, engine_pages, selector, prop, want):
    tab = engine_pages(POST1)
    value = tab.evaluate(
        """(selector, prop) => {
          const el = document.querySelector(selector);
          return el && getComputedStyle(el).getPropertyValue(prop);
        }""",
        selector,
        prop,
    )
    assert value is not None, f"no {selector} on the page"
    assert want in value, f"{engine.name}: {selector} {{ {prop} }} is {value!r}"
