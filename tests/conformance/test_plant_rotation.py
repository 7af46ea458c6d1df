"""Every relay plant is caught, a rotating share of them on each run.

`make test` proves one plant per requirement (test_mutations), every plant that changes how
messages move (test_mutations), and every plant of the groups in test_plant_groups. The rest,
about half of all plants, are judged together only by `make deep` and by the publishing run,
so a plant could stop being caught unseen between the two (the sandbox state machine's
read-back did: its catcher's derandomized draw stopped reaching it). This module judges
ROTATION_SIZE of those others on every run, chosen by the commit being tested, so each commit
checks a different share and every plant comes round within a few dozen commits.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import pytest

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Verdict
from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants import PLANTS, behaviour
from mixbatch_conformance.run.runner import run_check
from mixbatch_conformance.run.selftest import judge_mutation, one_per_requirement
from mixbatch_conformance.transport.relay import Relay
from tests.conformance.test_mutations import CHECKS, _missed
from tests.conformance.test_plant_groups import GROUPS

#: Plants judged per run, beside the quick, behaviour and grouped ones (about 40 s of checks).
ROTATION_SIZE = 40
REPO = Path(__file__).resolve().parents[2]


def rotation_key() -> str:
    """What picks this run's share: MIXBATCH_PLANT_ROTATION if set, else the commit tested."""
    given = os.environ.get("MIXBATCH_PLANT_ROTATION")
    if given:
        return given
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, timeout=10
        )
    except OSError:
        return "no-git"
    return done.stdout.strip() or "no-git"


def others() -> list[Mutation]:
    """The plants no quick, behaviour or group test judges on every run (a deep group's
    plants run only in the deep tier, so they are among these)."""
    judged = {m.name for m in one_per_requirement()} | {m.name for m in behaviour.PLANTS}
    for group in GROUPS:
        if group.tier != "deep":
            judged |= set(group.plants)
    return [m for m in PLANTS if m.name not in judged]


def rotation(key: str, size: int = ROTATION_SIZE) -> list[Mutation]:
    """`size` of the other plants, ordered by a digest of `key` and each plant's name."""

    def rank(m: Mutation) -> str:
        return hashlib.sha256(f"{key}\0{m.name}".encode()).hexdigest()

    return sorted(others(), key=rank)[:size]


SHARE = rotation(rotation_key())


def test_the_rotation_changes_with_the_key_and_reaches_every_plant() -> None:
    first, second = rotation("a"), rotation("b")
    assert len(first) == min(ROTATION_SIZE, len(others()))
    assert first != second
    assert rotation("a") == first
    assert {m.name for m in rotation("a", size=len(others()))} == {m.name for m in others()}


@pytest.mark.slow
@pytest.mark.parametrize("mutation", SHARE, ids=[m.name for m in SHARE])
def test_rotated_plant_is_caught_by_a_check_citing_it(
    mutation: Mutation, relay: Relay, relayed: Context
) -> None:
    relay.mutation = None
    unplanted = {c: run_check(CHECKS[c], relayed).verdict for c in mutation.catchers}
    failing = [c for c, v in unplanted.items() if v not in (Verdict.PASS, Verdict.NA)]
    if failing:
        pytest.skip(f"{failing} do not pass on the reference server with nothing planted")
    missed = _missed(judge_mutation(relay, relayed, mutation))
    assert missed == {}, f"{mutation.name} ({mutation.breaks}) slipped past {missed}"
