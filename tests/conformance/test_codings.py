"""The checks of a batch in a transfer coding or a content coding catch their plants.

chunked-batch-answered-as-content-length sends one batch framed by Content-Length and chunked
and compares the answers (MB-INTER-5); content-coded-batch-runs-nothing sends a batch in a
coding no server decodes that would write into the sandbox (MB-INTER-6). The reference server
passes both; each plant of run.plants.codings fails its catcher under the requirement it breaks.
"""

from __future__ import annotations

import pytest

from mixbatch_conformance.checks import all_checks
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Verdict
from mixbatch_conformance.core.target import Target
from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants.codings import PLANTS
from mixbatch_conformance.run.runner import run_check
from mixbatch_conformance.run.selftest import judge_mutation
from mixbatch_conformance.transport.relay import Relay

CHECKS = {c.id: c for c in all_checks()}
#: The plant whose catcher sends the published max_batch_bytes (64 MiB) through the relay.
LARGE = "chunked-batch-limit-counts-chunk-lines"


@pytest.mark.parametrize(
    "check", ["chunked-batch-answered-as-content-length", "content-coded-batch-runs-nothing"]
)
def test_the_reference_server_passes(check: str, reference: Target) -> None:
    result = run_check(CHECKS[check], Context(reference))
    assert result.verdict is Verdict.PASS, result.message


def _run(plant: Mutation, relay: Relay, relayed: Context) -> None:
    outcome = judge_mutation(relay, relayed, plant)
    requirement = plant.breaks.split()[0]
    for catcher in plant.catchers:
        result = outcome.results[catcher]
        assert result.verdict is Verdict.FAIL, result.message
        assert requirement in {e.requirement for e in result.judge.failed}, result.message


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
