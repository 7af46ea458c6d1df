"""The plants for what a sub-request receives and what its part carries are each caught.

`one_per_requirement` runs one plant per requirement; these are further ways to break
MB-SEC-2, MB-WIRE-15, MB-SUB-5, MB-PART-13 and MB-METHOD-7, each with its own catcher, so
each is planted here and must be caught by a check citing the requirement it breaks.
"""

from __future__ import annotations

import pytest

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.run.plants import PLANTS
from mixbatch_conformance.transport.relay import Relay
from tests.conformance._plants import (
    assert_catchers_pass_unplanted,
    assert_caught_under_requirement,
)

NAMES = (
    "part-fields-copied-up",
    "empty-parts-unframed",
    "aggregate-etag-of-member-ids",
    "empty-credentials-taken-as-absent",
    "absolute-target-authority-as-written",
)
BY_NAME = {m.name: m for m in PLANTS}


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_plant_is_caught_and_its_catchers_pass_unplanted(
    name: str, relay: Relay, relayed: Context
) -> None:
    assert_catchers_pass_unplanted(BY_NAME[name], relay, relayed)
    assert_caught_under_requirement(BY_NAME[name], relay, relayed, each_catcher=False)
