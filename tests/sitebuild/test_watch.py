"""The watch mode's parts: which edit rebuilds what, where an error points, the live server."""

import json
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest

from sitebuild.serve import LIVE, Live, serve_in_thread
from sitebuild.watch import (
    EVERYTHING,
    Plan,
    Watcher,
    check_syntax,
    describe,
    figure_files,
    plan,
)

FILES = figure_files({"depth": "figures.depth", "three-steps": "figures.three_steps"})


def test_registered_figures_map_to_their_files():
    assert FILES == {"figures/depth.py": "depth", "figures/three_steps.py": "three-steps"}


@pytest.mark.parametrize(
    ("changed", "expected"),
    [
        (["templates/post1.html"], Plan()),
        (["glossary.toml"], Plan()),
        (["pages/post1.py"], Plan(modules=True)),
        (["figures/depth.py"], Plan(whole=True, modules=True, stale=frozenset({"depth"}))),
        (["layoutkit/frame.py"], Plan(whole=True, modules=True, stale=None)),
        (["figures/__init__.py"], Plan(whole=True, modules=True, stale=None)),
        (["attention/basics.py"], Plan(whole=True, modules=True, stale=None)),
        (["formatting/__init__.py"], Plan(whole=True, modules=True, stale=None)),
        (["static/site.css"], Plan(whole=True)),
        (
            ["figures/depth.py", "figures/three_steps.py", "templates/post1.html"],
            Plan(whole=True, modules=True, stale=frozenset({"depth", "three-steps"})),
        ),
        (["figures/depth.py", "attention/basics.py"], EVERYTHING),
    ],
)
def test_each_edit_rebuilds_what_it_affects(changed, expected):
    assert plan(changed, FILES) == expected


@pytest.mark.parametrize("changed", [[], ["README.md"], ["tests/test_layers.py"], ["site/x.html"]])
def test_edits_the_site_is_not_built_from_rebuild_nothing(changed):
    assert plan(changed, FILES) is None


def test_a_failed_plan_carried_forward_keeps_what_it_had_to_do():
    assert Plan(whole=True) | Plan(modules=True) == Plan(whole=True, modules=True)
    assert Plan(stale=None) | Plan(stale=frozenset({"depth"})) == Plan(stale=None)


def test_a_syntax_error_points_at_its_file_and_line(tmp_path):
    (tmp_path / "figures").mkdir()
    (tmp_path / "figures" / "depth.py").write_text("x = 1\ndef broken(:\n")
    with pytest.raises(SyntaxError) as caught:
        check_syntax(tmp_path, ["figures/depth.py", "templates/gone.html"])
    assert describe(caught.value, tmp_path).startswith("figures/depth.py:2: SyntaxError")


def test_an_error_raised_in_a_page_points_at_the_page(tmp_path):
    source = tmp_path / "pages" / "post1.py"
    source.parent.mkdir()
    source.write_text("def context():\n    return {}['missing']\n")
    namespace = {}
    exec(compile(source.read_text(), str(source), "exec"), namespace)
    try:
        try:
            namespace["context"]()
        except KeyError as err:
            raise RuntimeError("the page failed") from err
    except RuntimeError as err:
        assert describe(err, tmp_path) == "pages/post1.py:2: RuntimeError: the page failed"


@pytest.fixture
def live_site(tmp_path):
    (tmp_path / "page").mkdir()
    (tmp_path / "page" / "index.html").write_text("<html><head></head><body>hi</body></html>")
    live = Live(build="b1")
    server = serve_in_thread(tmp_path, "/sub/", live)
    yield tmp_path, live, f"http://127.0.0.1:{server.server_address[1]}/sub/"
    server.shutdown()


def get(url: str) -> tuple[dict, str]:
    with urllib.request.urlopen(url) as response:
        return response.headers, response.read().decode()


def test_the_live_server_adds_its_script_to_what_it_sends_not_to_the_file(live_site):
    root, _, url = live_site
    headers, body = get(url + "page/")
    assert f'src="/sub/{LIVE}reload.js?build=b1"' in body.split("</head>")[0]
    assert headers["Cache-Control"] == "no-cache"
    assert "reload.js" not in (root / "page" / "index.html").read_text()
    assert "location.reload()" in get(f"{url}{LIVE}reload.js")[1]


def test_the_live_state_tells_the_build_and_the_error(live_site):
    _, live, url = live_site
    assert json.loads(get(f"{url}{LIVE}state")[1]) == {"build": "b1", "error": None}
    live.set(error="figures/depth.py:2: SyntaxError")
    assert json.loads(get(f"{url}{LIVE}state")[1])["error"].startswith("figures/depth.py:2")
    live.set(build="b2")
    assert json.loads(get(f"{url}{LIVE}state")[1]) == {"build": "b2", "error": None}


@dataclass
class Made:
    out: Path


def test_the_loop_builds_without_snapshots_or_the_ordinary_starts_bytecode(tmp_path):
    calls = []

    def build(out, base, cache, snapshots, prerender, stale, startup_bytecode=True):
        calls.append((snapshots, startup_bytecode))
        out.mkdir()
        return Made(out)

    watcher = Watcher(tmp_path, tmp_path / "site", "/", None, Live(build="b0"), print)
    watcher.build_whole(SimpleNamespace(build=build), None)
    assert calls == [(False, False)]  # both would be made again after every edit of the code
    assert watcher.built.out == tmp_path / "site" and (tmp_path / "site").is_dir()
