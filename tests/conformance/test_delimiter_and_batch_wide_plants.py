"""Close delimiters faked by content, padding other than SP and HTAB, boundaries with capital
letters, Accept-Post naming types the endpoint refuses, per-part limits counted over the batch
and refusals that keep a place in the budget of batches in flight.

The reference server passes every catcher; each plant is caught under the requirement it
breaks (a SHOULD's plant by a WARN).
"""

from __future__ import annotations

import pytest

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.target import Target
from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants import batch_wide, framing, wire
from mixbatch_conformance.transport.relay import Relay
from tests.conformance._plants import assert_caught_under_requirement, assert_passes

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
CATCHERS = sorted({c for p in PLANTS for c in p.catchers})


def test_every_plant_is_here() -> None:
    assert {p.name for p in PLANTS} >= NAMES


@pytest.mark.parametrize("check", CATCHERS)
def test_the_reference_server_passes(check: str, reference: Target) -> None:
    assert_passes(check, reference)


@pytest.mark.parametrize("plant", PLANTS, ids=[p.name for p in PLANTS])
def test_a_plant_is_caught_under_its_requirement(
    plant: Mutation, relay: Relay, relayed: Context
) -> None:
    assert_caught_under_requirement(plant, relay, relayed)
