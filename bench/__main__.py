"""Benchmark the live figures in headless Chromium against a `panel convert` baseline.

    .venv/bin/python -m bench                       # build the site, measure it and the baseline
    .venv/bin/python -m bench --site DIR            # measure an existing build (base below)
    .venv/bin/python -m bench --runs 5 --pages section-3-3 --no-baseline --throttle --slow

For every page with figures: N cold loads (fresh context each), with the page's performance
marks (pre-render visible, the loading steps, figures live) and the bytes of every response
(the worker's too), raw and gzipped; the next page with figures loaded warm in the same
context; then, in one more load with every outside request aborted, the latency from a control
change to the figure's readout changing, for every figure. The baseline is the three-steps
figure converted by `panel convert --to pyodide-worker`, served offline and measured the same
way. The series row reads every page with figures in reading order in one browser session
(one cache), with the bytes each page adds. Both are served by sitebuild/serve.py, which
behaves like the static host (text, scripts and WebAssembly gzipped on the wire, a ten-minute
cache lifetime); the gzipping is done before the first timed load. Timings on a shared machine
are noisy: read medians, not single runs. Last, every page and the baseline cold in each engine
(Chromium, Firefox, WebKitGTK: bench/engines.py).
"""

import argparse
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import Error as PlaywrightError

from attention.scaling import SWEEP_D_KS
from bench import engines as engine_bench
from bench import report
from bench.baseline import BASE as BASELINE_BASE
from bench.baseline import FIGURE as BASELINE_FIGURE
from bench.baseline import prepare as prepare_baseline
from bench.browser import (
    SLOW,
    THROTTLE,
    Load,
    cell_latency,
    control_latency,
    measure_load,
    new_page,
    scenario_latency,
)
from bench.memory import BROWSER_ARGS, page_memory, phone_reading
from harness.chromium import launch as chromium  # the browser the tests use, as they launch it
from harness.site import BASE  # the tests' base path
from sitebuild.cache import PROJECT_ROOT, default_cache_dir
from sitebuild.serve import CACHE_CONTROL, gzip_ahead, serve_in_thread

LATENCY_CHANGES = 20


def log(*parts: object) -> None:
    print(f"bench {time.strftime('%H:%M:%S')}:", *parts, file=sys.stderr, flush=True)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, help="an existing build to measure (built for BASE)")
    parser.add_argument("--base", default=BASE, help=f"the build's base path (default {BASE})")
    parser.add_argument("--runs", type=int, default=3, help="cold loads per page (default 3)")
    parser.add_argument("--pages", help="comma-separated slugs (default: every page with figures)")
    parser.add_argument("--changes", type=int, default=LATENCY_CHANGES, help="changes per figure")
    parser.add_argument(
        "--no-baseline", action="store_true", help="skip the panel convert baseline"
    )
    parser.add_argument(
        "--throttle", action="store_true", help="also run loads at 50 Mbit/s, 40 ms"
    )
    parser.add_argument("--slow", action="store_true", help="also run loads at 10 Mbit/s, 100 ms")
    parser.add_argument(
        "--no-engines", action="store_true", help="skip the cold loads in Firefox and WebKit"
    )
    args = parser.parse_args(argv)
    if args.runs < 1 or args.changes < 1:
        parser.error("--runs and --changes must be at least 1")
    return args


def figure_pages(site: Path) -> dict[str, list[str]]:
    """Slug ('' for the root) -> the figure ids on that page, in page order."""
    found = {}
    for html in sorted(site.rglob("index.html")):
        ids = re.findall(r'<figure[^>]*\bdata-figure="([^"]+)"', html.read_text())
        if ids:
            slug = html.parent.relative_to(site).as_posix()
            found["" if slug == "." else slug + "/"] = ids
    return found


def choose_pages(found: dict[str, list[str]], wanted: str | None) -> list[str]:
    """The slugs to measure, checked against the pages that have figures."""
    if not wanted:
        return list(found)
    slugs = [s.strip().strip("/") + "/" for s in wanted.split(",") if s.strip()]
    if unknown := [s for s in slugs if s not in found]:
        raise SystemExit(f"no figures on {unknown}; pages with figures: {sorted(found)}")
    return slugs


def scenarios(figure_ids: list[str]) -> list[dict]:
    """Named latency runs: the divisor figure at d_k = 4096, the dropout figure's 10,000-draw
    run. Values come from the figure modules, so they follow the figures."""
    from figures import divisor, dropout

    out = []
    if "divisor" in figure_ids and 4096 in SWEEP_D_KS:
        at = {"kind": "slider", "value": "4096"}  # the slider's values are its labels
        default = str(divisor.DEFAULT_D_K)
        out += [
            ("divisor switch, d_k=4096", "divisor", [at], {"kind": "radio"}),
            (
                f"d_k {divisor.DEFAULT_D_K} <-> 4096",
                "divisor",
                [],
                {"kind": "slider", "values": [default, at["value"]]},
            ),
            ("Resample, d_k=4096", "divisor", [at], {"kind": "button", "text": "Resample"}),
        ]
    if "dropout" in figure_ids and 10_000 in dropout.DRAWS.values():
        label = next(k for k, v in dropout.DRAWS.items() if v == 10_000)
        setup = [{"kind": "select", "text": "Passes", "value": label}]
        rates = [dropout.BOOK_RATE, dropout.BOOK_RATE / 2]
        out += [
            ("rate p, 10,000 draws", "dropout", setup, {"kind": "slider", "values": rates}),
            ("Resample, 10,000 draws", "dropout", setup, {"kind": "button", "text": "Resample"}),
        ]
    return out


def cold_runs(
    browser,
    url: str,
    runs: int,
    second: str | None,
    throttle: dict | None = None,
    snapshot: bool = True,
):
    """``runs`` cold loads of ``url``, each followed by ``second`` in the same context
    (``throttle``: the network conditions, THROTTLE or SLOW; None for none; ``snapshot``
    False: the page served as a build without the memory snapshot)."""
    loads, warm = [], []
    for k in range(runs):
        context, page, recorder = new_page(browser, throttle=throttle, snapshot=snapshot)
        try:
            loads.append(measure_load(page, recorder, url))
            log(f"{url} run {k + 1}: live at {report.seconds(loads[-1].live)}")
            if second:
                warm.append(measure_load(page, recorder, second))
        finally:
            context.close()
    return loads, warm


def latency_run(browser, url: str, figure_ids: list[str | None], changes: int, named=()):
    """One more load with outside requests aborted; then every figure's control latency.

    Returns (rows for the latency table, the blocked URLs, the load).
    """
    context, page, recorder = new_page(browser, block_outside=True)
    try:
        load = measure_load(page, recorder, url)
        log(f"latency load of {url} (outside requests aborted): {load.state}")
        rows = [] if load.state == "live" else [("(page)", {"control": f"not live: {load.state}"})]
        if load.state == "live":
            for figure_id in figure_ids:
                log(f"latency of {figure_id or BASELINE_FIGURE} on {url}")
                result = control_latency(page, figure_id, changes)
                rows.append((figure_id or BASELINE_FIGURE.replace("_", "-"), result))
            for label, figure_id, setup, change in named:
                log(f"latency: {label}")
                rows.append((label, scenario_latency(page, figure_id, setup, change, changes)))
            if page.locator("[data-cell]").count():
                log(f"latency: a code cell's run on {url}")
                rows.append(("code cell", cell_latency(page, changes)))
        return rows, list(recorder.blocked), load
    finally:
        context.close()


def next_page(slug: str, every: list[str]) -> str | None:
    """The page with figures after ``slug`` (wrapping round), for the warm-cache load."""
    if len(every) < 2:
        return None
    return every[(every.index(slug) + 1) % len(every)]


def measure_site(browser, root: str, pages: list[str], found, args) -> dict:
    """Cold, warm, throttled and latency results for each page."""
    results = {}
    for slug in pages:
        second = next_page(slug, list(found))
        loads, warm = cold_runs(browser, root + slug, args.runs, second and root + second)
        throttled = conditioned_runs(browser, root + slug, args)
        ordinary, _ = cold_runs(browser, root + slug, args.runs, None, snapshot=False)
        named = scenarios(found[slug])
        rows, blocked, _ = latency_run(browser, root + slug, found[slug], args.changes, named)
        log(f"memory of {slug} at a phone's screen")
        results[slug] = {"loads": loads, "warm": warm, **throttled, "ordinary": ordinary,
                         "latency": rows, "blocked": blocked,
                         "memory": memory_run(browser, root + slug),
                         **main_thread_run(browser, root + slug, args)}  # fmt: skip
    return results


# How much slower than this machine's the CPU of the main-thread run is (DevTools' throttling):
# a mid-range phone's, as Lighthouse's mobile runs take it.
CPU_SLOWDOWN = 4


def main_thread_run(browser, url: str, args) -> dict:
    """Cold loads with the CPU slowed CPU_SLOWDOWN times (their main-thread blocking), and one
    reading at a phone's screen: the page scrolled through once live."""
    log(f"main thread of {url}: CPU slowed {CPU_SLOWDOWN}x, then a phone's scroll")
    slowed = []
    for _ in range(args.runs):
        context, page, recorder = new_page(browser, cpu_slowdown=CPU_SLOWDOWN)
        try:
            slowed.append(measure_load(page, recorder, url))
        finally:
            context.close()
    return {"slowed": slowed, "reading": phone_reading(browser, url)}


def memory_run(browser, url: str) -> dict:
    """The page's memory at a phone's screen: live, its pre-render alone (Data Saver: no
    worker), and live with a code cell run (a second worker)."""
    return {
        "live": page_memory(browser, url),
        "prerender": page_memory(browser, url, save_data=True),
        "cell": page_memory(browser, url, cell=True),
    }


def conditioned_runs(browser, url: str, args) -> dict[str, list[Load]]:
    """The throttled (50 Mbit/s) and slow (10 Mbit/s) cold loads the arguments ask for."""
    return {
        "throttled": cold_runs(browser, url, args.runs, None, THROTTLE)[0] if args.throttle else [],
        "slow": cold_runs(browser, url, args.runs, None, SLOW)[0] if args.slow else [],
    }


def reading_order(slugs: list[str]) -> list[str]:
    """The pages in the order a reader of the series meets them (pages.POSTS), others after."""
    import pages

    order = [f"{post.SLUG}/" if post.SLUG else "" for post in pages.posts()]
    return sorted(slugs, key=lambda slug: order.index(slug) if slug in order else len(order))


def series_run(browser, root: str, slugs: list[str]) -> list[Load]:
    """Every page of ``slugs`` in reading order in ONE cold browser context: what reading the
    series costs, each load counting only what did not come from the cache."""
    context, page, recorder = new_page(browser)
    try:
        loads = []
        for slug in reading_order(slugs):
            loads.append(measure_load(page, recorder, root + slug))
            log(f"series: {slug} live at {report.seconds(loads[-1].live)}")
        return loads
    finally:
        context.close()


def measure_baseline(browser, args, cache: Path, work: Path) -> dict:
    """Prepare the converted app, serve it, and measure it like a page (and in each engine)."""
    folder, outside, notes = prepare_baseline(work, cache)
    gzip_ahead(folder)
    server = serve_in_thread(folder, BASELINE_BASE)
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}{BASELINE_BASE}app.html"
        loads, _ = cold_runs(browser, url, args.runs, None)
        throttled = conditioned_runs(browser, url, args)
        rows, blocked, _ = latency_run(browser, url, [None], args.changes)
        log("memory of the baseline at a phone's screen")
        memory = {"live": page_memory(browser, url)}
        main_thread = main_thread_run(browser, url, args)
        in_engines = {} if args.no_engines else engines_of(browser, server, {"baseline": url}, args)
    finally:
        server.shutdown()
    return {"loads": loads, **throttled, "latency": rows, "blocked": blocked, "ordinary": [],
            "outside": outside, "notes": notes, "memory": memory, **main_thread,
            "engines": in_engines}  # fmt: skip


def engines_of(browser, server, urls: dict[str, str], args) -> dict:
    """The cold loads of ``urls`` (label -> URL, served by ``server``) in every engine
    (Chromium's in fresh contexts of ``browser``)."""
    counter = engine_bench.Counter(server)
    launch = engine_bench.launcher(browser, PROJECT_ROOT / ".cache")
    return engine_bench.engine_runs(urls, args.runs, counter, launch, log)


def transfer_lines(loads: list[Load], throttled: dict | None = None) -> list[str]:
    """The throttling check: effective download rate of the largest page and worker files.

    In a throttled run (``throttled``: its conditions), a rate well above the emulated one
    means the throttling did not reach that side's requests.
    """
    limit = (throttled or THROTTLE)["downloadThroughput"] * 8 / 1e6
    lines = []
    for side in ("page", "worker"):
        rates = [x.transfer[side] for x in loads if side in x.transfer]
        if not rates:
            continue
        rate = statistics.median(rates)
        name = loads[0].transfer.get(f"{side}-file")
        line = f"  largest {side}-side download ({name}): {rate:.0f} Mbit/s effective (median)"
        if throttled:
            verdict = "applies" if rate <= limit * 1.25 else "does NOT apply"
            line += f" -> throttling {verdict} to {side} requests"
        lines.append(line)
    return lines


def print_site(results: dict, found, args) -> None:
    for slug, r in results.items():
        print()
        title = (
            f"PAGE {slug or '(index)'}  ({len(found[slug])} figures: {', '.join(found[slug])})"
            f" -- {args.runs} cold loads, median (min-max)"
        )
        print_measures(title, r, args, r["warm"], "changes each")


def print_measures(title: str, r: dict, args, warm, per: str) -> None:
    """One page's (or the baseline's) tables: cold loads, throttled loads, latency, requests."""
    print("\n".join(report.load_table(title, r["loads"], warm)))
    print("\n".join(transfer_lines(r["loads"])))
    for key, conditions in (("throttled", THROTTLE), ("slow", SLOW)):
        if r[key]:
            print("\n".join(report.load_table(throttle_title(args, conditions), r[key])))
            print("\n".join(transfer_lines(r[key], throttled=conditions)))
    if r["ordinary"]:
        title = f"  without the snapshot (the ordinary start), {args.runs} cold loads:"
        print("\n".join(report.load_table(title, r["ordinary"])))
    print("\n".join(report.memory_lines(r["memory"], r["reading"])))
    print("\n".join(report.main_thread_lines(r["loads"], r["slowed"], r["reading"])))
    print(f"  control -> readout latency ({args.changes} {per}, ms):")
    print("\n".join(report.latency_table(r["latency"])))
    print_outside(r["loads"], r["blocked"])


def throttle_title(args, conditions: dict) -> str:
    down = conditions["downloadThroughput"] * 8 / 1e6
    return (
        f"  throttled ({down:.0f} Mbit/s down, {conditions['latency']} ms latency, CDP on the "
        f"page), {args.runs} cold loads:"
    )


def print_series(loads: list[Load]) -> None:
    """The series row: each page's live time and the bytes it added, and the running total."""
    print()
    print("SERIES every page with figures in reading order, one browser session (one cache)")
    print(f"  {'page':<28} {'pre-render':>10} {'live':>8} {'added, gzip':>12} {'total, gzip':>12}")
    total = 0
    for load in loads:
        total += load.gzip_bytes
        page = load.url.rsplit("/", 2)[-2] + "/"
        cells = [report.seconds(load.prerender), report.seconds(load.live)]
        cells += [report.megabytes(load.gzip_bytes), report.megabytes(total)]
        print(f"  {page:<28} {cells[0]:>10} {cells[1]:>8} {cells[2]:>12} {cells[3]:>12}")
        if load.state != "live":
            print(f"    NOT LIVE: {load.state}")


def print_outside(loads: list[Load], blocked: list[str]) -> None:
    outside = sorted({u for load in loads for u in load.outside})
    print(f"  requests leaving the machine in timed loads: {outside or 'none'}")
    print(f"  requests aborted by the route in the latency load: {sorted(set(blocked)) or 'none'}")


def print_baseline(b: dict, args) -> None:
    print()
    title = (
        f"BASELINE panel convert --to pyodide-worker ({BASELINE_FIGURE} alone) -- {args.runs} cold "
        "loads, median (min-max)\n  'figures-live' = end of Panel's render handler: live document "
        "embedded, loading spinner removed, document linked to the worker"
    )
    print_measures(title, b, args, (), "changes")
    print(f"  URLs left pointing outside in the converted files: {b['outside'] or 'none'}")
    for note in b["notes"]:
        print(f"  note: {note}")


def print_ratios(site: dict, base: dict) -> None:
    """Site / baseline for each page's medians, and for the three-steps figure's latency."""
    print()
    print("RATIOS site / baseline (medians; below 1 = the site is faster or smaller)")
    print(
        f"  {'page':<28} {'pre-render':>10} {'live':>8} {'raw bytes':>10} {'gzip bytes':>11}"
        f" {'live 10 Mbit/s':>15} {'live, no snap':>14} {'tab memory':>12}"
    )

    def tab(r, key):
        m = r["memory"].get(key)
        return m.tab if m else None

    def med(loads, key):
        return report.median_or_none([key(x) for x in loads])

    b = base["loads"]
    for slug, r in site.items():
        s = r["loads"]
        cells = [
            report.ratio(med(s, lambda x: x.prerender), med(b, lambda x: x.prerender)),
            report.ratio(med(s, lambda x: x.live), med(b, lambda x: x.live)),
            report.ratio(med(s, lambda x: x.raw_bytes), med(b, lambda x: x.raw_bytes)),
            report.ratio(med(s, lambda x: x.gzip_bytes), med(b, lambda x: x.gzip_bytes)),
            report.ratio(med(r["slow"], lambda x: x.live), med(base["slow"], lambda x: x.live)),
            report.ratio(med(r["ordinary"], lambda x: x.live), med(b, lambda x: x.live)),
            report.ratio(tab(r, "live"), tab(base, "live")),
        ]
        print(
            f"  {slug:<28} {cells[0]:>10} {cells[1]:>8} {cells[2]:>10} {cells[3]:>11}"
            f" {cells[4]:>15} {cells[5]:>14} {cells[6]:>12}"
        )
    theirs = [v for _, res in base["latency"] for v in res.get("latencies", [])]
    figure = BASELINE_FIGURE.replace("_", "-")
    for slug, r in site.items():
        for label, res in r["latency"]:
            ours = res.get("latencies")
            if label == figure and ours and theirs:
                med = report.ratio(statistics.median(ours), statistics.median(theirs))
                p95 = report.ratio(report.percentile(ours, 95), report.percentile(theirs, 95))
                print(f"  {figure} control latency on {slug}: median {med}, p95 {p95}")


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        tmp = Path(tmp)
        site = args.site
        if site is None:
            import build

            site = tmp / "site"
            log("building the site")
            build.build(site, args.base)
        found = figure_pages(site)
        pages = choose_pages(found, args.pages)
        gzip_ahead(site)
        server = serve_in_thread(site, args.base)
        root = f"http://127.0.0.1:{server.server_address[1]}{args.base}"
        baseline, why_not, in_engines = None, None, {}
        with chromium(BROWSER_ARGS) as browser:
            try:
                results = measure_site(browser, root, pages, found, args)
                series = series_run(browser, root, pages)
                if not args.no_engines:
                    urls = {slug: root + slug for slug in pages}
                    in_engines = engines_of(browser, server, urls, args)
            finally:
                server.shutdown()
            if not args.no_baseline:
                try:
                    baseline = measure_baseline(browser, args, default_cache_dir(), tmp)
                except (RuntimeError, OSError, PlaywrightError) as err:
                    why_not = f"{type(err).__name__}: {err}"
    print("served like the static host: text, scripts and WebAssembly gzipped on the wire,")
    print(f"Cache-Control {CACHE_CONTROL} (sitebuild/serve.py)")
    print_site(results, found, args)
    print_series(series)
    if baseline:
        print_baseline(baseline, args)
        print_ratios(results, baseline)
        in_engines |= baseline["engines"]
    elif why_not:
        print(f"\nBASELINE MISSING: {why_not}")
    else:
        print("\nbaseline skipped (--no-baseline)")
    if in_engines:
        print("\n".join(engine_bench.lines(in_engines, args.runs)))
        print("\n".join(engine_bench.step_lines(in_engines)))


if __name__ == "__main__":
    main()
