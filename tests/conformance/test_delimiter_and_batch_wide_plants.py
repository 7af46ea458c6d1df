"""Close delimiters faked by content, padding other than SP and HTAB, boundaries with capital
letters, Accept-Post naming types the endpoint refuses, per-part limits counted over the batch
and refusals that keep a place in the budget of batches in flight.

The reference server passes every catcher; each plant is caught under the requirement it
breaks (a SHOULD's plant by a WARN).
"""

from __future__ import annotations

import pytest

from mixbatch_conformance.checks import all_checks
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Verdict
from mixbatch_conformance.core.target import Target
from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants import batch_wide, framing, wire
from mixbatch_conformance.run.runner import run_check
from mixbatch_conformance.run.selftest import judge_mutation
from mixbatch_conformance.transport.relay import Relay

NAMES = {
    "close-delimiter-found-by-suffix",
    "close-delimiter-of-a-longer-boundary",
    "padding-any-octet-white-space",
    "padding-unicode-white-space",
    "padding-ends-at-nul",
    "boundary-lower-cased",
    "boundary-matched-ignoring-case",
    "accept-post-lists-representations",
    "options-accept-post-lists-representations",
}
PLANTS = [p for p in framing.PLANTS + wire.PLANTS if p.name in NAMES] + list(batch_wide.PLANTS)
CHECKS = {c.id: c for c in all_checks()}
CATCHERS = sorted({c for p in PLANTS for c in p.catchers})


def test_every_plant_is_here() -> None:
    assert {p.name for p in PLANTS} >= NAMES


@pytest.mark.parametrize("check", CATCHERS)
def test_the_reference_server_passes(check: str, reference: Target) -> None:
    result = run_check(CHECKS[check], Context(reference))
    assert result.verdict is Verdict.PASS, result.message


@pytest.mark.parametrize("plant", PLANTS, ids=[p.name for p in PLANTS])
def test_a_plant_is_caught_under_its_requirement(
    plant: Mutation, relay: Relay, relayed: Context
) -> None:
    outcome = judge_mutation(relay, relayed, plant)
    requirement = plant.breaks.split()[0]
    for catcher in plant.catchers:
        result = outcome.results[catcher]
        assert result.verdict.value in plant.caught_by, result.message
        assert requirement in {e.requirement for e in result.judge.failed}, result.message
