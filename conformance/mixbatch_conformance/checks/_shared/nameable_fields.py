"""Which field of a response part a reference may name (spec 7.7), picked the same way by every
reference check that learns it from the server.

Spec 7.7: `$(N:name)` stands for "the value of the response field `name` of part N, as
received"; a field on more than one line is no value (MB-PROC-20), and the fields MB-RESP-4
drops and the mixbatch part fields are not fields of the sub-response.
"""

from __future__ import annotations

from mixbatch_conformance.core.representations import DROPPED_FIELDS
from mixbatch_conformance.core.validator import Part

__all__ = ["NOT_NAMEABLE", "PREFERRED", "nameable"]

#: The fields a reference names first, when the response part carries them.
PREFERRED = ("ETag", "Location", "Last-Modified", "Content-Type")
#: Fields no reference may name, whatever part it names.
NOT_NAMEABLE = DROPPED_FIELDS | {"http-status-code", "content-id", "batch-outcome"}


def nameable(part: Part) -> str | None:
    """A field the response part carries on exactly one line, that a reference may name."""
    counts: dict[str, int] = {}
    names: dict[str, str] = {}
    for name, _ in part.fields:
        low = name.lower()
        if low in NOT_NAMEABLE:
            continue
        counts[low] = counts.get(low, 0) + 1
        names.setdefault(low, name)
    single = [low for low, n in counts.items() if n == 1]
    for want in PREFERRED:
        if want.lower() in single:
            return want
    return names[single[0]] if single else None
