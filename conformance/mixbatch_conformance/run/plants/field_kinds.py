"""Planted violations of which part fields reach the sub-request, and of how the echo lists them.

Covers a receiver that passes on only the part fields it expects (MB-PART-8): one that keeps a
part's Content-* fields other than Content-Type and Content-Length as MIME metadata, drops a
field line whose value is empty or whitespace only, cuts a long value, drops a value holding
obs-text octets, takes a name that begins like a control field for one and drops it, keeps
Accept-Charset for the batch, or drops a name that ends like Content-Length as framing; and an
echo that describes a sub-request by the part's own field lines, leaving out the Authorization
and Cookie it inherited from the batch request (MB-TEST-2).
"""

from __future__ import annotations

import json
from collections.abc import Callable

from mixbatch_conformance.run.mutations import FieldList, Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    boundary_of,
    field_of,
    is_batch,
    parts_of,
    set_field,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: The content fields MIME describes a body part with, which this receiver keeps to itself.
MIME_FIELDS = frozenset(
    {"content-language", "content-location", "content-disposition", "content-description"}
)
#: The negotiation field this receiver keeps for the batch (RFC 9110 §12.5.2).
NEGOTIATION_FIELDS = frozenset({"accept-charset"})
#: How long a value this receiver keeps.
KEPT_VALUE_OCTETS = 1024
#: The control fields whose names this receiver matches by prefix.
CONTROL_PREFIXES = ("http-method", "content-id", "x-http-method", "x-content-id")


def _fields(
    keep: Callable[[str, str], bool],
) -> Callable[[list[tuple[FieldList, bytes]]], list[tuple[FieldList, bytes]]]:
    """A receiver that passes on a part's field lines only where `keep(name, value)`."""

    def edit(parts: list[tuple[FieldList, bytes]]) -> list[tuple[FieldList, bytes]]:
        out = []
        for fields, body in parts:
            envelope = {"http-method", "content-id", "content-length"}
            out.append(([(n, v) for n, v in fields if n.lower() in envelope or keep(n, v)], body))
        return out

    return edit


def _cut(parts: list[tuple[FieldList, bytes]]) -> list[tuple[FieldList, bytes]]:
    return [([(n, v[:KEPT_VALUE_OCTETS]) for n, v in fields], body) for fields, body in parts]


def _lookalike(name: str, value: str) -> bool:
    low = name.lower()
    return low in ("http-method", "content-id") or not low.startswith(CONTROL_PREFIXES)


def _echo_omits_inherited(req: RelayRequest, resp: RelayResponse) -> None:
    """An echo that lists the part's own field lines only: the batch's Authorization and Cookie
    values, which the sub-request inherited, are missing from its description."""
    b = boundary_of(resp)
    if not b or not is_batch(req):
        return
    outer = {v for n, v in req.headers if n.lower() in ("authorization", "cookie")}
    parts = parts_of(resp.body, b)
    if not outer or parts is None:
        return
    edited = []
    for fields, body in parts:
        try:
            doc = json.loads(body)
        except ValueError:
            doc = None
        if isinstance(doc, dict) and isinstance(doc.get("headers"), list):
            doc["headers"] = [
                h
                for h in doc["headers"]
                if not (str(h[0]).lower() in ("authorization", "cookie") and h[1] in outer)
            ]
            body = json.dumps(doc).encode()
            if field_of(fields, "Content-Length") is not None:
                fields = set_field(fields, "Content-Length", str(len(body)))
        edited.append((fields, body))
    resp.body = write_parts(edited, b)


P = Mutation
KINDS = ("part-field-kinds-reach-resource",)
PLANTS: tuple[Mutation, ...] = (
    P(
        "part-mime-content-fields-dropped",
        "MB-PART-8 a part's Content-Language, -Location, -Disposition and -Description kept as MIME metadata",
        KINDS,
        on_request_parts=_fields(lambda n, v: n.lower() not in MIME_FIELDS),
    ),
    P(
        "part-empty-field-values-dropped",
        "MB-PART-8 a part field line with an empty or whitespace-only value dropped",
        KINDS,
        on_request_parts=_fields(lambda n, v: bool(v.strip(" \t"))),
    ),
    P(
        "part-long-field-value-cut",
        "MB-PART-8 a part field value cut to 1024 octets",
        KINDS,
        on_request_parts=_cut,
    ),
    P(
        "part-obs-text-field-dropped",
        "MB-PART-8 a part field value holding obs-text octets dropped",
        KINDS,
        on_request_parts=_fields(lambda n, v: all(ord(c) < 0x80 for c in v)),
    ),
    P(
        "part-control-lookalike-fields-dropped",
        "MB-PART-8 part fields whose names begin like Http-Method or Content-Id dropped",
        KINDS,
        on_request_parts=_fields(_lookalike),
    ),
    P(
        "part-negotiation-fields-dropped",
        "MB-PART-8 a part's Accept-Charset kept for the batch's own negotiation",
        KINDS,
        on_request_parts=_fields(lambda n, v: n.lower() not in NEGOTIATION_FIELDS),
    ),
    P(
        "part-framing-lookalike-fields-dropped",
        "MB-PART-8 part fields whose names end like Content-Length dropped as framing",
        KINDS,
        on_request_parts=_fields(lambda n, v: not n.lower().endswith("content-length")),
    ),
    P(
        "echo-omits-inherited-credentials",
        "MB-TEST-2 the echo lists only the part's own fields, not the credentials it inherited",
        ("credentials-inherited",),
        on_response=_echo_omits_inherited,
    ),
)
