"""The three engines a reader may bring, driven alike: Debian's Firefox ESR over WebDriver BiDi
(puppeteer-core, through ``harness/firefox/bridge.mjs``), WebKitGTK, Safari's engine, through
Debian's WebKitWebDriver and Selenium under Xvfb, and Chromium through Playwright.

Each gives the engine tests and the benchmark one small surface, ``Tab``: open a page, run a
function in it (awaited), and say what it requested and what errors it raised. Chromium's own
tests keep their richer harness (``harness/chromium.py``, ``harness/visit.py``)."""

import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from harness import chromium
from sitebuild.fetch import run
from sitebuild.files import cache_key, sha256_file

FIREFOX = "/usr/bin/firefox-esr"
WEBKIT_DRIVER = "/usr/bin/WebKitWebDriver"
# WebKitGTK's own small browser, which its WebDriver drives (Debian's multiarch folder).
MINIBROWSERS = "/usr/lib/*/webkit2gtk-4.1/MiniBrowser"
BRIDGE = Path(__file__).resolve().with_name("firefox")
# What the Firefox driver is installed from: the pins (with their integrity hashes), the npm
# settings (the lock names no registry) and the bridge itself.
RECIPE = ("package.json", "package-lock.json", ".npmrc", "bridge.mjs")
ENGINES = ("firefox", "webkit")  # the engine tests' (Chromium has the rest of the suite)

# Errors a page raises in WebKit, where the driver has no console: recorded from the moment
# the page has loaded (what broke before then shows as a page that does not go live, and the
# scripts are parsed on their own by the tests).
_RECORD_ERRORS = """() => {
  if (window.engineErrors) return;
  window.engineErrors = [];
  addEventListener("error", (e) => engineErrors.push(String(e.message || e)));
  addEventListener("unhandledrejection", (e) => engineErrors.push(String(e.reason)));
  addEventListener("securitypolicyviolation", (e) => engineErrors.push(`CSP: ${e.blockedURI}`));
}"""
# Every URL the page itself fetched (its documents, scripts, styles, fonts, the runtime).
_REQUESTED = (
    """() => [location.href, ...performance.getEntriesByType("resource").map((e) => e.name)]"""
)


def ensure_driver(cache: Path) -> Path:
    """The Firefox bridge's folder with its npm packages installed (``npm ci`` from the lock,
    which refuses a tarball whose integrity differs), in ``cache``, once per recipe."""
    folder = cache / "firefox-driver" / cache_key({n: sha256_file(BRIDGE / n) for n in RECIPE})[:16]
    if (folder / "node_modules" / "puppeteer-core").is_dir():
        return folder
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is needed once to install the Firefox driver (puppeteer-core)")
    work = folder.with_name(folder.name + ".work")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    for name in RECIPE:
        shutil.copy(BRIDGE / name, work / name)
    env = {**os.environ, "PUPPETEER_SKIP_DOWNLOAD": "1"}
    run(
        [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"],
        lambda _: None,
        cwd=work,
        env=env,
    )
    shutil.rmtree(folder, ignore_errors=True)
    work.rename(folder)
    return folder


class Tab:
    """A page open in one of the engines."""

    def __init__(self, engine: "Engine", handle) -> None:
        self.engine, self.handle = engine, handle

    def evaluate(self, source: str, *args):
        """``source``, a JavaScript function, called with ``args`` in the page; its awaited
        value (JSON)."""
        return self.engine.evaluate(self.handle, source, list(args))

    def wait(self, predicate: str, *args, timeout_s: float = 120):
        """Wait until ``predicate(...args)`` (a function, in the page) is truthy; its value.
        Asked again from here, not by a loop in the page: the pages' Content-Security-Policy
        forbids the ``eval`` such a loop would need in WebKit. Fails with the predicate's last
        value after ``timeout_s``."""
        deadline = time.monotonic() + timeout_s
        while not (value := self.evaluate(predicate, *args)):
            if time.monotonic() > deadline:
                raise AssertionError(f"not within {timeout_s} s: {predicate} (last: {value!r})")
            time.sleep(0.05)
        return value

    def requests(self) -> list[str]:
        return self.engine.requests(self.handle)

    def errors(self) -> list[str]:
        return self.engine.errors(self.handle)

    def close(self) -> None:
        self.engine.close_tab(self.handle)


class Engine:
    name: str

    def open(self, url: str) -> Tab:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


class Firefox(Engine):
    """Firefox ESR, headless, through the bridge (one request, one answer, a line each)."""

    name = "firefox"

    def __init__(self, cache: Path) -> None:
        folder = ensure_driver(cache)
        self.profile = tempfile.mkdtemp(prefix="firefox-profile-")
        self.process = subprocess.Popen(
            ["node", str(folder / "bridge.mjs"), FIREFOX, self.profile],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def call(self, op: str, **args):
        self.process.stdin.write(json.dumps({"op": op, **args}) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the Firefox bridge ended (exit code {self.process.poll()})")
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(f"Firefox: {op}: {answer['error']}")
        return answer

    def open(self, url: str) -> Tab:
        return Tab(self, self.call("open", url=url)["page"])

    def evaluate(self, page, source, args):
        return self.call("eval", page=page, source=source, args=args).get("value")

    def requests(self, page) -> list[str]:
        return self.call("seen", page=page)["requests"]

    def errors(self, page) -> list[str]:
        return self.call("seen", page=page)["errors"]

    def close_tab(self, page) -> None:
        self.call("close", page=page)

    def close(self) -> None:
        self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class WebKit(Engine):
    """WebKitGTK's MiniBrowser in automation mode, on a virtual screen of its own (xvfb-run),
    through Selenium. One window: a page opened replaces the one before."""

    name = "webkit"

    def __init__(self) -> None:
        from selenium import webdriver
        from selenium.webdriver.remote.client_config import ClientConfig
        from selenium.webdriver.remote.remote_connection import RemoteConnection
        from selenium.webdriver.webkitgtk.options import Options

        port = _free_port()
        self.process = subprocess.Popen(
            ["xvfb-run", "--auto-servernum", WEBKIT_DRIVER, f"--port={port}"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # xvfb-run's Xvfb and the browser end with the group
        )
        options = Options()
        found = glob.glob(MINIBROWSERS)
        if not found:
            raise RuntimeError(f"no {MINIBROWSERS}: install Debian's webkit2gtk-driver")
        options.binary_location = found[0]
        options.add_argument("--automation")
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:  # the driver listens once Xvfb is up
            try:
                connection = RemoteConnection(client_config=ClientConfig(remote_server_addr=url))
                self.driver = webdriver.Remote(command_executor=connection, options=options)
                break
            except Exception:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    self.close()
                    raise
                time.sleep(0.2)
        self.driver.set_script_timeout(300)
        self.driver.set_page_load_timeout(120)
        self.driver.set_window_size(1280, 900)

    def open(self, url: str) -> Tab:
        self.driver.get(url)
        tab = Tab(self, None)
        tab.evaluate(_RECORD_ERRORS)
        return tab

    def evaluate(self, page, source, args):
        script = (
            "const done = arguments[arguments.length - 1];"
            f"Promise.resolve(({source})(...arguments[0])).then("
            "(value) => done({ value }), (error) => done({ error: String(error) }));"
        )
        answer = self.driver.execute_async_script(script, args)
        if "error" in answer:
            raise RuntimeError(f"WebKit: {answer['error']}")
        return answer.get("value")

    def requests(self, page) -> list[str]:
        return self.evaluate(page, _REQUESTED, [])

    def errors(self, page) -> list[str]:
        return self.evaluate(page, "() => window.engineErrors || []", [])

    def close_tab(self, page) -> None:
        self.driver.get("about:blank")  # its one window stays, for the next page

    def close(self) -> None:
        driver = getattr(self, "driver", None)
        if driver is not None:
            try:
                driver.quit()
            except Exception:
                pass
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        self.process.wait(timeout=30)


class Chromium(Engine):
    """Debian's Chromium, headless and off the network (``harness/chromium.py``), one context:
    of a Chromium of its own, or of ``browser``, a Playwright browser already running (the
    benchmark's: Playwright's synchronous API runs one at a time)."""

    name = "chromium"

    def __init__(self, browser=None) -> None:
        self.playwright = None
        if browser is None:
            from playwright.sync_api import sync_playwright

            self.playwright = sync_playwright().start()
            browser = self.playwright.chromium.launch(
                executable_path=chromium.CHROMIUM, args=chromium.ARGS
            )
        self.browser = browser
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.seen: dict[int, dict[str, list[str]]] = {}

    def open(self, url: str) -> Tab:
        page = self.context.new_page()
        seen = self.seen[id(page)] = {"requests": [], "errors": []}
        page.on("request", lambda r: seen["requests"].append(r.url))
        page.on("pageerror", lambda e: seen["errors"].append(str(e)))
        page.goto(url)
        return Tab(self, page)

    def evaluate(self, page, source, args):
        return page.evaluate(f"(args) => ({source})(...args)", args)

    def requests(self, page) -> list[str]:
        return self.seen[id(page)]["requests"]

    def errors(self, page) -> list[str]:
        return self.seen[id(page)]["errors"]

    def close_tab(self, page) -> None:
        page.close()

    def close(self) -> None:
        self.context.close()
        if self.playwright is not None:
            self.browser.close()
            self.playwright.stop()


def launch(name: str, cache: Path) -> Engine:
    """Engine ``name`` (chromium, or one of ENGINES), started."""
    if name == "chromium":
        return Chromium()
    if name == "firefox":
        return Firefox(cache)
    if name == "webkit":
        return WebKit()
    raise ValueError(f"no engine {name!r}; the engines are chromium, {', '.join(ENGINES)}")
