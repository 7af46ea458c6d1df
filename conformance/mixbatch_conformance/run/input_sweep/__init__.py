"""Every input the checks send is verified: make a server ignore each one and find a check
that fails.

Theory of operation: a check can send an input (a field, a preference, a method, a target's
shape, a spelling of any of them) whose effect it never compares with what the spec requires,
and a server that ignores that input then passes. The value sweep does this for the answers a
check reads; this sweep does it for the requests a check writes, without reading the checks:

1. A recording pass runs each smoke and standard check alone through a relay in front of the
   reference server and notes every *input slot* its requests to the batch endpoint carried
   (`_slots`): each top-level field, each part field, the top-level and part methods, each
   preference of a Prefer field (top-level and in parts), the shape of each part's target,
   and the spellings of these (a field name in an unusual case, a list field with several
   members, a field on several lines, whitespace around a part field's value, and the
   envelope's preamble, transport padding, quoted boundary, chunked framing and epilogue).
   Which checks sent a slot, and passed, is kept with it.
2. For each slot, a plant (`_plants`) edits the requests on their way in so that the server
   behaves as one that ignores the slot: the field dropped, the list cut to its first member,
   the target rewritten to what a server blind to its shape would make of it, the envelope
   spelling refused. The checks that sent the slot then run through the relay, in registry
   order, until one of them does not pass and cites the server requirement the slot serves
   (`_requirements`): declares it, or names it in a broken expectation. After the first that
   notices, the senders that declare the requirement run first. All of this runs within
   `MAX_CHECKS_PER_PLANT` checks and `PLANT_BUDGET_S` seconds per plant and `SWEEP_BUDGET_S`
   in all (`_sweep`).

A plant no check notices is an input the suite sends and does not verify; a plant noticed only
by checks citing other requirements is one a report would file under the wrong requirement.
`UNSWEPT` names the slots a server may ignore, each with the spec's reason; `SPEC_INPUTS` lists
the inputs the spec gives a server a rule for, so that the report also names those no check
sends (`never_sent`).
"""

from __future__ import annotations

from mixbatch_conformance.run.input_sweep._catalog import SPEC_INPUTS, UNSWEPT, SpecInput
from mixbatch_conformance.run.input_sweep._plants import Plant, plants_for
from mixbatch_conformance.run.input_sweep._requirements import (
    KIND_REQUIREMENTS,
    NO_SERVER_REQUIREMENT,
    PLANT_REQUIREMENTS,
    slot_requirement,
)
from mixbatch_conformance.run.input_sweep._slots import Slot, request_slots
from mixbatch_conformance.run.input_sweep._sweep import (
    FAILING_STATUSES,
    MAX_CHECKS_PER_PLANT,
    PLANT_BUDGET_S,
    SWEEP_BUDGET_S,
    PlantOutcome,
    main,
    record,
    sweep,
    sweep_reference,
)

__all__ = [
    "FAILING_STATUSES",
    "KIND_REQUIREMENTS",
    "MAX_CHECKS_PER_PLANT",
    "NO_SERVER_REQUIREMENT",
    "PLANT_BUDGET_S",
    "PLANT_REQUIREMENTS",
    "SPEC_INPUTS",
    "SWEEP_BUDGET_S",
    "UNSWEPT",
    "Plant",
    "PlantOutcome",
    "Slot",
    "SpecInput",
    "main",
    "plants_for",
    "record",
    "request_slots",
    "slot_requirement",
    "sweep",
    "sweep_reference",
]
