"""Plants of which fields belong to the batch and which to a part: each new check passes on
the reference server and through the relay unplanted, and catches its plants citing the
requirement they break.

The plants (run.plants.field_scope) edit the reference server's traffic through the relay: the
Prefer field split at semicolons or at commas inside quotes (MB-PROC-5), a client field of the
batch applied to its parts (MB-SUB-6), and a batch rule applied to a part's own Content-Encoding,
multipart Content-Type or Batch-Mode (MB-PART-8).
"""

from __future__ import annotations

import pytest

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.target import Target
from mixbatch_conformance.run.plants import PLANTS
from mixbatch_conformance.run.plants.field_scope import PLANTS as FIELD_SCOPE
from mixbatch_conformance.transport.relay import Relay
from tests.conformance._plants import (
    assert_catchers_pass_unplanted,
    assert_caught_under_requirement,
    assert_passes,
)

BY_NAME = {p.name: p for p in PLANTS}
NAMES = tuple(p.name for p in FIELD_SCOPE)
CHECKS = (
    "client-fields-not-inherited",
    "part-batch-rule-fields-as-alone",
    "continue-whatever-other-preferences",
)


@pytest.mark.parametrize("check", CHECKS)
def test_check_passes_on_the_reference_server(check: str, reference: Target) -> None:
    assert_passes(check, reference)


@pytest.mark.parametrize("name", NAMES)
def test_plant_is_caught_citing_its_requirement(name: str, relay: Relay, relayed: Context) -> None:
    assert_catchers_pass_unplanted(BY_NAME[name], relay, relayed)
    assert_caught_under_requirement(BY_NAME[name], relay, relayed, ("FAIL",))
