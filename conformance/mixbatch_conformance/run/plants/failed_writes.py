"""Planted violation of what fails a part under the stop policy (spec 7.4, MB-PROC-6).

delete-of-absent-member-not-failing   a DELETE answered 404 or 410 taken for "already
                                      gone", the end the client wanted, so a stop batch
                                      holding a DELETE runs on past it; the answer still
                                      says Preference-Applied: batch-on-error=stop
"""

from __future__ import annotations

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import boundary_of, field_of, is_batch, parts_of
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: The request field the relay marks a batch with whose stop preference it withheld.
WITHHELD = "X-Mb-Plant-Stop-Withheld"
STOP = "batch-on-error=stop"


def _withhold_stop(req: RelayRequest) -> None:
    b = boundary_of(req)
    prefer = req.get("Prefer") or ""
    if not (b and is_batch(req)) or STOP not in prefer:
        return
    parts = parts_of(req.body, b) or []
    if any(field_of(fields, "Http-Method") == "DELETE" for fields, _ in parts):
        req.headers = [(n, v) for n, v in req.headers if n.lower() != "prefer"]
        req.headers.append((WITHHELD, "1"))


def _claim_stop(req: RelayRequest, resp: RelayResponse) -> None:
    if req.get(WITHHELD) and resp.status in (200, 207):
        resp.set("Preference-Applied", STOP)


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "delete-of-absent-member-not-failing",
        "MB-PROC-6 a stop batch runs on past a DELETE answered 404 or 410",
        ("stop-at-failed-write",),
        caught_by=("FAIL",),
        on_request=_withhold_stop,
        on_response=_claim_stop,
    ),
)
