"""The budget of batches in flight judged from a batch's first octet: the check passes on the
reference server, and catches a budget that takes a batch's place only once it is received,
citing MB-LIMIT-6.

The plant (run.plants.advertised_and_counted) is the relay itself: it forwards a batch only
once it holds all of it, so the reference server behind it counts none of the batches still
arriving, while it refuses the batch beyond as many running ones.
"""

from __future__ import annotations

import pytest

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.target import Target
from mixbatch_conformance.run.plants import PLANTS
from mixbatch_conformance.transport.relay import Relay
from tests.conformance._plants import assert_caught_under_requirement, assert_passes

BY_NAME = {p.name: p for p in PLANTS}
CHECK = "budget-holds-arriving-batches"


def test_check_passes_on_the_reference_server(reference: Target) -> None:
    assert_passes(CHECK, reference)


@pytest.mark.slow
def test_budget_taken_once_received_is_caught(relay: Relay, relayed: Context) -> None:
    plant = BY_NAME["budget-taken-once-received"]
    assert_caught_under_requirement(plant, relay, relayed, ("WARN",))
