"""The check model and the registry of every check the suite knows.

Theory of operation: a `Check` is data plus a predicate. Its `id` is a stable slug chosen by
hand (never derived from position or order), `requirements` are IDs from
spec/requirements.json, `profile` says which claimed profile makes it applicable, `tier`
says from which tier on it runs, and `run(ctx, judge)` sends traffic and states
expectations. Severity is not declared: it is the strongest keyword among the requirements
(MUST -> FAIL, SHOULD -> WARN, MAY -> INFO), so a check cannot be stricter than its spec.

Check modules register themselves with `register` at import; `all_checks()` imports them
lazily (so the pytest plugin can import this module cheaply) and returns them in a fixed
order: by tier, then by id.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass

from mixbatch_conformance._context import Context
from mixbatch_conformance._judge import Judge
from mixbatch_conformance._requirements import RequirementIndex, Severity, load_index

__all__ = ["CHECK_MODULES", "TIERS", "Check", "all_checks", "checker", "register", "select"]

TIERS = ("smoke", "standard", "deep")
SLUG = re.compile(r"[a-z0-9]+(?:[-.][a-z0-9]+)*")
CHECK_MODULES = (
    "mixbatch_conformance.checks_corpus",
    "mixbatch_conformance.checks_envelope",
    "mixbatch_conformance.checks_semantics",
    "mixbatch_conformance.checks_policies",
    "mixbatch_conformance.checks_properties",
    "mixbatch_conformance.checks_statemachine",
    "mixbatch_conformance.checks_credentials",
    "mixbatch_conformance.checks_proxy",
    "mixbatch_conformance.checks_abort",
)

RunFn = Callable[[Context, Judge], None]


@dataclass(frozen=True)
class Check:
    """One conformance check."""

    id: str
    requirements: tuple[str, ...]
    profile: str
    tier: str
    description: str
    run: RunFn
    kind: str = "required"

    def __post_init__(self) -> None:
        if not SLUG.fullmatch(self.id):
            raise ValueError(f"check id {self.id!r} is not a lower-case slug")
        if not self.requirements:
            raise ValueError(f"check {self.id!r} names no requirement")
        if self.tier not in TIERS:
            raise ValueError(f"check {self.id!r}: tier {self.tier!r} not in {TIERS}")
        if not self.description.endswith("."):
            raise ValueError(f"check {self.id!r}: description must be a sentence ending in '.'")

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
    profile: str = "core",
    tier: str = "smoke",
) -> Callable[[RunFn], RunFn]:
    """Decorator form of `register` for checks written as functions."""

    def wrap(fn: RunFn) -> RunFn:
        register(Check(id, requirements, profile, tier, description, fn))
        return fn

    return wrap


def all_checks() -> list[Check]:
    for module in CHECK_MODULES:
        importlib.import_module(module)
    return sorted(_REGISTRY.values(), key=lambda c: (TIERS.index(c.tier), c.id))


def select(tier: str, only: list[str] | None = None) -> list[Check]:
    """Checks that run in `tier` (every lower tier's too), optionally filtered by id prefix."""
    if tier not in TIERS:
        raise ValueError(f"tier must be one of {TIERS}, got {tier!r}")
    limit = TIERS.index(tier)
    chosen = [c for c in all_checks() if TIERS.index(c.tier) <= limit]
    if only:
        chosen = [c for c in chosen if any(c.id == o or c.id.startswith(o) for o in only)]
    return chosen
