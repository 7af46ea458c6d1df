"""batch-summary-trailer judges a Batch-Summary trailer that is sent, in every mode.

The plants of run.plants.summary_trailer write a wrong trailer into the reference server's
answers through the relay, which writes a planted trailer field into a chunked answer: counts
by status alone (a rolled-back 200 under ok), `failed` off by one, a trailer not announced
in `Trailer`, and one announced for the multipart form only though the 207 forms carry it too.
Each is a FAIL of MB-STATUS-15. The reference server's own trailer passes.
"""

from __future__ import annotations

import pytest

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.target import Target
from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants.summary_trailer import PLANTS
from mixbatch_conformance.transport.relay import Relay
from tests.conformance._plants import assert_caught_under_requirement, assert_passes

CHECK = "batch-summary-trailer"


@pytest.mark.slow
def test_the_reference_servers_own_trailer_holds(reference: Target) -> None:
    assert_passes(CHECK, reference)


@pytest.mark.slow
@pytest.mark.parametrize("plant", PLANTS, ids=[p.name for p in PLANTS])
def test_a_wrong_trailer_is_reported(plant: Mutation, relay: Relay, relayed: Context) -> None:
    assert (plant.catchers, plant.breaks.split()[0]) == ((CHECK,), "MB-STATUS-15")
    assert_caught_under_requirement(plant, relay, relayed, ("FAIL",))
