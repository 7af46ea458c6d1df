"""The check model and the registry every check module adds its checks to.

Theory of operation: a `Check` is data plus a predicate. Its `id` is a stable slug chosen by
hand (never derived from position or order), `requirements` are IDs from
spec/requirements.json, `profile` says which claimed profile makes it applicable, `tier`
says from which tier on it runs, and `run(ctx, judge)` sends traffic and states
expectations. Severity is not declared: it is the strongest keyword among the requirements
(MUST -> FAIL, SHOULD -> WARN, MAY -> INFO), so a check cannot be stricter than its spec.

A check also declares what it needs from the run, and the runner reads only these fields:
- `state`: what it may do to the target's state (`State`); a check that needs a disposable
  target is N/A against one the suite did not start;
- `roles`: the roles a target must play for the check to apply (a batching proxy is also a
  server, so most checks name both);
- `direct_only`: why the check cannot be judged through an intermediary (None when it can),
  so a run through one reports it N/A with that reason.
Nothing about where or how a check runs is read from the words of its id.

Check modules (the `checks` package) call `register` or `checker` at import; the catalog in
`mixbatch_conformance.checks` imports them and orders the result.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable
from dataclasses import dataclass

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.requirements import RequirementIndex, Severity, load_index
from mixbatch_conformance.core.settings import TIERS

__all__ = [
    "BOTH_ROLES",
    "ROLES",
    "TIERS",
    "Check",
    "State",
    "checker",
    "register",
    "registered",
]

SLUG = re.compile(r"[a-z0-9]+(?:[-.][a-z0-9]+)*")
#: Roles a target can play (spec 2.2's conformance classes the suite tests).
ROLES = ("server", "proxy")
#: A check about batch handling applies to a server and to a batching proxy alike.
BOTH_ROLES = ("server", "proxy")

RunFn = Callable[[Context, Judge], None]


class State(enum.Enum):
    """What a check may do to the state of the target it tests."""

    #: Sends only requests that change nothing (safe methods, or the echo resource).
    READ_ONLY = "read-only"
    #: Creates, replaces or deletes members of the declared sandbox collection only.
    WRITES_IN_SANDBOX = "writes-in-sandbox"
    #: Writes where the target declared no sandbox: only a target the suite started itself.
    NEEDS_DISPOSABLE_TARGET = "needs-disposable-target"


@dataclass(frozen=True)
class Check:
    """One conformance check."""

    id: str
    requirements: tuple[str, ...]
    profile: str
    tier: str
    description: str
    run: RunFn
    state: State
    roles: tuple[str, ...]
    direct_only: str | None = None
    #: Draws hypothesis examples: the deep tier shares its property budget among these checks.
    draws_examples: bool = False

    def __post_init__(self) -> None:
        if not SLUG.fullmatch(self.id):
            raise ValueError(f"check id {self.id!r} is not a lower-case slug")
        if not self.requirements:
            raise ValueError(f"check {self.id!r} names no requirement")
        if self.tier not in TIERS:
            raise ValueError(f"check {self.id!r}: tier {self.tier!r} not in {TIERS}")
        if not self.description.endswith("."):
            raise ValueError(f"check {self.id!r}: description must be a sentence ending in '.'")
        if not isinstance(self.state, State):
            raise ValueError(f"check {self.id!r}: state {self.state!r} is not a State")
        if not self.roles or not set(self.roles) <= set(ROLES):
            raise ValueError(f"check {self.id!r}: roles {self.roles!r} not a subset of {ROLES}")
        if self.direct_only is not None and not self.direct_only.strip():
            raise ValueError(
                f"check {self.id!r}: direct_only must say why, got {self.direct_only!r}"
            )

    def severity(self, index: RequirementIndex | None = None) -> Severity:
        idx = index or load_index()
        return max((idx.get(r).severity for r in self.requirements), key=lambda s: s.rank)


_REGISTRY: dict[str, Check] = {}


def register(check: Check) -> Check:
    """Add a check; a second check with the same id is a programming error."""
    if check.id in _REGISTRY and _REGISTRY[check.id] is not check:
        raise ValueError(f"duplicate check id {check.id!r}")
    _REGISTRY[check.id] = check
    return check


def checker(
    id: str,
    requirements: tuple[str, ...],
    description: str,
    *,
    state: State,
    roles: tuple[str, ...] = BOTH_ROLES,
    direct_only: str | None = None,
    profile: str = "core",
    tier: str = "smoke",
    draws_examples: bool = False,
) -> Callable[[RunFn], RunFn]:
    """Decorator form of `register` for checks written as functions."""

    def wrap(fn: RunFn) -> RunFn:
        register(
            Check(
                id,
                requirements,
                profile,
                tier,
                description,
                fn,
                state=state,
                roles=roles,
                direct_only=direct_only,
                draws_examples=draws_examples,
            )
        )
        return fn

    return wrap


def registered() -> list[Check]:
    """Every check registered so far, in registration order."""
    return list(_REGISTRY.values())
