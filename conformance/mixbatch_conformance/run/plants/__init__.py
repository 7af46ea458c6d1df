"""Planted violations, as data: requirement -> plant -> the checks that must catch it.

Theory of operation: every server requirement of spec/requirements.json (MUST, MUST NOT,
SHOULD, SHOULD NOT) has at least one plant, a `run.mutations.Mutation` whose `breaks` starts
with the requirement ID and names the way it breaks it ("MB-WIRE-4 over-long"), and whose
catchers are check ids; at least one catcher cites that requirement. Where one requirement
can break in distinct ways (a limit off by one, a wrong count, a wrong representation), each
way is its own plant. A requirement no plant can break through the relay is listed in
`UNPLANTED` with the reason, so that the coverage matrix shows it and says why.

The self-test (`run.selftest`) plants each one in the relay in front of the reference server
and runs only its catchers; `PLANTS` is what it walks.
"""

from __future__ import annotations

from mixbatch_conformance.core.requirements import RequirementIndex, load_index
from mixbatch_conformance.run.mutations import MUTATIONS, Mutation
from mixbatch_conformance.run.plants import forms, modes, parts, processing, responses, wire

__all__ = [
    "PLANTABLE_KEYWORDS",
    "PLANTS",
    "UNPLANTED",
    "plantable_requirements",
    "planted_coverage",
    "planted_requirements",
    "requirement_of",
    "unplanted_requirements",
]

#: The keywords a planted violation can break (a MAY cannot be violated).
PLANTABLE_KEYWORDS = frozenset({"MUST", "MUST NOT", "SHOULD", "SHOULD NOT"})

#: Every planted violation: the hand-written originals first, then the tables by area.
PLANTS: tuple[Mutation, ...] = (
    MUTATIONS
    + wire.PLANTS
    + parts.PLANTS
    + responses.PLANTS
    + forms.PLANTS
    + processing.PLANTS
    + modes.PLANTS
)

#: Server requirements no plant breaks, each with the reason (the coverage matrix lists them).
UNPLANTED: dict[str, str] = {
    "MB-PROC-4": (
        "streaming is observed in time, and the relay re-frames every answer with "
        "Content-Length after reading all of it, so a server that buffers looks the same"
    ),
    "MB-PIPE-1": (
        "the relay answers the requests of one connection one at a time, in order, so it "
        "cannot reorder pipelined answers; tests/server covers the server's own pipeline"
    ),
    "MB-LIMIT-6": (
        "the budget of batches in flight is reached only under concurrent load, which the "
        "conformance tiers do not send; tests/adversarial floods the server directly"
    ),
}


def requirement_of(plant: Mutation) -> str:
    """The requirement a plant breaks: the first word of its `breaks`."""
    return plant.breaks.split()[0]


def planted_requirements() -> set[str]:
    return {requirement_of(p) for p in PLANTS}


def plantable_requirements(index: RequirementIndex | None = None) -> list[str]:
    """The server requirements a plant could break, in index order."""
    idx = index or load_index()
    return [r.id for r in idx.for_role("server") if r.keyword in PLANTABLE_KEYWORDS]


def unplanted_requirements(index: RequirementIndex | None = None) -> list[str]:
    """Plantable server requirements with no plant and no reason in UNPLANTED."""
    planted = planted_requirements()
    return [r for r in plantable_requirements(index) if r not in planted and r not in UNPLANTED]


def planted_coverage(index: RequirementIndex | None = None) -> dict[str, list[str] | str | None]:
    """Plantable requirement -> its plants' names, the reason it has none, or None (a gap)."""
    idx = index or load_index()
    by_req: dict[str, list[str]] = {}
    for p in PLANTS:
        by_req.setdefault(requirement_of(p), []).append(p.name)
    return {r: by_req.get(r) or UNPLANTED.get(r) for r in plantable_requirements(idx)}
