"""Planted violations of the continue policy (spec 7.4, MB-PROC-5): a server that takes
something other than a batch-on-error preference as a reason to skip parts.

One plant reads any other preference (handling=strict, return=minimal, an unknown one) as a
request for stop; another stops a batch when a part targets what an earlier unsafe part
targeted, as if the later part depended on it; a third takes a part's own Prefer field for the
batch's preference; a fourth takes a part answered with a status that speaks of the
batch's credentials, a conflict or the server's state (401, 403, 407, 409, 429, 431, 451,
503, 511) as the end of the batch, under no preference or an explicit continue. Each turns the request into a stop batch before
the reference server sees it, so later parts after a failing one come back skipped.

The same mistake the other way round breaks the stop policy (MB-PROC-6): a part's own
`Prefer: batch-on-error=continue` taken as the batch's last word on the policy, so a stop batch
with such a part runs on after its failing part.
"""

from __future__ import annotations

import re

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import boundary_of, field_of, is_batch, parts_of
from mixbatch_conformance.transport.relay import RelayRequest

__all__ = ["PLANTS"]

#: Methods RFC 9110 §9.2.1 does not define as safe.
_UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def _prefers(req: RelayRequest) -> list[str]:
    return [v for n, v in req.headers if n.lower() == "prefer"]


def _asks_policy(req: RelayRequest) -> bool:
    return any("batch-on-error" in v.lower() for v in _prefers(req))


def _stop(req: RelayRequest) -> None:
    req.headers.append(("Prefer", "batch-on-error=stop"))


def _other_preference_as_stop(req: RelayRequest) -> None:
    """Any Prefer field without batch-on-error taken as a request for the stop policy."""
    if is_batch(req) and _prefers(req) and not _asks_policy(req):
        _stop(req)


def _dependent_parts_stop(req: RelayRequest) -> None:
    """A batch where a part targets what an earlier unsafe part targeted runs under stop."""
    b = boundary_of(req)
    parts = parts_of(req.body, b) if b and is_batch(req) and not _asks_policy(req) else None
    written: set[str] = set()
    for fields, _ in parts or []:
        target = field_of(fields, "Content-Id") or ""
        if target in written:
            _stop(req)
            return
        if (field_of(fields, "Http-Method") or "").upper() in _UNSAFE:
            written.add(target)


def _part_preference_as_batch(req: RelayRequest) -> None:
    """A part's own Prefer: batch-on-error=stop taken as the batch's preference."""
    b = boundary_of(req)
    parts = parts_of(req.body, b) if b and is_batch(req) and not _asks_policy(req) else None
    if any("batch-on-error" in (field_of(f, "Prefer") or "").lower() for f, _ in parts or []):
        _stop(req)


def _part_continue_lifts_stop(req: RelayRequest) -> None:
    """A stop batch holding a part whose Prefer asks for continue runs under continue: the
    part's preference taken as the later, and so the winning, one."""
    if not is_batch(req) or not any("stop" in v.lower() for v in _prefers(req)):
        return
    b = boundary_of(req)
    parts = parts_of(req.body, b) if b else None
    asks = (
        re.search(r"(?i)batch-on-error\s*=\s*continue", field_of(f, "Prefer") or "")
        for f, _ in parts or []
    )
    if any(asks):
        req.headers[:] = [
            (n, v)
            for n, v in req.headers
            if not (n.lower() == "prefer" and "batch-on-error" in v.lower())
        ]


#: A part of the status resource answered with a status a server might take as fatal to the
#: batch rather than to the part.
_FATAL_LOOKING = re.compile(rb"/status/(401|403|407|409|429|431|451|503|511)\b")


def _fatal_looking_status_stops(req: RelayRequest) -> None:
    """A batch with a part of a credential, conflict or overload status runs under stop, the
    batch's continue preference, if any, dropped."""
    if not is_batch(req) or not _FATAL_LOOKING.search(req.body):
        return
    if any("stop" in v.lower() for v in _prefers(req) if "batch-on-error" in v.lower()):
        return
    req.headers[:] = [
        (n, v)
        for n, v in req.headers
        if not (n.lower() == "prefer" and "batch-on-error" in v.lower())
    ]
    _stop(req)


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    P(
        "other-preference-taken-as-stop",
        "MB-PROC-5 a preference other than batch-on-error taken as stop",
        ("continue-whatever-other-preferences",),
        on_request=_other_preference_as_stop,
    ),
    P(
        "parts-after-failed-write-skipped",
        "MB-PROC-5 parts of a failed write's target skipped",
        ("continue-after-failed-write",),
        on_request=_dependent_parts_stop,
    ),
    P(
        "part-preference-taken-as-batch",
        "MB-PROC-5 a part's Prefer field taken as the batch's preference",
        ("continue-whatever-parts-prefer",),
        on_request=_part_preference_as_batch,
    ),
    P(
        "part-continue-lifts-stop",
        "MB-PROC-6 a part's Prefer: batch-on-error=continue taken as the batch's policy",
        ("stop-whatever-parts-prefer",),
        on_request=_part_continue_lifts_stop,
    ),
    P(
        "fatal-looking-status-stops-batch",
        "MB-PROC-5 a part answered 401, 403, 409, 429, 503 and the like ends a continue batch",
        ("continue-after-every-failing-status", "continue-write-after-every-failing-status"),
        on_request=_fatal_looking_status_stops,
    ),
)
