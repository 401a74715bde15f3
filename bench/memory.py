"""What a page holds in memory on a phone's screen: PSS of the browser's own processes; and
what a reader scrolling through the page there meets: long tasks, layout shift.

Each measure opens the page in a fresh browser context at a phone's viewport and density
(412 x 915, device pixel ratio 2.625, touch), waits for the page's own signal (figures live,
or the pre-render complete when the browser asks to save data and no worker starts), and
sums the proportional set size (``Pss`` in ``/proc/PID/smaps_rollup``) of Chromium's
processes, as Chromium's ``SystemInfo.getProcessInfo`` lists them: the tab, the renderer
processes that hold pages (a page and its dedicated workers live in one), and the whole
browser. Two renderers a desktop Chromium keeps beside the page are not the tab's: the one
that draws Chromium's own interface (WebUI; a phone's browser draws its interface natively),
left out of the tab by its command line, and a spare one started ahead for the next
navigation, which the benchmark's browser is launched without (BROWSER_ARGS): together about
100 MiB that a blank page's tab would otherwise count. A worker's own memory is the live
page's tab minus the same page's with no worker (Data Saver).
"""

from dataclasses import dataclass
from pathlib import Path

from bench.browser import INPAGE_JS, wait_until_settled
from harness.visit import instrument

PHONE = {
    "viewport": {"width": 412, "height": 915},
    "device_scale_factor": 2.625,
    "is_mobile": True,
    "has_touch": True,
}
# What Chromium's Data Saver shows a page (Playwright has no switch for it): no worker starts.
SAVE_DATA = """Object.defineProperty(Navigator.prototype, "connection", {
  configurable: true,
  get: () => ({ saveData: true, effectiveType: "4g" }),
});"""
MIB = 1024 * 1024
TIMEOUT_MS = 180_000


@dataclass
class Memory:
    """PSS in bytes: the page's renderer processes (the tab) and every process of the browser."""

    tab: int
    browser: int


def pss(pid: int) -> int:
    """A process's proportional set size in bytes (0 if it has gone)."""
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return 0
    for line in text.splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1]) * 1024
    return 0


# The benchmark's Chromium starts no spare renderer, which would hold no page.
BROWSER_ARGS = ["--disable-features=SpareRendererForSitePerProcess"]
# The switch on the command line of the renderer that draws Chromium's own interface.
BROWSER_INTERFACE = b"--top-chrome-webui"


def holds_pages(pid: int) -> bool:
    """Whether renderer ``pid`` is one for pages, not for Chromium's own interface."""
    try:
        return not draws_interface(Path(f"/proc/{pid}/cmdline").read_bytes())
    except OSError:
        return False


def draws_interface(cmdline: bytes) -> bool:
    """Whether a renderer's command line is that of Chromium's own interface. Chromium rewrites
    its processes' titles, so the switches may be joined by spaces rather than NULs."""
    return BROWSER_INTERFACE in cmdline.replace(b"\0", b" ").split()


def measure(browser) -> Memory:
    """The PSS of the renderers that hold pages and of all the browser's processes, now."""
    cdp = browser.new_browser_cdp_session()
    try:
        processes = cdp.send("SystemInfo.getProcessInfo")["processInfo"]
    finally:
        cdp.detach()
    tab = sum(pss(p["id"]) for p in processes if p["type"] == "renderer" and holds_pages(p["id"]))
    return Memory(tab=tab, browser=sum(pss(p["id"]) for p in processes))


def phone_page(browser, save_data: bool = False):
    """A fresh context at a phone's screen, and its page."""
    context = browser.new_context(**PHONE)
    instrument(context)
    context.add_init_script(INPAGE_JS)
    if save_data:
        context.add_init_script(SAVE_DATA)
    return context, context.new_page()


# Waits (page.evaluate; the site's CSP forbids the eval wait_for_function uses) for one of the
# page's signals: its pre-render drawn; once live, the worker's warm-up over (our pages' worker
# says "rehearsed"; the baseline's has no such step). Resolves false after the timeout.
WAIT = """async ([signal, timeoutMs]) => {
  const holds = {
    prerendered: () => performance.getEntriesByName("prerender-complete").length > 0,
    rehearsed: () => !document.getElementById("page-config")
      || (self.harnessProbe.received["rehearsed"] || 0) > 0,
  }[signal];
  const start = performance.now();
  while (!holds()) {
    if (performance.now() - start > timeoutMs) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}"""
PRERENDERED, REHEARSED = "prerendered", "rehearsed"


def wait_for(page, signal: str) -> bool:
    return page.evaluate(WAIT, [signal, TIMEOUT_MS])


def _settled(page, save_data: bool) -> str:
    if save_data:
        return "pre-render" if wait_for(page, PRERENDERED) else "timeout"
    state = wait_until_settled(page)
    if state == "live" and not wait_for(page, REHEARSED):
        return "timeout"
    return state


def run_first_cell(page) -> bool:
    """Run the page's first code cell and wait for its output (False: the page has none)."""
    return page.evaluate(
        """async () => {
          const cell = document.querySelector("[data-cell]:not([data-cell-solo])");
          if (!cell) return false;
          cell.querySelector("[data-cell-run]").click();
          const start = performance.now();
          while (cell.dataset.running !== "false" && performance.now() - start < 180000) {
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          return cell.dataset.running === "false";
        }"""
    )


def page_memory(browser, url: str, save_data: bool = False, cell: bool = False) -> Memory | None:
    """The memory of ``url`` at a phone's screen once it has settled (with a code cell run if
    ``cell``; None if the page has no cell to run)."""
    context, page = phone_page(browser, save_data)
    try:
        page.goto(url)
        if _settled(page, save_data) not in ("live", "pre-render"):
            return None
        if cell and not run_first_cell(page):
            return None
        return measure(browser)
    finally:
        context.close()


# How long after live the layout shift is still counted: late drawing, fonts, a banner going.
AFTER_LIVE_MS = 5000


@dataclass
class Reading:
    """A live page at a phone's screen, scrolled through once from top to bottom."""

    shift: float  # the layout shift from the navigation to AFTER_LIVE_MS after live
    blocking: float  # while scrolling: long tasks' time over 50 ms, summed (ms)
    longest: float  # while scrolling: the longest task (ms)
    every_figure_drawn: bool  # each one, on the way, by the time the scroll has ended
    held: int  # the figures drawn at the end (the page may have released those far behind)
    memory: Memory  # once every figure the scroll passed has been drawn
    frames_missed: int = 0  # waits for a frame that never came (the renderer stopped drawing)


def phone_reading(browser, url: str) -> Reading | None:
    """Open ``url`` at a phone's screen, wait until live and AFTER_LIVE_MS more, then scroll
    it through (bench/inpage.js's scrollThrough). None if the page did not go live."""
    context, page = phone_page(browser)
    try:
        page.goto(url)
        if _settled(page, save_data=False) != "live":
            return None
        page.wait_for_timeout(AFTER_LIVE_MS)
        shift = page.evaluate("() => window.__bench.layoutShift()")
        scrolled = page.evaluate("() => window.__bench.scrollThrough()")
        return Reading(
            shift=shift,
            blocking=scrolled["blocking"],
            longest=scrolled["longest"],
            every_figure_drawn=scrolled["drawn"],
            held=scrolled["heldAtEnd"],
            memory=measure(browser),
            frames_missed=scrolled["framesMissed"],
        )
    finally:
        context.close()
