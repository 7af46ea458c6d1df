"""Planted violations of MB-PART-8 in the fields a receiver takes for a part's own framing or
MIME metadata.

    part-content-length-kept-back     a part's Content-Length taken for the part's framing and
                                      kept out of the sub-request's fields, by a server whose
                                      echo lists the Content-Length a request alone carried
    part-content-length-moved-first   the same server's sub-request given the part's
                                      Content-Length ahead of the part's other fields
    part-zero-content-length-kept-back
                                      the same server's sub-request without the part's
                                      Content-Length when it is zero (no content, no length)
    part-content-type-parameters-dropped
                                      a part's Content-Type passed on as its media type alone,
                                      its parameters read as the part's own
    part-content-encoding-dropped     a part's Content-Encoding kept as the part's own coding
    part-content-range-dropped        a part's Content-Range kept as the part's own
    part-digest-fields-dropped        a part's Content-MD5, Digest, Content-Digest, Repr-Digest
                                      and Want-Content-Digest checked against its body and
                                      kept
    part-mime-fields-dropped          a part's MIME-Version and Content-Base kept as MIME
                                      header fields of the body part
    part-repeated-content-fields-last-only
                                      a part's Content-* and Digest fields read into a map, one
                                      line per name, the last winning

The reference server's echo leaves `Content-Length` out of what it lists, which MB-TEST-2
allows ("The echo may list or leave out the framing and connection fields"). The three length
plants make it an echo that lists the `Content-Length` a request carried in its place among the
fields, as an HTTP stack that reports every received field line does, and then lose or move
the part's own in the sub-request, as a receiver that takes it for the part's framing does.
The other plants edit the parts on their way to the reference server, which then never sees the
fields they take away.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from mixbatch_conformance.run.mutations import FieldList, Mutation, write_parts
from mixbatch_conformance.run.plants._edits import boundary_of, is_batch, parts_of
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS", "lists_content_length"]

LENGTH = "content-length"
#: The part's control fields, which are no field of the sub-request (MB-PART-8).
CONTROL = frozenset({"http-method", "content-id"})
#: The fields RFC 1864, RFC 3230 and RFC 9530 give a message's digest.
DIGEST_FIELDS = frozenset(
    {"content-md5", "digest", "content-digest", "repr-digest", "want-content-digest"}
)
#: MIME header fields of a body part that HTTP gives no meaning.
MIME_FIELDS = frozenset({"mime-version", "content-base"})

#: Where the sub-request's echo lists a part's Content-Length: given the part's own field lines
#: (control fields left out) and the echo's listed fields, the listed fields to report.
Placement = Callable[[FieldList, list[list[str]]], list[list[str]]]


def _echo_doc(body: bytes) -> dict[str, Any] | None:
    try:
        doc = json.loads(body)
    except ValueError:
        return None
    if isinstance(doc, dict) and isinstance(doc.get("headers"), list):
        return doc
    return None


def in_place(received: FieldList, listed: list[list[str]]) -> list[list[str]]:
    """`listed` with each Content-Length line of `received` put back where it was received:
    the listed fields are the received ones less the framing fields, in order."""
    out: list[list[str]] = []
    j = 0
    for name, value in received:
        if j < len(listed) and listed[j][0].lower() == name.lower():
            out.append(listed[j])
            j += 1
        elif name.lower() == LENGTH:
            out.append([name, value])
    return out + listed[j:]


def _first(received: FieldList, listed: list[list[str]]) -> list[list[str]]:
    return [[n, v] for n, v in received if n.lower() == LENGTH] + listed


def _not_zero(received: FieldList, listed: list[list[str]]) -> list[list[str]]:
    return in_place(
        [(n, v) for n, v in received if (n.lower(), v.strip()) != (LENGTH, "0")], listed
    )


def _kept_back(received: FieldList, listed: list[list[str]]) -> list[list[str]]:
    return listed


def _rewrite(body: bytes, received: FieldList, place: Placement) -> bytes | None:
    doc = _echo_doc(body)
    if doc is None:
        return None
    doc["headers"] = place(received, doc["headers"])
    return json.dumps(doc).encode()


def lists_content_length(parts: Placement) -> Callable[[RelayRequest, RelayResponse], None]:
    """An echo that lists the Content-Length a request alone carried in its place, and a part's
    where `parts` puts it."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        if resp.status not in (200, 207) or req.method == "HEAD":
            return
        if not is_batch(req):
            if req.target.startswith("/echo"):
                body = _rewrite(resp.body, req.headers, in_place)
                if body is not None:
                    resp.body = body
            return
        b_req, b_resp = boundary_of(req), boundary_of(resp)
        sent = parts_of(req.body, b_req) if b_req else None
        answered = parts_of(resp.body, b_resp) if b_resp else None
        if sent is None or answered is None or not b_resp:
            return
        out = []
        for k, (fields, body) in enumerate(answered):
            own = (
                [(n, v) for n, v in sent[k][0] if n.lower() not in CONTROL] if k < len(sent) else []
            )
            edited = _rewrite(body, own, parts) if own else None
            if edited is not None:
                body = edited
                fields = [(n, str(len(body)) if n.lower() == LENGTH else v) for n, v in fields]
            out.append((fields, body))
        resp.body = write_parts(out, b_resp)

    return edit


def _drop(
    names: frozenset[str],
) -> Callable[[list[tuple[FieldList, bytes]]], list[tuple[FieldList, bytes]]]:
    def edit(parts: list[tuple[FieldList, bytes]]) -> list[tuple[FieldList, bytes]]:
        return [([(n, v) for n, v in f if n.lower() not in names], b) for f, b in parts]

    return edit


def _type_without_parameters(parts: list[tuple[FieldList, bytes]]) -> list[tuple[FieldList, bytes]]:
    return [
        ([(n, v.split(";")[0].strip() if n.lower() == "content-type" else v) for n, v in f], b)
        for f, b in parts
    ]


def _content_fields_in_a_map(
    parts: list[tuple[FieldList, bytes]],
) -> list[tuple[FieldList, bytes]]:
    """Content-* and digest lines read into a map by name: of several lines with one name, the
    last is kept, where the first stood."""
    out = []
    for fields, body in parts:
        last: dict[str, str] = {}
        for n, v in fields:
            if n.lower().startswith("content-") or n.lower() in DIGEST_FIELDS:
                last[n.lower()] = v
        kept: FieldList = []
        written: set[str] = set()
        for n, v in fields:
            low = n.lower()
            if low not in last:
                kept.append((n, v))
            elif low not in written:
                kept.append((n, last[low]))
                written.add(low)
        out.append((kept, body))
    return out


P = Mutation
KINDS = ("part-field-kinds-reach-resource",)
PLANTS: tuple[Mutation, ...] = (
    P(
        "part-content-length-kept-back",
        "MB-PART-8 a part's Content-Length taken for its framing and kept out of the sub-request",
        KINDS,
        on_response=lists_content_length(_kept_back),
    ),
    P(
        "part-content-length-moved-first",
        "MB-PART-8 a part's Content-Length put ahead of the part's other fields",
        KINDS,
        on_response=lists_content_length(_first),
    ),
    P(
        "part-zero-content-length-kept-back",
        "MB-PART-8 a part's Content-Length: 0 kept out of the sub-request",
        KINDS,
        on_response=lists_content_length(_not_zero),
    ),
    P(
        "part-content-type-parameters-dropped",
        "MB-PART-8 a part's Content-Type passed on without its parameters",
        KINDS,
        on_request_parts=_type_without_parameters,
    ),
    P(
        "part-content-encoding-dropped",
        "MB-PART-8 a part's Content-Encoding kept as the part's own",
        KINDS,
        on_request_parts=_drop(frozenset({"content-encoding"})),
    ),
    P(
        "part-content-range-dropped",
        "MB-PART-8 a part's Content-Range kept as the part's own",
        KINDS,
        on_request_parts=_drop(frozenset({"content-range"})),
    ),
    P(
        "part-digest-fields-dropped",
        "MB-PART-8 a part's digest fields checked against its body and kept",
        KINDS,
        on_request_parts=_drop(DIGEST_FIELDS),
    ),
    P(
        "part-mime-fields-dropped",
        "MB-PART-8 a part's MIME-Version and Content-Base kept as MIME header fields",
        KINDS,
        on_request_parts=_drop(MIME_FIELDS),
    ),
    P(
        "part-repeated-content-fields-last-only",
        "MB-PART-8 a part's repeated Content-* and Digest lines read into a map, the last kept",
        KINDS,
        on_request_parts=_content_fields_in_a_map,
    ),
)
