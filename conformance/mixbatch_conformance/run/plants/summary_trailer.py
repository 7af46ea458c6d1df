"""Planted faults in a sent Batch-Summary trailer (spec 5.5, MB-STATUS-8), and the relay that
can write them.

Sending the trailer is a MAY, so these plants are not in `PLANTS` (which holds violations of
MUST and SHOULD requirements only): they prove that batch-summary-trailer fails on a trailer
that is sent wrong. Each plant writes the trailer a server of that kind would send, counting
the parts of the answer as the relay passes it on: by status alone (a rolled-back 200 counted
as ok), with `failed` off by one, or correct but not announced in `Trailer`.

The plain relay re-frames every answer it edits with Content-Length and drops trailers, so a
plant hands its trailer fields to `TrailerRelay` as header fields named with `PLANTED`; that
relay writes such an answer chunked, with those fields in its trailer section.
"""

from __future__ import annotations

from collections.abc import Callable

import h11

from mixbatch_conformance.run.mutations import FieldList, Mutation
from mixbatch_conformance.run.plants._edits import boundary_of, field_of, is_batch, parts_of
from mixbatch_conformance.transport.relay import (
    HOP_FIELDS,
    Relay,
    RelayRequest,
    RelayResponse,
)

__all__ = ["PLANTED", "TRAILER_PLANTS", "TrailerRelay"]

#: The prefix of a header field a plant means as a trailer field (the rest is its name).
PLANTED = "x-mb-planted-trailer-"

Counts = dict[str, int]


class TrailerRelay(Relay):
    """A relay that writes the trailer fields a plant hands it, in a chunked answer."""

    @staticmethod
    def _frame(conn: h11.Connection, req: RelayRequest, resp: RelayResponse) -> bytes:
        trailers = [(n[len(PLANTED) :], v) for n, v in resp.headers if n.startswith(PLANTED)]
        if not trailers:
            return Relay._frame(conn, req, resp)
        # No Content-Length: h11 frames the answer chunked for an HTTP/1.1 client, which is
        # what carries a trailer section (RFC 9112 §7.1.2). The plant's Trailer field stays.
        headers = [
            (n, v)
            for n, v in resp.headers
            if not n.startswith(PLANTED) and (n.lower() == "trailer" or n.lower() not in HOP_FIELDS)
        ]
        out = conn.send(h11.Response(status_code=resp.status, headers=headers)) or b""
        if resp.body:
            out += conn.send(h11.Data(data=resp.body)) or b""
        return out + (conn.send(h11.EndOfMessage(headers=trailers)) or b"")


def _status(fields: FieldList) -> int:
    value = field_of(fields, "Http-Status-Code") or ""
    return int(value) if value.isdigit() else 0


def _by_status(parts: list[tuple[FieldList, bytes]]) -> Counts:
    """Counts that go by status alone: only `skipped` is read from Batch-Outcome."""
    counts = {"ok": 0, "failed": 0, "skipped": 0}
    for fields, _ in parts:
        if field_of(fields, "Batch-Outcome") == "skipped":
            counts["skipped"] += 1
        else:
            counts["failed" if _status(fields) >= 400 else "ok"] += 1
    return counts


def _by_outcome(parts: list[tuple[FieldList, bytes]]) -> Counts:
    """Counts as spec 5.5 defines them."""
    counts = {"ok": 0, "failed": 0, "skipped": 0, "rolled-back": 0}
    for fields, _ in parts:
        outcome = field_of(fields, "Batch-Outcome")
        if outcome in counts:
            counts[outcome] += 1
        elif outcome is None:
            counts["failed" if _status(fields) >= 400 else "ok"] += 1
    return counts


def _failed_plus_one(parts: list[tuple[FieldList, bytes]]) -> Counts:
    counts = _by_outcome(parts)
    counts["failed"] += 1
    return counts


def _summary(
    count: Callable[[list[tuple[FieldList, bytes]]], Counts], *, announce: bool = True
) -> Callable[[RelayRequest, RelayResponse], None]:
    """A server that sends `Batch-Summary` with the counts `count` gives, announced in Trailer
    unless `announce` is false."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        b = boundary_of(resp)
        parts = parts_of(resp.body, b) if b and is_batch(req) else None
        if parts is None:
            return
        value = ", ".join(f"{k}={n}" for k, n in count(parts).items())
        resp.headers.append((PLANTED + "Batch-Summary", value))
        if announce:
            resp.set("Trailer", "Batch-Summary")

    return edit


P = Mutation
TRAILER_PLANTS: tuple[Mutation, ...] = (
    P(
        "summary-trailer-counts-by-status",
        "MB-STATUS-8 a trailer counting a rolled-back 200 as ok",
        ("batch-summary-trailer",),
        caught_by=("INFO",),
        on_response=_summary(_by_status),
    ),
    P(
        "summary-trailer-failed-off-by-one",
        "MB-STATUS-8 a trailer counting one failed part too many",
        ("batch-summary-trailer",),
        caught_by=("INFO",),
        on_response=_summary(_failed_plus_one),
    ),
    P(
        "summary-trailer-not-announced",
        "MB-STATUS-8 a trailer sent without Trailer: Batch-Summary",
        ("batch-summary-trailer",),
        caught_by=("INFO",),
        on_response=_summary(_by_outcome, announce=False),
    ),
)
