"""Conditional fields judged by RFC 9110 §13: the checks pass on the reference server and
through the relay unplanted, and catch plants that evaluate a field wrongly alone as in a part
(run.plants.conditional_evaluations) citing MB-PROC-9."""

from __future__ import annotations

import pytest

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.target import Target
from mixbatch_conformance.run.plants import PLANTS
from mixbatch_conformance.run.plants.conditional_evaluations import PLANTS as EVALUATIONS
from mixbatch_conformance.transport.relay import Relay
from tests.conformance._plants import (
    assert_catchers_pass_unplanted,
    assert_caught_under_requirement,
    assert_passes,
)

BY_NAME = {p.name: p for p in PLANTS}
NAMES = tuple(p.name for p in EVALUATIONS)
CHECKS = ("conditional-rfc-reads", "conditional-rfc-writes")


@pytest.mark.parametrize("check", CHECKS)
def test_check_passes_on_the_reference_server(check: str, reference: Target) -> None:
    assert_passes(check, reference)


@pytest.mark.parametrize("name", NAMES)
def test_plant_is_caught_citing_its_requirement(name: str, relay: Relay, relayed: Context) -> None:
    assert_catchers_pass_unplanted(BY_NAME[name], relay, relayed)
    assert_caught_under_requirement(BY_NAME[name], relay, relayed, ("FAIL",))
