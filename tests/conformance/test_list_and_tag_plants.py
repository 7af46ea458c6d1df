"""Plants of how a Batch-Mode list is read and what a strong aggregate ETag hashes: each new
check passes on the reference server and through the relay unplanted, and catches its plant
citing the requirement it breaks.

The plants (run.plants.list_and_tag_readings) edit the reference server's traffic through the
relay: a Batch-Mode list answered 501 unless it is one mode alone on one field line
(MB-PROC-17), and a strong aggregate ETag hashed from the parts' Content-Ids and ETags while the
parts carry Last-Modified (MB-METHOD-7).
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
NAMES = ("batch-mode-list-forms-refused", "aggregate-etag-over-member-tags-only")
CHECKS = (
    "implemented-mode-list-forms-run-as-plain",
    "unimplemented-mode-list-forms-refused",
    "sandbox-collection-strong-etag-same-octets",
)


@pytest.mark.parametrize("check", CHECKS)
def test_check_passes_on_the_reference_server(check: str, reference: Target) -> None:
    assert_passes(check, reference)


@pytest.mark.parametrize("name", NAMES)
def test_plant_is_caught_citing_its_requirement(name: str, relay: Relay, relayed: Context) -> None:
    assert_catchers_pass_unplanted(BY_NAME[name], relay, relayed)
    assert_caught_under_requirement(BY_NAME[name], relay, relayed, ("FAIL",))
