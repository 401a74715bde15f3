"""What a page says through Panel's shadow roots and in Chromium's accessibility tree: the
look-ups the browser tests share (the probe, probe.js, offers the same in the page)."""

# The focused element, looking through shadow roots (`el` in the code that follows).
ACTIVE = "let el = harnessProbe.active();"


def focus_in_tab_order(control) -> None:
    """Focus `control`, or, when it is disabled (the figures are not live,
    static/page/phases.js), its place in the Tab order: its shadow host, so that Tab goes on
    from where it is."""
    control.evaluate(
        """el => {
          if (!el.disabled) return el.focus();
          const host = el.getRootNode().host;
          host.tabIndex = -1;
          host.focus();
        }"""
    )


def focus_before(locator) -> None:
    """Focus ``locator``'s element as a Tab stop of its own, so that Tab goes on from there (a
    figure's status line, just before its controls; the figure itself)."""
    locator.evaluate("el => { el.tabIndex = -1; el.focus(); }")


def ax_nodes(page) -> list[dict]:
    """Chromium's whole accessibility tree of ``page``, read through the DevTools protocol."""
    cdp = page.context.new_cdp_session(page)
    try:
        return cdp.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        cdp.detach()


def ax_properties(node: dict) -> dict:
    """An accessibility node's properties (focused, disabled, checked, busy, ...) by name."""
    return {p["name"]: p["value"].get("value") for p in node.get("properties", [])}


def ax_role(node: dict) -> str:
    return node.get("role", {}).get("value", "")


def ax_name(node: dict) -> str:
    return node.get("name", {}).get("value", "")


# How often a wait checks its condition. Playwright's default checks at every animation frame,
# which keeps the renderer producing frames the whole time a test waits; a timer does not.
POLL_MS = 100


def wait_until(page, predicate: str, arg=None, timeout: float | None = None):
    """Wait until the JavaScript function ``predicate`` (called with ``arg``) returns a truthy
    value on ``page``, checked every POLL_MS; that value's handle. ``timeout`` in ms, as
    Playwright's (its default when None). A function, not an expression string: Playwright
    runs a string through eval, which the page's Content-Security-Policy refuses."""
    return page.wait_for_function(predicate, arg=arg, timeout=timeout, polling=POLL_MS)


# The longest a page may go without drawing a frame: past it a wait for one fails, saying so,
# rather than hanging the run (a page that is not rendered, hidden or frozen, draws none).
FRAME_TIMEOUT_MS = 30_000
# Headless Chromium has been seen to stop drawing a visible page's frames for good, its main
# thread idle and its compositor ticking. A wait that has had no frame for this long wakes the
# page (brought to the front, its screen cast, which asks the compositor for frames and changes
# nothing the page sees), then waits again, up to FRAME_TIMEOUT_MS.
WAKE_AFTER_MS = 10_000
_TWO_FRAMES = """(ms) => new Promise((resolve) => {
  const late = setTimeout(() => resolve(document.visibilityState), ms);
  requestAnimationFrame(() => requestAnimationFrame(() => {
    clearTimeout(late);
    resolve(true);
  }));
})"""


def next_frame(page, wake_after_ms: int = WAKE_AFTER_MS, timeout_ms: int = FRAME_TIMEOUT_MS):
    """Wait for the page's next two animation frames: what a change set is then drawn. If none
    comes in ``wake_after_ms``, wake the page and wait again, ``timeout_ms`` in all."""
    if page.evaluate(_TWO_FRAMES, wake_after_ms) is True:
        return
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("Page.bringToFront")
        cdp.send("Page.startScreencast", {"format": "jpeg", "quality": 1, "everyNthFrame": 1})
        drawn = page.evaluate(_TWO_FRAMES, max(timeout_ms - wake_after_ms, 0))
        cdp.send("Page.stopScreencast")
    finally:
        cdp.detach()
    assert drawn is True, (
        f"no frame drawn in {timeout_ms} ms, the page woken after {wake_after_ms} "
        f"(the page is {drawn})"
    )


# Whether an element's box is where it was two frames later (the probe's frames, which go on
# without a frame that does not come).
_STILL = """async (el) => {
  const before = JSON.stringify(el.getBoundingClientRect());
  await harnessProbe.frame();
  await harnessProbe.frame();
  return JSON.stringify(el.getBoundingClientRect()) === before;
}"""


def in_view(locator) -> None:
    """Scroll ``locator`` into view and wait until it stays put (a figure drawn or redrawn
    above it moves it): a pointer placed before that lands elsewhere."""
    locator.scroll_into_view_if_needed()
    wait_until(locator.page, _STILL, arg=locator.element_handle())


def tap(page, locator) -> None:
    """A finger's tap at the middle of ``locator``, on a page of any context: touch is turned
    on for the page through the DevTools protocol, as a context made with ``has_touch`` has it
    (a shared page can then be tapped without a context, and a Python start, of its own)."""
    locator.scroll_into_view_if_needed()
    box = locator.bounding_box()
    point = {"x": box["x"] + box["width"] / 2, "y": box["y"] + box["height"] / 2}
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 1})
        cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [point]})
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    finally:
        cdp.detach()


def untouch(page) -> None:
    """Touch off again for ``page`` (see ``tap``)."""
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("Emulation.setTouchEmulationEnabled", {"enabled": False})
    finally:
        cdp.detach()


# The DevTools sessions that hold a page's screen emulation: an override lasts only as long as
# the session that set it, so each is kept until ``reset_screen``.
_SCREENS: dict = {}


def emulate_screen(page, viewport: dict, scale: float) -> None:
    """Lay ``page`` out at ``viewport`` (CSS px) with ``scale`` device pixels to each, in place
    (a context's device scale factor is fixed when it is made; the DevTools protocol's is not),
    until ``reset_screen``."""
    cdp = _SCREENS.get(page) or _SCREENS.setdefault(page, page.context.new_cdp_session(page))
    metrics = {**viewport, "deviceScaleFactor": scale, "mobile": False}
    cdp.send("Emulation.setDeviceMetricsOverride", metrics)


def reset_screen(page, viewport: dict) -> None:
    """Back from ``emulate_screen`` to the context's own screen, at ``viewport``."""
    cdp = _SCREENS.pop(page, None)
    if cdp is not None:
        cdp.send("Emulation.clearDeviceMetricsOverride")
        cdp.detach()
    page.set_viewport_size(viewport)
