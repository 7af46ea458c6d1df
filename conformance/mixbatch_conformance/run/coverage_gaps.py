"""Server requirements no check verifies, each with the reason, and the test for new gaps.

Theory of operation: the coverage matrix lists every requirement with the checks that name it
and the planted violations that break it (run.plants). A plantable server requirement (MUST,
MUST NOT, SHOULD, SHOULD NOT) that no check names is a gap; the few that are gaps on purpose
are listed here with the reason, so that the report can say why, and
`unchecked_requirements` returns only the gaps nobody explained (the self-test keeps it
empty).
"""

from __future__ import annotations

from collections.abc import Iterable

from mixbatch_conformance.core.registry import Check
from mixbatch_conformance.core.requirements import RequirementIndex, load_index
from mixbatch_conformance.run.plants import plantable_requirements

__all__ = ["UNCHECKED", "unchecked_requirements"]

#: Requirement -> why no check verifies it.
UNCHECKED: dict[str, str] = {
    "MB-LIMIT-6": (
        "the in-flight budget is reached only by concurrent load, which the conformance tiers "
        "do not send; tests/adversarial floods the reference server directly"
    ),
}


def unchecked_requirements(
    checks: Iterable[Check], index: RequirementIndex | None = None
) -> list[str]:
    """Plantable server requirements no check names and UNCHECKED does not explain."""
    named = {rid for c in checks for rid in c.requirements}
    return [
        r
        for r in plantable_requirements(index or load_index())
        if r not in named and r not in UNCHECKED
    ]
