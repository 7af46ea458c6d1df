"""Planted violations of a result's aggregates and forms: the aggregate Last-Modified of a
collection retrieval (spec 4.2) and the 207 forms of an aborted batch (spec 5.4, 6.x).

Each is a mistake a competent implementer makes:

    aggregate-last-modified-over-a-subset   the aggregate Last-Modified taken over every member
                                            part but the last, so a member just written is left
                                            out of it (MB-METHOD-5)
    document-abort-drops-answered-parts     a batch aborted in the JSON form reported by
                                            its abort report alone: the entries of the parts
                                            already answered dropped (MB-MULTI-5)
    document-abort-empties-answered-bodies  the same document keeping those entries, their
                                            bodies emptied (MB-MULTI-5)
"""

from __future__ import annotations

from email.utils import parsedate_to_datetime
from typing import Any

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import (
    boundary_of,
    field_of,
    map_json,
    parts_of,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]


def _stamp(value: str | None) -> float:
    try:
        return parsedate_to_datetime(value or "").timestamp()
    except (TypeError, ValueError):
        return float("-inf")


def _aggregate_over_a_subset(req: RelayRequest, resp: RelayResponse) -> None:
    """The aggregate Last-Modified of a collection retrieval, the latest of all parts but the
    last (none when there is one part)."""
    if req.method != "GET" or "multipart/mixed" not in (req.get("Accept") or ""):
        return
    b = boundary_of(resp)
    parts = parts_of(resp.body, b) if b and resp.get("Last-Modified") else None
    if not parts:
        return
    dates = [field_of(f, "Last-Modified") for f, _ in parts[:-1]]
    known = [d for d in dates if d]
    resp.set("Last-Modified", max(known, key=_stamp) if known else None)


def _json_abort_alone(doc: dict[str, Any]) -> None:
    items = doc.get("responses")
    if isinstance(items, list) and items and items[-1].get("outcome") == "aborted":
        doc["responses"] = items[-1:]


def _json_abort_empty_bodies(doc: dict[str, Any]) -> None:
    items = doc.get("responses")
    if isinstance(items, list) and items and items[-1].get("outcome") == "aborted":
        for item in items[:-1]:
            item["body"] = ""


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "aggregate-last-modified-over-a-subset",
        "MB-METHOD-5 the aggregate Last-Modified leaves the last member out",
        ("collection-last-modified-after-write",),
        caught_by=("WARN", "FAIL"),
        on_response=_aggregate_over_a_subset,
    ),
    Mutation(
        "document-abort-drops-answered-parts",
        "MB-MULTI-5 an aborted 207 document holds its abort report alone",
        ("batch-abort-forms-keep-answered",),
        on_response=map_json(_json_abort_alone),
    ),
    Mutation(
        "document-abort-empties-answered-bodies",
        "MB-MULTI-5 an aborted 207 document with the answered parts' bodies emptied",
        ("batch-abort-forms-keep-answered",),
        on_response=map_json(_json_abort_empty_bodies),
    ),
)
