"""Assertions the plant tests share: a check passes on the reference server (or a plant's
catchers through the relay, unplanted), and a plant is caught by each of its catchers under the
requirement it breaks, or by all of them with one citing it."""

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


#: Each catcher's verdict through a relay with nothing planted, by relay, target and catcher:
#: plants that share a catcher and run on one worker run it unplanted once there, not once for
#: each of them.
_UNPLANTED: dict[tuple[int, str, str], Verdict] = {}


def assert_catchers_pass_unplanted(
    plant: Mutation,
    relay: Relay,
    relayed: Context,
    allowed: Collection[Verdict] = (Verdict.PASS,),
) -> None:
    """Each catcher of `plant` passes through the relay with nothing planted (or ends in
    another of the `allowed` verdicts)."""
    relay.mutation = None
    clean = {}
    for catcher in plant.catchers:
        key = (id(relay), repr(relayed.target), catcher)
        if key not in _UNPLANTED:
            _UNPLANTED[key] = run_check(CHECKS[catcher], relayed).verdict
        clean[catcher] = _UNPLANTED[key]
    assert all(v in allowed for v in clean.values()), clean


def assert_caught_under_requirement(
    plant: Mutation,
    relay: Relay,
    relayed: Context,
    verdicts: Collection[str] | None = None,
    *,
    each_catcher: bool = True,
) -> None:
    """Each catcher of `plant` ends in one of `verdicts` (the plant's own `caught_by` when
    None) with a broken expectation naming the requirement the plant breaks. Without
    `each_catcher`, one catcher citing it is enough: declaring it, or naming it in a broken
    expectation (as the published score counts a plant caught for its reason)."""
    outcome = judge_mutation(relay, relayed, plant)
    requirement = plant.breaks.split()[0]
    for catcher in plant.catchers:
        result = outcome.results[catcher]
        assert result.verdict.value in (verdicts or plant.caught_by), f"{catcher}: {result.message}"
        if each_catcher:
            assert requirement in {e.requirement for e in result.judge.failed}, result.message
    assert each_catcher or outcome.cited, f"no catcher cites {requirement}: {outcome.verdicts}"
