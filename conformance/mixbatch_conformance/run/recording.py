"""Running checks through a relay with a mutation planted, and recording what they exchanged:
what the value sweep and the input sweep share.

Theory of operation: both sweeps put a relay in front of the reference server
(`reference_relay`), run each check alone through it with a *recorder* as the relay's
mutation, and keep, for every slot the recorder noted, the checks that saw it and passed
(`record`). The value sweep's recorder notes the slots of answers, the input sweep's those of
requests; `record` is told how to make one and what to read from it. Each check then runs
under a corruption or a plant (`run_through`), always with a fresh Context, so that nothing a
mutation changed (a capabilities document) is remembered by the next check.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from contextlib import contextmanager

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Verdict
from mixbatch_conformance.core.registry import Check
from mixbatch_conformance.core.target import reference_target
from mixbatch_conformance.run.runner import CheckResult, run_check
from mixbatch_conformance.run.targets import with_published_profiles
from mixbatch_conformance.transport.embedded import embedded_server, server_only_command
from mixbatch_conformance.transport.relay import MutationLike, Relay

__all__ = [
    "NOTICED",
    "SWEPT_TIERS",
    "fresh_context",
    "record",
    "reference_relay",
    "run_through",
]

#: The tiers whose checks the sweeps run (the deep tier's budgets would only repeat them).
SWEPT_TIERS = ("smoke", "standard")

#: Verdicts that count as a corruption or a plant noticed.
NOTICED = frozenset({Verdict.FAIL, Verdict.WARN, Verdict.FLAKY})


def fresh_context(ctx: Context) -> Context:
    """`ctx` with its target's profiles read anew from what the (relayed) server publishes."""
    return Context(with_published_profiles(ctx.target), ctx.settings)


def run_through(relay: Relay, mutation: MutationLike, check: Check, ctx: Context) -> CheckResult:
    """Run `check` alone through `relay` with `mutation` planted, on a fresh copy of `ctx`."""
    relay.mutation = mutation
    try:
        return run_check(check, fresh_context(ctx))
    finally:
        relay.mutation = None


def record[R: MutationLike, S: Hashable](
    relay: Relay,
    ctx: Context,
    checks: Iterable[Check],
    recorder: Callable[[], R],
    seen: Callable[[R], Iterable[S]],
    kept: Callable[[R], None] | None = None,
) -> dict[S, list[str]]:
    """Run each of `checks` through `relay` with a new `recorder()` and return slot -> the
    checks that passed with `seen(recorder)` holding it, in the order of `checks`; hand the
    recorder of each check that passed to `kept`."""
    readers: dict[S, list[str]] = {}
    for check in checks:
        noted = recorder()
        if run_through(relay, noted, check, ctx).verdict is not Verdict.PASS:
            # A check that does not pass (or does not apply) says nothing when it fails.
            continue
        if kept is not None:
            kept(noted)
        for slot in seen(noted):
            readers.setdefault(slot, []).append(check.id)
    return readers


@contextmanager
def reference_relay() -> Iterator[tuple[Relay, Context]]:
    """The reference server alone, a relay in front of it, and a Context that reaches it
    through the relay with the profiles it publishes."""
    with embedded_server(server_only_command()) as url:
        relay = Relay(url)
        relay.start()
        try:
            yield (
                relay,
                Context(with_published_profiles(reference_target(url)).with_base_url(relay.url)),
            )
        finally:
            relay.stop()
