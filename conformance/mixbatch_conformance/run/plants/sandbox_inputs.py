"""Planted violations of the sandbox under the inputs MB-TEST-3 and MB-TEST-4 allow.

Covers a sandbox that refuses member ids longer than 16 characters with 400 (MB-TEST-3), stores
the first 64 KiB of what a PUT sends (MB-TEST-4), names two members created in one batch alike
(MB-TEST-3), lets a later batch overwrite a member's stored octets (MB-TEST-4), and a collection
retrieval that leaves out members whose content is empty (MB-METHOD-4), and a batch that gives a
part without Content-Type the JSON media type its parts usually carry (MB-PART-8). The relay's
reference server keeps its sandbox at /books.
"""

from __future__ import annotations

import json
import re

from mixbatch_conformance.run.mutations import FieldList, Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    boundary_of,
    field_of,
    is_batch,
    map_parts,
    parts_of,
    problem,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

MEMBER = re.compile(r"/books/([^/?]+)")
#: The longest member id the capped sandbox takes.
LONGEST_ID = 16
#: How much of a PUT's content the capped sandbox stores.
STORED_OCTETS = 65536


def _long_ids_refused(req: RelayRequest, resp: RelayResponse) -> None:
    m = MEMBER.fullmatch(req.target)
    if req.method == "PUT" and m and len(m.group(1)) > LONGEST_ID:
        problem(resp, 400, "MB-TEST-3")


def _first_64k_stored(req: RelayRequest) -> None:
    if req.method == "PUT" and MEMBER.fullmatch(req.target):
        req.body = req.body[:STORED_OCTETS]


def _same_location(parts: list[tuple[FieldList, bytes]]) -> list[tuple[FieldList, bytes]]:
    """Every member a batch creates is named like the first (an id drawn from the clock)."""
    first = next((field_of(f, "Location") for f, _ in parts if field_of(f, "Location")), None)
    return [
        ([(n, first if n.lower() == "location" and first else v) for n, v in fields], body)
        for fields, body in parts
    ]


def _overwritten_by_later_batch(req: RelayRequest, resp: RelayResponse) -> None:
    """Once a batch with a preamble has come, a member read alone answers that batch's filler
    octets in place of its own."""
    if is_batch(req) and not req.body.startswith(b"--"):
        _FILLED.add(True)
    if _FILLED and req.method == "GET" and MEMBER.fullmatch(req.target) and resp.status == 200:
        resp.body = b"x" * len(resp.body)


_FILLED: set[bool] = set()


def _empty(body: bytes) -> bool:
    """No content, or a JSON object whose string members are all empty."""
    try:
        doc = json.loads(body) if body else {}
    except ValueError:
        return False
    strings = [v for v in doc.values() if isinstance(v, str)] if isinstance(doc, dict) else []
    return not body or (bool(strings) and not any(strings))


def _empty_members_left_out(
    parts: list[tuple[FieldList, bytes]],
) -> list[tuple[FieldList, bytes]]:
    return [(fields, body) for fields, body in parts if not _empty(body)]


def _is_retrieval(req: RelayRequest) -> bool:
    return req.method == "GET" and req.target == "/books"


def _untyped_parts_given_json(req: RelayRequest) -> None:
    """A PUT part with content and no Content-Type given `Content-Type: application/json`."""
    b = boundary_of(req)
    parts = parts_of(req.body, b) if b and is_batch(req) else None
    if parts is None or b is None:
        return
    out: list[tuple[FieldList, bytes]] = []
    for fields, body in parts:
        put = (field_of(fields, "Http-Method") or "").upper() == "PUT"
        if put and body and field_of(fields, "Content-Type") is None:
            fields = [*fields, ("Content-Type", "application/json")]
        out.append((fields, body))
    req.body = write_parts(out, b)


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    P(
        "sandbox-ids-sixteen-characters",
        "MB-TEST-3 a PUT to an absent member with an id over 16 characters refused with 400",
        ("sandbox-member-ids-any-length",),
        on_response=_long_ids_refused,
    ),
    P(
        "sandbox-keeps-first-64k",
        "MB-TEST-4 a member stores the first 64 KiB of what a PUT sends",
        ("sandbox-member-sizes-read-back",),
        on_request=_first_64k_stored,
    ),
    P(
        "sandbox-creations-share-location",
        "MB-TEST-3 members created in one batch named alike",
        ("sandbox-creations-distinct",),
        on_response=map_parts(_same_location),
    ),
    P(
        "sandbox-member-overwritten-by-later-batch",
        "MB-TEST-4 a member's stored octets overwritten by a later batch's",
        ("sandbox-member-outlives-batches",),
        on_response=_overwritten_by_later_batch,
    ),
    P(
        "retrieval-leaves-out-empty-members",
        "MB-METHOD-4 a collection retrieval leaves out members with empty content",
        ("sandbox-members-all-retrieved",),
        on_response=map_parts(_empty_members_left_out, _is_retrieval),
    ),
    P(
        "untyped-part-given-json",
        "MB-PART-8 a PUT part without Content-Type given application/json",
        ("sandbox-write-without-content-type",),
        on_request=_untyped_parts_given_json,
    ),
)
