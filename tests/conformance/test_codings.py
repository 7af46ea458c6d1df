"""The checks of a batch in a transfer coding or a content coding catch their plants.

chunked-batch-answered-as-content-length sends one batch framed by Content-Length and chunked
and compares the answers (MB-INTER-5); content-coded-batch-runs-nothing sends a batch in a
coding no server decodes that would write into the sandbox (MB-INTER-6). The reference server
passes both; each plant of run.plants.codings fails its catcher under the requirement it breaks.
"""

from __future__ import annotations

import pytest

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.target import Target
from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants.codings import PLANTS
from mixbatch_conformance.transport.relay import Relay
from tests.conformance._plants import assert_caught_under_requirement, assert_passes

#: The plant whose catcher sends the published max_batch_bytes (64 MiB) through the relay.
LARGE = "chunked-batch-limit-counts-chunk-lines"


@pytest.mark.parametrize(
    "check", ["chunked-batch-answered-as-content-length", "content-coded-batch-runs-nothing"]
)
def test_the_reference_server_passes(check: str, reference: Target) -> None:
    assert_passes(check, reference)


def _run(plant: Mutation, relay: Relay, relayed: Context) -> None:
    assert_caught_under_requirement(plant, relay, relayed, ("FAIL",))


@pytest.mark.parametrize(
    "plant", [p for p in PLANTS if p.name != LARGE], ids=[p.name for p in PLANTS if p.name != LARGE]
)
def test_a_plant_is_caught_under_its_requirement(
    plant: Mutation, relay: Relay, relayed: Context
) -> None:
    _run(plant, relay, relayed)


@pytest.mark.slow
def test_chunk_size_lines_counted_into_the_limit_are_caught(relay: Relay, relayed: Context) -> None:
    _run(next(p for p in PLANTS if p.name == LARGE), relay, relayed)
