"""The suite's own detection power: planted bugs (run.plants) and the checks that catch them.

Theory of operation: `mutation_score()` starts the reference server alone (no suite process
around it), puts the relay in front of it, plants each planted bug in turn and runs that
plant's catchers through the relay, each plant with a fresh Context whose target has the profiles the planted variant publishes, so
that nothing a plant changed (a capabilities document) is remembered for the next. A plant is caught when
every catcher gives one of the verdicts it names (FAIL or FLAKY unless it says otherwise),
and it is caught for its reason when a catcher cites the requirement the plant breaks: the
catcher declares it, or one of its broken expectations names it. The published score and the
self-test use this one function, so they cannot count differently.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mixbatch_conformance.checks import all_checks
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.target import reference_target
from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants import PLANTS, requirement_of
from mixbatch_conformance.run.runner import CheckResult, run_check
from mixbatch_conformance.run.targets import with_published_profiles
from mixbatch_conformance.transport.embedded import embedded_server, server_only_command
from mixbatch_conformance.transport.relay import Relay

__all__ = [
    "MutationOutcome",
    "judge_mutation",
    "judge_mutations",
    "mutation_score",
    "one_per_requirement",
]


@dataclass(frozen=True)
class MutationOutcome:
    """One planted bug and what each of its catchers made of it."""

    mutation: Mutation
    results: dict[str, CheckResult]

    @property
    def verdicts(self) -> dict[str, str]:
        return {c: r.verdict.value for c, r in self.results.items()}

    @property
    def caught(self) -> bool:
        return all(v in self.mutation.caught_by for v in self.verdicts.values())

    @property
    def cited(self) -> bool:
        """Whether a catcher cites the requirement the plant breaks."""
        wanted = requirement_of(self.mutation)
        return any(
            wanted in r.check.requirements or any(e.requirement == wanted for e in r.judge.failed)
            for r in self.results.values()
        )


def judge_mutation(relay: Relay, ctx: Context, mutation: Mutation) -> MutationOutcome:
    """Plant `mutation` in `relay` and run its catchers through a fresh copy of `ctx`."""
    checks = {c.id: c for c in all_checks()}
    relay.mutation = mutation
    try:
        # The variant server publishes its own capabilities (a plant may change them).
        fresh = Context(with_published_profiles(ctx.target), ctx.settings)
        return MutationOutcome(
            mutation, {c: run_check(checks[c], fresh) for c in mutation.catchers}
        )
    finally:
        relay.mutation = None


def judge_mutations(
    relay: Relay, ctx: Context, plants: Sequence[Mutation] = PLANTS
) -> list[MutationOutcome]:
    """Plant each of `plants` in `relay` in turn and run its catchers through `ctx`."""
    return [judge_mutation(relay, ctx, m) for m in plants]


def one_per_requirement(plants: Sequence[Mutation] = PLANTS) -> list[Mutation]:
    """One plant per requirement, the same every time: the first in table order whose
    catchers all run in the smoke tier, else the first. The quick self-test runs these."""
    tiers = {c.id: c.tier for c in all_checks()}
    chosen: dict[str, Mutation] = {}
    for m in plants:
        req = requirement_of(m)
        quick = all(tiers.get(c) == "smoke" for c in m.catchers)
        held = chosen.get(req)
        if held is None or (quick and not all(tiers.get(c) == "smoke" for c in held.catchers)):
            chosen[req] = m
    return [m for m in plants if m in chosen.values()]


def mutation_score() -> list[MutationOutcome]:
    """Start the reference server and a relay, and judge every planted bug through them."""
    with embedded_server(server_only_command()) as url:
        relay = Relay(url)
        relay.start()
        try:
            ctx = Context(with_published_profiles(reference_target(url)).with_base_url(relay.url))
            return judge_mutations(relay, ctx)
        finally:
            relay.stop()
