"""batch-summary-trailer judges a Batch-Summary trailer that is sent, in every mode.

The plants of run.plants.summary_trailer write a wrong trailer into the reference server's
answers through a relay that can write trailers: counts by status alone (a rolled-back 200
under ok), `failed` off by one, and a trailer not announced in `Trailer`. Each is reported at
the weight of MB-STATUS-8, a MAY (INFO). With nothing planted that relay passes no trailer on,
so the check is N/A through it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mixbatch_conformance.checks import all_checks
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Verdict
from mixbatch_conformance.core.target import Target
from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants.summary_trailer import TRAILER_PLANTS, TrailerRelay
from mixbatch_conformance.run.runner import run_check
from mixbatch_conformance.run.selftest import judge_mutation

CHECK = "batch-summary-trailer"


@pytest.fixture(scope="module")
def trailer_relay(reference_url: str) -> Iterator[TrailerRelay]:
    r = TrailerRelay(reference_url)
    r.start()
    yield r
    r.stop()


@pytest.fixture
def through(trailer_relay: TrailerRelay, reference: Target) -> Iterator[Context]:
    yield Context(reference.with_base_url(trailer_relay.url))
    trailer_relay.mutation = None


@pytest.mark.slow
def test_the_reference_servers_own_trailer_holds(reference: Target) -> None:
    check = {c.id: c for c in all_checks()}[CHECK]
    assert run_check(check, Context(reference)).verdict is Verdict.PASS


@pytest.mark.slow
@pytest.mark.parametrize("plant", TRAILER_PLANTS, ids=[p.name for p in TRAILER_PLANTS])
def test_a_wrong_trailer_is_reported(
    plant: Mutation, trailer_relay: TrailerRelay, through: Context
) -> None:
    outcome = judge_mutation(trailer_relay, through, plant)
    result = outcome.results[CHECK]
    assert result.verdict is Verdict.INFO, result.message
    assert "MB-STATUS-8" in result.message
