"""Planted faults in a Batch-Summary trailer a server sends (spec 5.5, MB-STATUS-15).

Sending the trailer is a MAY (MB-STATUS-8); a trailer that is sent must be announced and count
right (MB-STATUS-15). Each plant writes the trailer a server of that kind would send, counting
the parts of the answer as the relay passes it on: by status alone (a rolled-back 200 counted
as ok), with `failed` off by one, correct but not announced in `Trailer`, or announced in the
multipart form and sent unannounced in the 207 forms too (a server that took the summary for a
multipart feature while its writer ends every chunked answer with it). The relay writes
a field named with `TRAILER_PREFIX` into the trailer section of a chunked answer.
"""

from __future__ import annotations

from collections.abc import Callable

from mixbatch_conformance.core.representations import (
    entries_from_json,
    entries_from_xml,
    entry_counts,
)
from mixbatch_conformance.run.mutations import FieldList, Mutation
from mixbatch_conformance.run.plants._edits import boundary_of, field_of, is_batch, parts_of
from mixbatch_conformance.transport.relay import TRAILER_PREFIX, RelayRequest, RelayResponse

__all__ = ["PLANTS"]

Counts = dict[str, int]


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
        resp.headers.append((TRAILER_PREFIX + "Batch-Summary", value))
        if announce:
            resp.set("Trailer", "Batch-Summary")

    return edit


def _in_every_form(req: RelayRequest, resp: RelayResponse) -> None:
    """A correct, announced trailer on a multipart answer; on a 207 answer the same trailer,
    its counts read from the document's entries, with no `Trailer` field."""
    if not is_batch(req):
        return
    if boundary_of(resp) is not None:
        _summary(_by_outcome)(req, resp)
        return
    media = (resp.get("Content-Type") or "").lower()
    if resp.status != 207:
        return
    entries, problem = (entries_from_json if "json" in media else entries_from_xml)(resp.body)
    if problem is not None:
        return
    counts = entry_counts(entries)
    if counts is None:
        return
    value = ", ".join(f"{k}={n}" for k, n in counts.items())
    resp.headers.append((TRAILER_PREFIX + "Batch-Summary", value))


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    P(
        "summary-trailer-counts-by-status",
        "MB-STATUS-15 a trailer counting a rolled-back 200 as ok",
        ("batch-summary-trailer",),
        on_response=_summary(_by_status),
    ),
    P(
        "summary-trailer-failed-off-by-one",
        "MB-STATUS-15 a trailer counting one failed part too many",
        ("batch-summary-trailer",),
        on_response=_summary(_failed_plus_one),
    ),
    P(
        "summary-trailer-not-announced",
        "MB-STATUS-15 a trailer sent without Trailer: Batch-Summary",
        ("batch-summary-trailer",),
        on_response=_summary(_by_outcome, announce=False),
    ),
    P(
        "summary-trailer-announced-multipart-only",
        "MB-STATUS-15 a trailer announced for the multipart form, sent unannounced for the 207 forms",
        ("batch-summary-trailer",),
        on_response=_in_every_form,
    ),
)
