"""Every server requirement has a check and a planted violation, with no exception.

The plant table (run.plants) maps requirement -> plant -> catchers. These tests hold the table
to the requirement index: each plant breaks a real server requirement, each server MUST, MUST
NOT, SHOULD and SHOULD NOT is planted and named by a check, UNPLANTED explains only
requirements that bind no server (or are a MAY), and no server requirement is excused from
having a check.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from mixbatch_conformance.checks import all_checks
from mixbatch_conformance.core.requirements import load_index
from mixbatch_conformance.run.coverage_gaps import UNCHECKED, unchecked_requirements
from mixbatch_conformance.run.plants import (
    PLANTS,
    UNPLANTED,
    plantable_requirements,
    planted_requirements,
    requirement_of,
    unplanted_requirements,
)
from mixbatch_conformance.run.report import RunInfo, write_reports


def _server_requirements() -> set[str]:
    return set(plantable_requirements())


def test_every_plant_breaks_a_server_requirement() -> None:
    wrong = {
        p.name: requirement_of(p) for p in PLANTS if requirement_of(p) not in _server_requirements()
    }
    assert wrong == {}


def test_every_plant_names_the_way_it_breaks_its_requirement() -> None:
    bare = [p.name for p in PLANTS if not p.breaks.strip()]
    assert bare == []


def test_every_server_requirement_is_planted() -> None:
    assert sorted(_server_requirements() - planted_requirements()) == []


def test_unplanted_excuses_no_server_requirement() -> None:
    assert sorted(set(UNPLANTED) & _server_requirements()) == []


def test_every_requirement_is_planted_or_says_why() -> None:
    assert unplanted_requirements() == []


def test_unplanted_requirements_are_index_requirements_with_no_plant() -> None:
    assert set(UNPLANTED) <= {r.id for r in load_index().requirements}
    assert set(UNPLANTED) & planted_requirements() == set()
    assert [r for r, why in UNPLANTED.items() if len(why.split()) < 8] == []


def test_there_are_well_over_150_plants() -> None:
    assert len(PLANTS) > 150


def test_every_server_requirement_is_checked() -> None:
    named = {rid for c in all_checks() for rid in c.requirements}
    assert sorted(_server_requirements() - named) == []
    assert unchecked_requirements(all_checks()) == []


def test_no_server_requirement_is_excused_from_a_check() -> None:
    assert UNCHECKED == {}


def test_coverage_matrix_shows_planted_violations_and_gaps(tmp_path: Path) -> None:
    index = load_index()
    info = RunInfo(
        "http://127.0.0.1:1", "/batch", "smoke", 0, ("core",), dt.datetime.now(dt.UTC), 0.0
    )
    write_reports(tmp_path, [], info, index, all_checks())
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "<th>planted violations</th>" in page
    assert "<code>reorder-parts</code>" in page
    assert "<code>pipelined-answers-in-completion-order</code>" in page
    assert "<code>budget-checked-after-parts-ran</code>" in page
    assert "<b>no plant</b>" not in page
