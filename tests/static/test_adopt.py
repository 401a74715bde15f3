"""static/adopt.js, run in Node: how the page takes its pre-render over as the live figures."""

import copy
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from layoutkit.document import document, serialize, view_of
from tests.figures.probe import widgets

ADOPT = Path(__file__).parents[2] / "static" / "adopt.js"
NODE = shutil.which("node") or "node"  # the build needs Node too (the snapshots)

RUN = """
const { definitions, match } = require(process.argv[1]);
const [pre, preRoot, live, liveRoot] = JSON.parse(require("fs").readFileSync(0, "utf8"));
const plan = match(pre, preRoot, definitions(live), liveRoot);
process.stdout.write(JSON.stringify(plan && { ids: [...plan.ids], changes: plan.changes }));
"""


def match(pre: dict, pre_root: str, live: dict, live_root: str) -> dict | None:
    """adopt.js's plan for a pre-render and a live document, as JSON data."""
    out = subprocess.run(
        [NODE, "-e", RUN, str(ADOPT)],
        input=json.dumps([pre, pre_root, live, live_root]),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def built(figure_ids: list[str], change: dict | None = None) -> dict:
    """A document of these figures as the page receives it (optionally after changing controls)."""
    views = {fid: view_of(fid) for fid in figure_ids}
    doc = document([], "/dist/")
    for fid, view in views.items():
        root = view.get_root(doc)
        root.name = fid
        doc.add_root(root)
    for label, value in (change or {}).items():
        for view in views.values():
            if label in widgets(view):
                widgets(view)[label].value = value
    return json.loads(json.dumps(serialize(doc)))  # as the page parses it


def doc_json(data: dict) -> dict:
    (json_,) = data["docs_json"].values()
    return json_


def dicts(v):
    """Every JSON object in v, depth first."""
    if isinstance(v, dict):
        yield v
        v = list(v.values())
    if isinstance(v, list):
        for x in v:
            yield from dicts(x)


def as_refs(v):
    if isinstance(v, dict) and "id" in v:
        return {"id": v["id"]}
    if isinstance(v, dict):
        return {k: as_refs(x) for k, x in v.items()}
    if isinstance(v, list):
        return [as_refs(x) for x in v]
    return v


def models(json_: dict) -> dict[str, tuple[str, dict]]:
    """id -> (type name, attributes with every model in them as a reference)."""
    return {
        d["id"]: (d["name"], as_refs(d.get("attributes", {})))
        for d in dicts(json_)
        if d.get("type") == "object" and "id" in d
    }


def adopted(pre: dict, plan: dict) -> dict[str, tuple[str, dict]]:
    """The pre-render's models after the page applies the plan: renamed, then changed."""
    ids = dict(plan["ids"])

    def rename(v):
        if isinstance(v, dict) and set(v) == {"id"}:
            return {"id": ids[v["id"]]}
        if isinstance(v, dict):
            return {k: rename(x) for k, x in v.items()}
        if isinstance(v, list):
            return [rename(x) for x in v]
        return v

    table = {ids[i]: (name, rename(attrs)) for i, (name, attrs) in models(pre).items() if i in ids}
    for change in plan["changes"]:
        table[change["id"]][1][change["attr"]] = change["value"]
    return table


def reachable(table: dict, root: str) -> dict:
    """The models of table that root refers to, itself included."""
    seen, todo = {}, [root]
    while todo:
        i = todo.pop()
        if i not in seen:
            seen[i] = table[i]
            todo += [d["id"] for d in dicts(table[i][1]) if "id" in d]
    return seen


@pytest.mark.parametrize("change", [None, {"Query token": "your"}])
def test_the_plan_turns_the_prerender_into_the_live_document(change):
    pre = built(["three-steps"])
    live = built(["depth", "three-steps"], change)  # the live page holds every figure
    plan = match(
        doc_json(pre), pre["roots"]["three-steps"], doc_json(live), live["roots"]["three-steps"]
    )
    assert plan is not None
    live_models = reachable(models(doc_json(live)), live["roots"]["three-steps"])
    assert adopted(doc_json(pre), plan) == live_models
    assert len(plan["ids"]) == len(live_models)
    changed = {c["attr"] for c in plan["changes"]}
    if change is None:  # only Panel's generated names differ between two builds
        assert changed == {"name"}
    else:
        assert {"value", "text"} <= changed


def test_the_same_document_needs_no_change():
    data = built(["three-steps"])
    json_, root = doc_json(data), data["roots"]["three-steps"]
    plan = match(json_, root, json_, root)
    assert plan["changes"] == [] and all(a == b for a, b in plan["ids"])


def first(json_: dict, name: str) -> dict:
    """The first model definition of this type in a serialized document."""
    return next(d for d in dicts(json_) if d.get("type") == "object" and d.get("name") == name)


def breaks(edit) -> dict | None:
    """The plan for a pre-render against a copy of itself that `edit` changed."""
    data = built(["three-steps"])
    pre, root = doc_json(data), data["roots"]["three-steps"]
    live = copy.deepcopy(pre)
    edit(live)
    return match(pre, root, live, root)


def test_a_model_of_another_type_is_not_adopted():
    assert breaks(lambda live: first(live, "Spinner").update(name="Slider")) is None


def test_an_attribute_left_at_its_default_is_not_adopted():
    assert breaks(lambda live: first(live, "Spinner")["attributes"].pop("value")) is None


def test_a_list_of_models_of_another_length_is_not_adopted():
    assert breaks(lambda live: first(live, "Row")["attributes"]["children"].pop()) is None


def test_two_models_where_there_was_one_are_not_adopted():
    def share(live):
        row = first(live, "Row")["attributes"]["children"]
        row[1] = {"id": row[0]["id"]}

    assert breaks(share) is None


def test_a_changed_value_beside_models_is_one_change():
    def shift(live):
        first(live, "panel.models.widgets.CustomSelect")["attributes"]["options"].append("extra")

    plan = breaks(shift)
    assert [(c["attr"], c["value"][-1]) for c in plan["changes"]] == [("options", "extra")]
