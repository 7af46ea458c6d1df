"""Every server requirement has a check and a planted violation, or the data says why not.

The plant table (run.plants) maps requirement -> plant -> catchers. These tests hold the table
to the requirement index: each plant breaks a real server requirement, each server MUST, MUST
NOT, SHOULD and SHOULD NOT is planted or listed in UNPLANTED with a reason, and UNPLANTED
names nothing that is planted after all.
"""

from __future__ import annotations

import datetime as dt
import html
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


def test_every_server_requirement_is_planted_or_says_why() -> None:
    assert unplanted_requirements() == []


def test_every_requirement_is_planted_or_says_why() -> None:
    assert unplanted_requirements() == []


def test_unplanted_requirements_are_index_requirements_with_no_plant() -> None:
    assert set(UNPLANTED) <= {r.id for r in load_index().requirements}
    assert set(UNPLANTED) & planted_requirements() == set()
    assert [r for r, why in UNPLANTED.items() if len(why.split()) < 8] == []


def test_there_are_well_over_150_plants() -> None:
    assert len(PLANTS) > 150


def test_every_server_requirement_is_checked_or_says_why() -> None:
    assert unchecked_requirements(all_checks()) == []


def test_unchecked_reasons_name_requirements_no_check_names() -> None:
    named = {rid for c in all_checks() for rid in c.requirements}
    assert set(UNCHECKED) <= set(plantable_requirements())
    assert set(UNCHECKED) & named == set()


def test_coverage_matrix_shows_planted_violations_and_gaps(tmp_path: Path) -> None:
    index = load_index()
    info = RunInfo(
        "http://127.0.0.1:1", "/batch", "smoke", 0, ("core",), dt.datetime.now(dt.UTC), 0.0
    )
    write_reports(tmp_path, [], info, index, all_checks())
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "<th>planted violations</th>" in page
    assert "<code>reorder-parts</code>" in page
    assert f"none: {html.escape(UNPLANTED['MB-PIPE-1'])}" in page
    assert f"none: {html.escape(UNCHECKED['MB-LIMIT-6'])}" in page
    assert "<b>no plant</b>" not in page
