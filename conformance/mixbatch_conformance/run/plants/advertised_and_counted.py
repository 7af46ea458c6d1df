"""Planted servers whose word about themselves, or whose count, drifts from what they do.

- MB-SEC-2: a batch that created exactly one resource points at it, as a 201 would, by lifting
  the created part's Location to the top level (in the 207 forms, whose header section is
  written after the parts ran, and in the multipart form).
- MB-INTER-6: the relay decodes gzip batch content, while the reference server's 415 for
  another coding still names `identity` alone.
- MB-LIMIT-4: a batch refused by its declared Content-Length over `max_batch_bytes` gets a
  problem without the `limit` member (chunked content found over the limit keeps it).
- MB-LIMIT-5: field lines with an empty value, or whitespace alone, are not counted against
  `max_part_fields` (the relay drops them before the reference server counts).

A budget that takes a batch's place only once the batch has been received (MB-LIMIT-6) needs
no plant: the relay itself is that server, forwarding a batch only once it holds all of it, so
the reference server behind it counts none of the batches still arriving
(tests/conformance/test_budget_arriving_plants.py runs `budget-holds-arriving-batches` through
it).
"""

from __future__ import annotations

import gzip
import json
import re
import zlib

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import (
    Part,
    boundary_of,
    field_of,
    is_batch,
    parts_of,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: An XML entry answered 201 and the Location header it carries.
_XML_CREATED = re.compile(
    rb"<([A-Za-z0-9_-]+:)?status>HTTP/1\.1 201[^<]*</\1?status>"
    rb"(?:(?!</[A-Za-z0-9_:-]*response>).)*?"
    rb'header name="Location">([^<]*)<',
    re.DOTALL | re.IGNORECASE,
)


def _created_locations(resp: RelayResponse) -> list[str]:
    media = (resp.get("Content-Type") or "").lower()
    if "json" in media:
        doc = json.loads(resp.body)
        entries = doc.get("responses", []) if isinstance(doc, dict) else []
        return [
            value
            for item in entries
            if isinstance(item, dict) and item.get("status") == 201
            for name, value in item.get("headers", [])
            if name.lower() == "location"
        ]
    if "xml" in media:
        return [m[2].decode("latin-1") for m in _XML_CREATED.finditer(resp.body)]
    b = boundary_of(resp)
    parts = parts_of(resp.body, b) if b else None
    return [
        loc
        for fields, _ in parts or []
        if field_of(fields, "Http-Status-Code") == "201"
        and (loc := field_of(fields, "Location")) is not None
    ]


def _created_location_up(req: RelayRequest, resp: RelayResponse) -> None:
    """A batch that created exactly one resource points at it from its header section."""
    if not is_batch(req) or resp.status not in (200, 207):
        return
    created = _created_locations(resp)
    if len(created) == 1:
        resp.set("Location", created[0])


def _gzip_decoded(req: RelayRequest) -> None:
    """A server that decodes gzip batch content (its 415 for other codings left as it was)."""
    if not is_batch(req) or (req.get("Content-Encoding") or "").strip().lower() != "gzip":
        return
    try:
        req.body = gzip.decompress(req.body)
    except (OSError, EOFError, zlib.error):
        return
    req.headers = [(n, v) for n, v in req.headers if n.lower() != "content-encoding"]


def _declared_length_unnamed(req: RelayRequest, resp: RelayResponse) -> None:
    """The 413 for a declared Content-Length over max_batch_bytes names no limit."""
    if not is_batch(req) or req.chunks or resp.status != 413:
        return
    try:
        doc = json.loads(resp.body)
    except ValueError:
        return
    if isinstance(doc, dict) and doc.get("limit") == "max_batch_bytes":
        doc.pop("limit")
        resp.body = json.dumps(doc).encode()


def _blank_lines_uncounted(parts: list[Part]) -> list[Part]:
    """Field lines with an empty or whitespace value left out, as if never counted."""
    return [([(n, v) for n, v in fields if v.strip(" \t")], body) for fields, body in parts]


PLANTS: tuple[Mutation, ...] = (
    # MB-SEC-2: "MUST NOT copy a header field of a sub-response into the header section".
    Mutation(
        "created-location-copied-up",
        "MB-SEC-2 the one created resource's Location",
        ("top-level-fields-without-created-resource",),
        on_response=_created_location_up,
    ),
    # MB-INTER-6: "an `Accept-Encoding` field naming the codings it does decode".
    Mutation(
        "gzip-decoded-not-advertised",
        "MB-INTER-6 a decoded coding left out of Accept-Encoding",
        ("decoded-codings-advertised",),
        on_request=_gzip_decoded,
    ),
    # MB-LIMIT-4: "SHOULD name the exceeded limit in a 413 or 431 problem document".
    Mutation(
        "declared-length-refusal-unnamed",
        "MB-LIMIT-4 the declared-length refusal",
        ("limit-batch-bytes-one-over",),
        caught_by=("WARN", "FAIL"),
        on_response=_declared_length_unnamed,
    ),
    # MB-LIMIT-5: "a limit on the number of field lines in one part header section".
    Mutation(
        "blank-field-lines-not-counted",
        "MB-LIMIT-5 lines with empty values",
        (
            "limit-part-fields-one-over-empty-values",
            "limit-part-fields-one-over-blank-values",
            "limit-part-fields-one-over-empty-repeated-name",
        ),
        on_request_parts=_blank_lines_uncounted,
    ),
)
