"""Octet limits judged with two-octet UTF-8 characters: each new check passes on the reference
server and through the relay unplanted, and catches its plant citing MB-STATUS-3.

The plants (run.plants.octet_units) lift the reference server's refusal of a section or body
one octet over `max_part_header_bytes`, `max_part_bytes` or `max_batch_bytes` when its content
holds multi-octet characters, as a server counting characters instead of octets would.
"""

from __future__ import annotations

import pytest

from mixbatch_conformance.checks.limit_octets import CASES, multi_octet
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
    "part-header-bytes-counted-in-characters",
    "part-bytes-counted-in-characters",
    # Sends max_batch_bytes (64 MiB on the reference server) four times.
    pytest.param("batch-bytes-counted-in-characters", marks=pytest.mark.slow),
)


@pytest.mark.parametrize("octets", [0, 1, 2, 7, 8])
def test_multi_octet_filler_is_exactly_the_octets_asked(octets: int) -> None:
    filler = multi_octet(octets)
    assert len(filler) == octets
    assert len(filler.decode()) == (octets + 1) // 2


@pytest.mark.parametrize("check", [slug for slug, *_ in CASES])
def test_check_passes_on_the_reference_server(check: str, reference: Target) -> None:
    assert_passes(check, reference)


@pytest.mark.parametrize("name", NAMES)
def test_plant_is_caught_citing_its_requirement(name: str, relay: Relay, relayed: Context) -> None:
    assert_catchers_pass_unplanted(BY_NAME[name], relay, relayed)
    assert_caught_under_requirement(BY_NAME[name], relay, relayed, ("FAIL",))
