"""Plants of an aggregate Last-Modified that leaves the last member out and of an aborted 207
document that holds its abort report alone are each caught.

Each catcher passes on the clean relay and fails (or warns, for the SHOULD) with its plant in
place, citing the requirement the plant breaks.
"""

from __future__ import annotations

import pytest

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.run.plants import aggregate_dates
from mixbatch_conformance.transport.relay import Relay
from tests.conformance._plants import (
    assert_catchers_pass_unplanted,
    assert_caught_under_requirement,
)

PLANTS = {m.name: m for m in aggregate_dates.PLANTS}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(PLANTS))
def test_plant_is_caught_and_its_catchers_pass_unplanted(
    name: str, relay: Relay, relayed: Context
) -> None:
    assert_catchers_pass_unplanted(PLANTS[name], relay, relayed)
    assert_caught_under_requirement(PLANTS[name], relay, relayed)
