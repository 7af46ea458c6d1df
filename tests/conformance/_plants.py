"""Assertions the plant tests share: a check passes on the reference server, and a plant is
caught by each of its catchers under the requirement it breaks."""

from __future__ import annotations

from collections.abc import Collection

from mixbatch_conformance.checks import all_checks
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Verdict
from mixbatch_conformance.core.target import Target
from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.runner import run_check
from mixbatch_conformance.run.selftest import judge_mutation
from mixbatch_conformance.transport.relay import Relay

CHECKS = {c.id: c for c in all_checks()}


def assert_passes(check: str, reference: Target) -> None:
    """`check` passes against the reference server with nothing planted."""
    result = run_check(CHECKS[check], Context(reference))
    assert result.verdict is Verdict.PASS, result.message


def assert_caught_under_requirement(
    plant: Mutation, relay: Relay, relayed: Context, verdicts: Collection[str] | None = None
) -> None:
    """Each catcher of `plant` ends in one of `verdicts` (the plant's own `caught_by` when
    None) with a broken expectation naming the requirement the plant breaks."""
    outcome = judge_mutation(relay, relayed, plant)
    requirement = plant.breaks.split()[0]
    for catcher in plant.catchers:
        result = outcome.results[catcher]
        assert result.verdict.value in (verdicts or plant.caught_by), result.message
        assert requirement in {e.requirement for e in result.judge.failed}, result.message
