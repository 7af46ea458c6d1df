"""Every server requirement has a planted violation, or the plant table says why it cannot.

The plant table (run.plants) maps requirement -> plant -> catchers. These tests hold the table
to the requirement index: each plant breaks a real server requirement, each server MUST, MUST
NOT, SHOULD and SHOULD NOT is planted or listed in UNPLANTED with a reason, and UNPLANTED
names nothing that is planted after all.
"""

from __future__ import annotations

from mixbatch_conformance.run.plants import (
    PLANTS,
    UNPLANTED,
    plantable_requirements,
    planted_requirements,
    requirement_of,
    unplanted_requirements,
)


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


def test_unplanted_requirements_are_server_requirements_with_no_plant() -> None:
    assert set(UNPLANTED) <= _server_requirements()
    assert set(UNPLANTED) & planted_requirements() == set()
    assert [r for r, why in UNPLANTED.items() if len(why.split()) < 8] == []


def test_there_are_well_over_150_plants() -> None:
    assert len(PLANTS) > 150
