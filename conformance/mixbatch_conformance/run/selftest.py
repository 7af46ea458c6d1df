"""The suite's own detection power: planted bugs (run.mutations) and the checks that catch them.

Theory of operation: `mutation_score()` starts the reference server alone (no suite process
around it), puts the relay in front of it, plants each mutation in turn and runs that
mutation's catchers through the relay. A mutation is caught when every catcher gives one of
the verdicts it names (FAIL or FLAKY unless it says otherwise). The published score and the
self-test use this one function, so they cannot count differently.
"""

from __future__ import annotations

from dataclasses import dataclass

from mixbatch_conformance.checks import all_checks
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.target import reference_target
from mixbatch_conformance.run.mutations import MUTATIONS, Mutation
from mixbatch_conformance.run.runner import run_check
from mixbatch_conformance.run.targets import with_published_profiles
from mixbatch_conformance.transport.embedded import embedded_server, server_only_command
from mixbatch_conformance.transport.relay import Relay

__all__ = ["MutationOutcome", "judge_mutations", "mutation_score"]


@dataclass(frozen=True)
class MutationOutcome:
    """One planted bug and the verdict each of its catchers gave."""

    mutation: Mutation
    verdicts: dict[str, str]

    @property
    def caught(self) -> bool:
        return all(v in self.mutation.caught_by for v in self.verdicts.values())


def judge_mutations(relay: Relay, ctx: Context) -> list[MutationOutcome]:
    """Plant each mutation in `relay` in turn and run its catchers through `ctx`."""
    checks = {c.id: c for c in all_checks()}
    outcomes = []
    try:
        for m in MUTATIONS:
            relay.mutation = m
            verdicts = {c: run_check(checks[c], ctx).verdict.value for c in m.catchers}
            outcomes.append(MutationOutcome(m, verdicts))
    finally:
        relay.mutation = None
    return outcomes


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
