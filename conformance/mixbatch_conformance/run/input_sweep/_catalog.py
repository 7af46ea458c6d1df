"""What the sweep may leave unnoticed, and the inputs the spec gives a server a rule for.

`UNSWEPT` names slots a server may ignore without breaking the spec, each with the spec's
reason. `SPEC_INPUTS` is the curated list of inputs the spec names, each with the requirement
that gives a server a rule for it; `never_sent` is the part of it no check sends.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SPEC_INPUTS", "UNSWEPT", "SpecInput", "never_sent"]

#: Slots no check need notice when a server ignores them, with the reason.
UNSWEPT: dict[str, str] = {}


@dataclass(frozen=True)
class SpecInput:
    """An input the spec gives a server a rule for, as the slot it would be recorded as."""

    slot: str
    requirement: str
    rule: str


SPEC_INPUTS: tuple[SpecInput, ...] = ()


def never_sent(recorded: set[object]) -> list[dict[str, str]]:
    """The spec's inputs whose slot no check sent."""
    seen = {str(s) for s in recorded}
    return [
        {"input": i.slot, "requirement": i.requirement, "rule": i.rule}
        for i in SPEC_INPUTS
        if i.slot not in seen
    ]
