"""Plants of how a batch stops, what an atomic batch lets others see, what OPTIONS negotiates
and what a strong aggregate ETag promises: each is caught by a check citing its requirement.

The plants (run.plants.stopping, behaviour, limits, retrievals) edit the reference server's
answers through the relay: a batch whose first part was running when its budget ran out answered
503 (MB-STATUS-12); a spent budget under the stop policy written as skipped parts (MB-STATUS-6);
the part that stops a batch written as a stop report (MB-RESP-4); a read that sees an atomic
batch's write before it rolls back (MB-PROC-15); OPTIONS refused 406 for an Accept naming the
capabilities document (MB-LIMIT-2); collection parts dated under a strong ETag (MB-METHOD-7).
"""

from __future__ import annotations

import pytest

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.run.plants import PLANTS
from mixbatch_conformance.transport.relay import Relay
from tests.conformance._plants import assert_caught_under_requirement

BY_NAME = {p.name: p for p in PLANTS}
#: Plants whose catchers wait out the reference server's time budget (a few seconds each).
SLOW = ("abort-before-first-part-answered-503", "spent-budget-under-stop-skips")
QUICK = (
    "stopping-part-written-as-problem",
    "atomic-hold-taken-per-part",
    "options-negotiated-as-a-batch",
    "collection-parts-dated",
)


def _judge(name: str, relay: Relay, relayed: Context) -> None:
    assert_caught_under_requirement(BY_NAME[name], relay, relayed, ("FAIL",), each_catcher=False)


@pytest.mark.parametrize("name", QUICK)
def test_plant_is_caught_citing_its_requirement(name: str, relay: Relay, relayed: Context) -> None:
    _judge(name, relay, relayed)


@pytest.mark.slow
@pytest.mark.parametrize("name", SLOW)
def test_budget_plant_is_caught_citing_its_requirement(
    name: str, relay: Relay, relayed: Context
) -> None:
    _judge(name, relay, relayed)
