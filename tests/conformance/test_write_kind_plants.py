"""Plants of an atomic rollback that undoes some kinds of write only, a test resource that reads
chunked content as empty, and a collection retrieval cut at 1000 members are each caught.

Each plant breaks one requirement for one kind of input (a rolled-back rewrite, delete or
creation; a chunked PUT or POST to the sandbox; a chunked PUT to the echo; a collection of more
than 1000 members); its catchers pass on the clean relay and fail with it planted, one of them
citing the requirement it breaks.
"""

from __future__ import annotations

import pytest

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.run.plants import write_kinds
from mixbatch_conformance.transport.relay import Relay
from tests.conformance._plants import (
    assert_catchers_pass_unplanted,
    assert_caught_under_requirement,
)

PLANTS = {m.name: m for m in write_kinds.PLANTS}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(PLANTS))
def test_plant_is_caught_and_its_catchers_pass_unplanted(
    name: str, relay: Relay, relayed: Context
) -> None:
    assert_catchers_pass_unplanted(PLANTS[name], relay, relayed)
    assert_caught_under_requirement(PLANTS[name], relay, relayed, each_catcher=False)
