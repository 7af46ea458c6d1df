"""Planted servers that write the answer to a batch asking for a mode on a writer of its own
(spec 3.1.1, 6.1: MB-MULTI-10, MB-WIRE-5, MB-WIRE-3).

An atomic batch is held until it commits or rolls back and then written whole; a stopped
batch ends on its failing part. A server that gives those paths their own writer can leave out
what the plain writer does: `Vary: Accept` on an atomic answer, a fresh boundary for a batch
that asked for stop (one drawn when the endpoint starts), a boundary spelled as Content-Type
allows for an atomic answer (the transaction's id, with a colon, unquoted). Batches without a
mode are answered as before.
"""

from __future__ import annotations

import secrets

from mixbatch_conformance.run.mutations import Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    Pred,
    RespEdit,
    boundary_of,
    header_has,
    is_batch,
    parts_of,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

STOP = header_has("Prefer", r"(?i)batch-on-error\s*=\s*\"?stop")
ATOMIC = header_has("Batch-Mode", r"(?i)\batomic\b")
#: The boundary a stop writer drew once, when the endpoint started.
STOP_BOUNDARY = "mixbatch-stop-writer-7Qe2LxV9"


def _rebound(when: Pred, make: str | None = None) -> RespEdit:
    """Answers to requests `when` matches get the boundary `make` (or a fresh transaction id
    with a colon), written unquoted in Content-Type."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        b = boundary_of(resp)
        parts = parts_of(resp.body, b) if b else None
        if not b or parts is None or not is_batch(req) or not when(req):
            return
        new = make or f"tx:{secrets.token_urlsafe(18)}"
        resp.headers = [
            (n, f"multipart/mixed; boundary={new}" if n.lower() == "content-type" else v)
            for n, v in resp.headers
        ]
        resp.body = write_parts(parts, new)

    return edit


def _without_vary(req: RelayRequest, resp: RelayResponse) -> None:
    if is_batch(req) and ATOMIC(req):
        resp.set("Vary", None)


CATCHERS = ("batch-response-header-in-every-mode",)

PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "atomic-answer-without-vary",
        "MB-MULTI-10 an atomic batch's answer written without Vary",
        CATCHERS,
        caught_by=("WARN", "FAIL"),
        on_response=_without_vary,
    ),
    Mutation(
        "stop-answer-one-boundary",
        "MB-WIRE-5 a batch asking for stop answered with one boundary drawn at start-up",
        CATCHERS,
        caught_by=("WARN", "FAIL"),
        on_response=_rebound(STOP, STOP_BOUNDARY),
    ),
    Mutation(
        "atomic-boundary-transaction-id-unquoted",
        "MB-WIRE-3 an atomic batch's boundary holding a colon written unquoted",
        CATCHERS,
        on_response=_rebound(ATOMIC),
    ),
)
