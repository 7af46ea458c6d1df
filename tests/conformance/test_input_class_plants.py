"""Plants of part field kinds, target resolution and sandbox inputs are each caught.

Each plant breaks one requirement for one class of input (a part's Content-* or empty fields, a
query-only reference, a forwarding field, a target validated in an earlier batch, a long member
id, a large member, members created together, a member read after later batches, an empty
member in a retrieval); its catchers pass on the clean relay and fail with it planted, citing
the requirement it breaks.
"""

from __future__ import annotations

import pytest

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.run.plants import field_kinds, resolution, sandbox_inputs
from mixbatch_conformance.transport.relay import Relay
from tests.conformance._plants import (
    assert_catchers_pass_unplanted,
    assert_caught_under_requirement,
)

PLANTS = {m.name: m for m in (*field_kinds.PLANTS, *resolution.PLANTS, *sandbox_inputs.PLANTS)}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(PLANTS))
def test_plant_is_caught_and_its_catchers_pass_unplanted(
    name: str, relay: Relay, relayed: Context
) -> None:
    assert_catchers_pass_unplanted(PLANTS[name], relay, relayed)
    assert_caught_under_requirement(PLANTS[name], relay, relayed, each_catcher=False)
