"""The suite catches violations planted by someone who had not read its checks.

Each plant in a set's plants.json (this folder's, and each roundN/ folder's) is a patch to the
independent Go server that breaks one server requirement; run_plants.py builds and runs every one
against the standard tier. The index of every set is checked on every run. The deep tier holds
the suite to each set's recorded results: the clean server has no FAIL, and every plant its
results.json records as caught is still caught by a check citing its requirement. That needs
the Go toolchain and about half an hour per set.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.independent_plants import run_plants

HERE = Path(__file__).resolve().parent


#: Every set of plants: the first in this folder, each later one in its own.
SETS = sorted([HERE, *(d for d in HERE.glob("round*") if (d / "plants.json").is_file())])


@pytest.mark.parametrize("folder", SETS, ids=[d.name for d in SETS])
def test_index_names_existing_patches_and_requirements(folder: Path) -> None:
    plants = json.loads((folder / "plants.json").read_text())
    index = json.loads((HERE.parents[1] / "spec" / "requirements.json").read_text())
    known = {r["id"]: r["keyword"] for r in index["requirements"]}
    ids = [p["id"] for p in plants]
    assert len(ids) == len(set(ids))
    for plant in plants:
        assert (folder / plant["patch"]).is_file(), plant["id"]
        assert known.get(plant["requirement"]) == plant["keyword"], plant["id"]


#: Seconds for one set's run: up to about 80 builds and standard-tier runs, two at a time.
DEEP_TIMEOUT_S = 3600


@pytest.mark.deep
@pytest.mark.timeout(DEEP_TIMEOUT_S)
@pytest.mark.parametrize("folder", SETS, ids=[d.name for d in SETS])
def test_every_recorded_catch_still_holds(folder: Path, tmp_path: Path, mixbatch_tier: str) -> None:
    if mixbatch_tier != "deep":
        pytest.skip("the planted servers run with --mixbatch-tier deep (make deep)")
    if run_plants.find_go() is None:
        pytest.skip("no go binary on PATH or at /usr/local/go/bin/go")
    if not (folder / "results.json").is_file():
        pytest.skip(f"{folder.name} has not been measured yet")
    recorded = json.loads((folder / "results.json").read_text())
    out = tmp_path / "results.json"
    index = str(folder / "plants.json")
    code = run_plants.main(["--jobs", "2", "--index", index, "--results", str(out)])
    fresh = json.loads(out.read_text())
    assert code == 0, fresh["summary"]["clean_false_failures"]
    now = {v["id"]: v for v in fresh["plants"]}
    lost = [
        v["id"]
        for v in recorded["plants"]
        if v["caught_by_requirement"] and not now[v["id"]]["caught_by_requirement"]
    ]
    assert lost == [], f"plants no longer caught: {lost}"
