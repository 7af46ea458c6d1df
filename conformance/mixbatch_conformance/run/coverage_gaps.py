"""Server requirements no check verifies, each with the reason, and the test for new gaps.

Theory of operation: the coverage matrix lists every requirement with the checks that name it
and the planted violations that break it (run.plants). A plantable server requirement (MUST,
MUST NOT, SHOULD, SHOULD NOT) that no check names is a gap. `UNCHECKED` is where a gap kept on
purpose would be explained, so that the report could say why; it is empty, every server
requirement has a check, and the self-test keeps it so (`unchecked_requirements` returns the
gaps nobody explained, and tests/conformance/test_plant_coverage.py also refuses any entry
here).
"""

from __future__ import annotations

from collections.abc import Iterable

from mixbatch_conformance.core.registry import Check
from mixbatch_conformance.core.requirements import RequirementIndex, load_index
from mixbatch_conformance.run.plants import plantable_requirements

__all__ = ["UNCHECKED", "unchecked_requirements"]

#: Requirement -> why no check verifies it.
UNCHECKED: dict[str, str] = {}


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
