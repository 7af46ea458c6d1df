"""The fifth share of the plant groups' plants (GROUPS in test_plant_groups), in a file of its
own so that another pytest-xdist worker takes them."""

from __future__ import annotations

import pytest

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.transport.relay import Relay
from tests.conformance.test_plant_groups import Group, judge_plant, plant_params


@pytest.mark.parametrize(("group", "name"), plant_params(4))
def test_plant_is_caught_citing_its_requirement(
    group: Group, name: str, relay: Relay, relayed: Context
) -> None:
    judge_plant(group, name, relay, relayed)
