"""Plants of how a part's refusal is located and a batch's content codings are read: each
check passes on the reference server and through the relay unplanted, and catches its plant
citing the requirement it breaks.

The plants (run.plants.refusal_readings) edit the reference server's traffic through the relay:
refusals of a part's target or method without `part_index` or `byte_offset` (MB-STATUS-4), and
a Content-Encoding list read by its first member (MB-INTER-6), and an echo's authority without
its port (MB-TEST-2), a part header line of only whitespace taken as the empty line
(MB-PART-11), an atomic batch over its budget not aborted (MB-SEC-1), collection parts all typed alike
(MB-METHOD-4).
"""

from __future__ import annotations

import pytest

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.target import Target
from mixbatch_conformance.run.plants import PLANTS
from mixbatch_conformance.transport.relay import Relay
from tests.conformance._plants import (
    assert_catchers_pass_unplanted,
    assert_caught_under_requirement,
    assert_passes,
)

BY_NAME = {p.name: p for p in PLANTS}
NAMES = (
    "target-refusals-without-part-index",
    "content-coding-first-member-only",
    "echo-authority-host-only",
    "blank-line-by-trimmed-line",
    "collection-parts-typed-alike",
)
CHECKS = (
    "refusal-names-broken-requirement",
    "content-coding-list-members-refused",
    "test-resource-echo",
    "reject-space-line-before-empty-line",
    "reject-htab-line-before-empty-line",
    "reject-whitespace-run-line-before-empty-line",
    "reject-space-line-first-in-section",
    "reject-htab-line-first-in-section",
    "reject-space-line-between-fields",
    "collection-parts-are-members-alone",
)


@pytest.mark.parametrize("check", CHECKS)
def test_check_passes_on_the_reference_server(check: str, reference: Target) -> None:
    assert_passes(check, reference)


@pytest.mark.parametrize("name", NAMES)
def test_plant_is_caught_citing_its_requirement(name: str, relay: Relay, relayed: Context) -> None:
    assert_catchers_pass_unplanted(BY_NAME[name], relay, relayed)
    assert_caught_under_requirement(BY_NAME[name], relay, relayed, ("FAIL",))


@pytest.mark.deep
def test_atomic_batch_over_budget_is_caught_citing_sec_1(relay: Relay, relayed: Context) -> None:
    plant = BY_NAME["atomic-batch-without-deadline"]
    assert_catchers_pass_unplanted(plant, relay, relayed)
    assert_caught_under_requirement(plant, relay, relayed, ("FAIL", "WARN"), each_catcher=False)
