"""The suite catches violations planted by someone who had not read its checks.

Each plant in plants.json is a patch to the independent Go server that breaks one server
requirement; run_plants.py builds and runs every one against the standard tier. The test holds
the suite to the recorded results: the clean server has no FAIL, and every plant results.json
records as caught is still caught by a check citing its requirement. It needs the Go toolchain
and about half an hour, so it is deep-tier only.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.independent_plants import run_plants

HERE = Path(__file__).resolve().parent


def test_index_names_existing_patches_and_requirements() -> None:
    plants = json.loads((HERE / "plants.json").read_text())
    index = json.loads((HERE.parents[1] / "spec" / "requirements.json").read_text())
    known = {r["id"]: r["keyword"] for r in index["requirements"]}
    ids = [p["id"] for p in plants]
    assert len(ids) == len(set(ids))
    for plant in plants:
        assert (HERE / plant["patch"]).is_file(), plant["id"]
        assert known.get(plant["requirement"]) == plant["keyword"], plant["id"]


#: Seconds for the whole run: about 80 builds and standard-tier runs, two at a time.
DEEP_TIMEOUT_S = 3600


@pytest.mark.deep
@pytest.mark.timeout(DEEP_TIMEOUT_S)
def test_every_recorded_catch_still_holds(tmp_path: Path, mixbatch_tier: str) -> None:
    if mixbatch_tier != "deep":
        pytest.skip("the planted servers run with --mixbatch-tier deep (make deep)")
    if run_plants.find_go() is None:
        pytest.skip("no go binary on PATH or at /usr/local/go/bin/go")
    recorded = json.loads((HERE / "results.json").read_text())
    out = tmp_path / "results.json"
    code = run_plants.main(["--jobs", "2", "--results", str(out)])
    fresh = json.loads(out.read_text())
    assert code == 0, fresh["summary"]["clean_false_failures"]
    now = {v["id"]: v for v in fresh["plants"]}
    lost = [
        v["id"]
        for v in recorded["plants"]
        if v["caught_by_requirement"] and not now[v["id"]]["caught_by_requirement"]
    ]
    assert lost == [], f"plants no longer caught: {lost}"
