"""The checks, one module per spec topic, and the catalog that finds them.

Theory of operation: every module of this package registers its checks with `core.registry`
when imported; the `_shared` subpackage holds the helpers several check modules use (check
modules never import each other). `all_checks()` imports every module that
`pkgutil.iter_modules` finds here, so a new topic is a new file and nothing lists it by
hand; importing this package alone imports no check module, which keeps the pytest plugin and
`--help` cheap. The order is fixed: by tier, then by id.
"""

from __future__ import annotations

import importlib
import pkgutil

from mixbatch_conformance.core.registry import Check, registered
from mixbatch_conformance.core.settings import TIERS

__all__ = ["all_checks", "check_modules", "select"]


def check_modules() -> list[str]:
    """The dotted names of the check modules, found on disk (helpers excluded)."""
    return sorted(
        f"{__name__}.{info.name}"
        for info in pkgutil.iter_modules(__path__)
        if not info.name.startswith("_") and not info.ispkg
    )


def all_checks() -> list[Check]:
    """Every check, by tier, then by id."""
    for module in check_modules():
        importlib.import_module(module)
    return sorted(registered(), key=lambda c: (TIERS.index(c.tier), c.id))


def select(tier: str, only: list[str] | None = None) -> list[Check]:
    """Checks that run in `tier` (every lower tier's too), optionally filtered by id prefix."""
    if tier not in TIERS:
        raise ValueError(f"tier must be one of {TIERS}, got {tier!r}")
    limit = TIERS.index(tier)
    chosen = [c for c in all_checks() if TIERS.index(c.tier) <= limit]
    if only:
        chosen = [c for c in chosen if any(c.id == o or c.id.startswith(o) for o in only)]
    return chosen
