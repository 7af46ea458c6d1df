"""The server requirement each input slot serves: the one a check must cite when it notices a
server that ignores the slot.

A slot `SPEC_INPUTS` names takes the requirement given there. A spelling (`@name-case`, `@ows`,
`@list`, `@repeated`) serves the requirement of the input it spells: a server that ignores a
field because its name is in upper case ignores the field. Any other slot takes its kind's
requirement from `KIND_REQUIREMENTS`. A plant that models a server other than one ignoring the
input (`PLANT_REQUIREMENTS`) breaks its own requirement, whatever the slot. Where no server
requirement governs a slot,
`NO_SERVER_REQUIREMENT` says why, and a check that notices its plant is enough.
"""

from __future__ import annotations

from fnmatch import fnmatchcase

from mixbatch_conformance.run.input_sweep._catalog import SPEC_INPUTS
from mixbatch_conformance.run.input_sweep._slots import (
    PART_FIELD,
    PART_METHOD,
    PART_PREFER,
    TARGET,
    TOP_METHOD,
    Slot,
)

__all__ = [
    "KIND_REQUIREMENTS",
    "NO_SERVER_REQUIREMENT",
    "PLANT_REQUIREMENTS",
    "no_requirement_reason",
    "slot_requirement",
]

#: The requirement of a slot of each kind that `SPEC_INPUTS` does not name, with its sentence.
KIND_REQUIREMENTS: dict[str, tuple[str, str]] = {
    PART_FIELD: (
        "MB-PART-8",
        "'A receiver MUST take a request part's header fields other than Http-Method and "
        "Content-Id as the sub-request's header fields, in order'",
    ),
    PART_PREFER: (
        "MB-PART-8",
        "a part's Prefer is one of the sub-request's header fields like any other",
    ),
    PART_METHOD: (
        "MB-SUB-1",
        "'A server MUST subject each sub-request to the same routing ... as the same request sent "
        "alone', whose method is the part's, octet for octet (3.2.4)",
    ),
    TARGET: (
        "MB-PART-5",
        "'A receiver MUST resolve the reference inside Content-Id against the batch request's "
        "target URI'",
    ),
    TOP_METHOD: (
        "MB-METHOD-2",
        "'A server answers other methods on the batch endpoint with 405 and an Allow field'",
    ),
}

#: Plants that model a server reading the input but misplacing what follows it, with the
#: requirement that breaks and its sentence.
PLANT_REQUIREMENTS: dict[str, tuple[str, str]] = {
    "strip": (
        "MB-STATUS-4",
        "a batch error names 'the part index and byte offset where known': a server that drops "
        "the preamble or padding before reading counts its offsets from the wrong octet",
    ),
}

#: Slots no server requirement governs, with why (fnmatch patterns, as in `UNSWEPT`, never
#: covering a slot `SPEC_INPUTS` names or spells).
NO_SERVER_REQUIREMENT: dict[str, str] = {
    "top-method:POST": (
        "MB-METHOD-1 binds the client ('A client sends a batch with content with the POST "
        "method'); no requirement says a server accepts POST, since every requirement on a "
        "batch's processing presumes it, so any check that notices is enough"
    ),
    "top-field:*": (
        "MB-SUB-6 keeps the batch request's other fields from the parts and gives them no "
        "rule of their own"
    ),
    "prefer:*": (
        "RFC 7240 §2 lets a server ignore a preference it does not support; mixbatch gives a "
        "rule only for batch-on-error"
    ),
}


def _named(slot: Slot) -> str | None:
    name = str(slot)
    return next((i.requirement for i in SPEC_INPUTS if i.slot == name), None)


def no_requirement_reason(slot: Slot, how: str = "") -> str | None:
    """Why no server requirement governs `slot` (planted as `how`), or None when one does."""
    if slot_requirement(slot, how) is not None:
        return None
    name = str(slot)
    for pattern, reason in NO_SERVER_REQUIREMENT.items():
        if fnmatchcase(name, pattern) or fnmatchcase(str(slot.plain), pattern):
            return reason
    return "no server requirement names this input"


def slot_requirement(slot: Slot, how: str = "") -> str | None:
    """The server requirement a check must cite when it notices `slot` planted as `how`, or
    None."""
    if how in PLANT_REQUIREMENTS:
        return PLANT_REQUIREMENTS[how][0]
    named = _named(slot) or (_named(slot.plain) if slot.spelling else None)
    if named is not None:
        return named
    if any(fnmatchcase(str(slot.plain), p) for p in NO_SERVER_REQUIREMENT):
        return None
    kind = KIND_REQUIREMENTS.get(slot.kind)
    return kind[0] if kind else None
