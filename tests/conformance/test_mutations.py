"""Proof that the suite can fail: planted bugs, each caught by the check meant for it.

The relay (mixbatch_conformance.transport.relay) fronts the reference server; each mutation in
run.mutations plants one bug and names the checks that must flag it. Before planting anything,
the relay must be transparent: every catcher passes through it. The mutation score
(caught/planted) is printed; every planted bug must be caught.
"""

from __future__ import annotations

import pytest

from mixbatch_conformance.checks import all_checks
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Verdict
from mixbatch_conformance.core.target import Target
from mixbatch_conformance.run.mutations import MUTATIONS, Mutation
from mixbatch_conformance.run.runner import run_check
from mixbatch_conformance.run.selftest import judge_mutations
from mixbatch_conformance.transport.relay import Relay

CHECKS = {c.id: c for c in all_checks()}
CATCHERS = sorted({c for m in MUTATIONS for c in m.catchers})


def test_every_mutation_names_existing_catchers() -> None:
    missing = {(m.name, c) for m in MUTATIONS for c in m.catchers if c not in CHECKS}
    assert not missing


def test_mutation_names_are_unique() -> None:
    names = [m.name for m in MUTATIONS]
    assert len(names) == len(set(names))


def test_relay_without_mutation_is_transparent(relayed: Context) -> None:
    verdicts = {c: run_check(CHECKS[c], relayed).verdict for c in CATCHERS}
    assert {c: v for c, v in verdicts.items() if v is not Verdict.PASS} == {}


@pytest.mark.parametrize("mutation", MUTATIONS, ids=[m.name for m in MUTATIONS])
def test_planted_bug_is_caught_by_its_check(
    mutation: Mutation, relay: Relay, relayed: Context
) -> None:
    relay.mutation = mutation
    results = {c: run_check(CHECKS[c], relayed) for c in mutation.catchers}
    missed = {
        c: f"{r.verdict.value}: {r.message}"
        for c, r in results.items()
        if r.verdict.value not in mutation.caught_by
    }
    assert missed == {}, f"{mutation.name} ({mutation.breaks}) slipped past {missed}"


def test_mutation_score(
    relay: Relay, reference: Target, capsys: pytest.CaptureFixture[str]
) -> None:
    outcomes = judge_mutations(relay, Context(reference.with_base_url(relay.url)))
    caught = sum(o.caught for o in outcomes)
    with capsys.disabled():
        print(f"\nmutation score: {caught}/{len(MUTATIONS)} planted bugs caught")
    assert caught == len(MUTATIONS)
