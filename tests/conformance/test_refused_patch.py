"""A PATCH a sandbox member refuses is refused in a part as it is alone, Accept-Patch included.

refused-patch-as-alone reads the Accept-Patch of the member's 415, which the value sweep
corrupts as the slot `part-field:accept-patch`: both the dropped and the altered field are
noticed, and so is the plant that drops Accept-Patch from 415 parts only.
"""

from __future__ import annotations

import pytest

from mixbatch_conformance.checks import all_checks
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.run.plants import PLANTS
from mixbatch_conformance.run.selftest import judge_mutation
from mixbatch_conformance.run.value_sweep import PART_FIELD, Slot, record, sweep
from mixbatch_conformance.transport.relay import Relay

CHECK = "refused-patch-as-alone"
#: The corpus vector that also sends a PATCH the member refuses, without judging its fields.
VECTOR = "vector-extension-methods"
SLOT = Slot(PART_FIELD, "accept-patch")


@pytest.mark.slow
def test_both_corruptions_of_accept_patch_are_noticed(relay: Relay, relayed: Context) -> None:
    checks = [c for c in all_checks() if c.id in (VECTOR, CHECK)]
    readers = record(relay, relayed, checks)
    assert CHECK in readers[SLOT]
    outcomes = sweep(relay, relayed, readers, [SLOT])
    assert {o.how: o.noticed_by for o in outcomes} == {"drop": CHECK, "alter": CHECK}


@pytest.mark.slow
def test_accept_patch_dropped_from_415_parts_is_caught(relay: Relay, relayed: Context) -> None:
    (plant,) = [p for p in PLANTS if p.name == "accept-patch-dropped-from-415-parts"]
    outcome = judge_mutation(relay, relayed, plant)
    assert outcome.caught, outcome.verdicts
    assert outcome.cited, outcome.verdicts
