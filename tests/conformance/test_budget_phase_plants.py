"""The budget of batches in flight judged over a batch's whole life: the check passes on the
reference server, and catches a budget that lets a batch go once it is received, citing
MB-LIMIT-6.

The plant (run.plants.budget_phases) is the relay as a server of its own: it refuses a batch
whose head arrives while 16 are being received, and holds nothing for a batch once received.
"""

from __future__ import annotations

import pytest

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Verdict
from mixbatch_conformance.core.target import Target
from mixbatch_conformance.run.plants import PLANTS
from mixbatch_conformance.run.runner import run_check
from mixbatch_conformance.transport.relay import Relay
from tests.conformance._plants import CHECKS, assert_caught_under_requirement, assert_passes

BY_NAME = {p.name: p for p in PLANTS}
CHECK = "budget-holds-running-batches"


def test_check_passes_on_the_reference_server(reference: Target) -> None:
    assert_passes(CHECK, reference)


def test_check_is_na_where_nothing_is_refused_while_received(
    relay: Relay, relayed: Context
) -> None:
    # The relay, unplanted, forwards a batch only once it has all of it, so the reference
    # server behind it never sees the partly sent ones and refuses nothing.
    relay.mutation = None
    result = run_check(CHECKS[CHECK], relayed)
    assert result.verdict is Verdict.NA, result.message


@pytest.mark.slow
def test_budget_released_once_received_is_caught(relay: Relay, relayed: Context) -> None:
    plant = BY_NAME["budget-released-once-received"]
    assert_caught_under_requirement(plant, relay, relayed, ("WARN",))
