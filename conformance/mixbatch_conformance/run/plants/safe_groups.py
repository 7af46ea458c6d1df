"""A planted bound on safe parts run at once that deadlocks on a long group (MB-RESP-1).

    safe-group-past-eight-stalls   a run of more than eight consecutive GET or HEAD parts holds
                                   every slot of an eight-slot bound while no result is read:
                                   the answer's head goes out and nothing after it, the batch
                                   never answered part for part

The relay writes the head of such a batch's answer, with the Content-Length of its content,
and none of the content, so the client waits for octets that never come.
"""

from __future__ import annotations

import re

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import is_batch
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: The slots of the planted bound.
SLOTS = 8
_METHOD = re.compile(rb"(?im)^Http-Method:[ \t]*([!-~]+)[ \t]*\r?$")


def _longest_safe_run(req: RelayRequest) -> int:
    run = longest = 0
    for m in _METHOD.finditer(req.body):
        run = run + 1 if m.group(1).upper() in (b"GET", b"HEAD") else 0
        longest = max(longest, run)
    return longest


def _head_only(framed: bytes) -> bytes:
    head, sep, _ = framed.partition(b"\r\n\r\n")
    return head + sep


def _stalls_past_slots(req: RelayRequest, resp: RelayResponse) -> None:
    if is_batch(req) and resp.status == 200 and _longest_safe_run(req) > SLOTS:
        resp.wire = _head_only


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "safe-group-past-eight-stalls",
        "MB-RESP-1 a group of more than eight consecutive safe parts never answered",
        ("consecutive-safe-parts-all-answered",),
        caught_by=("FAIL",),
        on_response=_stalls_past_slots,
    ),
)
