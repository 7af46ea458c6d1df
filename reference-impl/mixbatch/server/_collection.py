"""GET collection retrieval: a whole collection as one ``multipart/mixed`` response.

Thesis ch. 4.2: "A simple batch retrieval of a collection, where the collection is given by the
URL of the request (for example, books/everything), is a prime candidate for caching", and its
status describes the collection as a whole (MB-STATUS-7): 200 with the members, 304 when the
aggregate validator matches, and 204 for an existing collection with no members (MB-STATUS-11,
which refines the thesis' "404 (nope, no books here)"; 404 means the collection does not exist).

Each member becomes one part (``Http-Status-Code: 200``, ``Content-Id: <path>``, the member's
own fields and body). The aggregate ETag hashes the members' ETags and fields in order, so it
changes whenever any member, its Last-Modified, the membership or the order changes
(MB-METHOD-4).

The boundary is derived from the aggregate ETag instead of a CSPRNG (a documented departure from
the MB-WIRE-5 SHOULD). MB-METHOD-7: the aggregate ETag must be weak "unless every octet of the
representation, boundary included, is a function of the collection's state"; with a derived
boundary every octet is, so the tag can honestly be strong. A body cannot aim at the boundary either, because the boundary is
a hash of that body's own validators. The writer still refuses any body containing it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from mixbatch._http.conditional import Validators, evaluate, format_http_date
from mixbatch._http.messages import Request, Response
from mixbatch._http.problems import problem
from mixbatch.codec import BatchWriter, format_batch_content_type

__all__ = ["MEDIA_TYPE", "Member", "aggregate_etag", "retrieve"]

MEDIA_TYPE = "multipart/mixed"


@dataclass(frozen=True, slots=True)
class Member:
    """One member of a collection: its path, validators, fields and representation."""

    path: str
    validators: Validators
    fields: Sequence[tuple[str, str]]
    body: bytes


def aggregate_etag(members: Sequence[Member]) -> str:
    """A strong ETag over what each member's part is written from, in order.

    MB-METHOD-7: the tag is weak "unless every octet of the representation, boundary included,
    is a function of the collection's state". A part carries the member's fields, its
    Last-Modified among them, so they are hashed with the ETag: a member rewritten with the
    same body changes its date, the octets and so the tag."""
    digest = hashlib.sha256()
    for member in members:
        digest.update(member.path.encode("utf-8") + b"\x00" + member.validators.etag.encode())
        for name, value in member.fields:
            digest.update(b"\x00" + name.encode() + b":" + value.encode())
        digest.update(b"\n")
    return '"mc-' + digest.hexdigest()[:32] + '"'


def retrieve(request: Request, members: Sequence[Member], *, now: float) -> Response:
    """The multipart/mixed response for a collection GET (200, 304 or 404)."""
    vary = ("Vary", "Accept")
    etag = aggregate_etag(members)
    # MB-METHOD-5: the aggregate Last-Modified is the latest member's.
    modified = max((m.validators.last_modified for m in members), default=float(int(now)))
    current = Validators(etag, modified)
    status = evaluate(request.method, request.headers, current, now)
    if status == 304:
        return Response(304, [("ETag", etag), vary])
    if status == 412:
        return problem(412, "precondition-failed", f"a precondition of GET {request.path} is false")
    if not members:
        # MB-STATUS-11: "A collection retrieval of an existing collection with no members is
        # answered 204"; a multipart body needs at least one part (MB-WIRE-18).
        return Response(204, [("ETag", etag), vary])
    boundary = "collection-" + etag[4:-1]
    writer = BatchWriter(boundary)
    chunks = [
        writer.response_part(200, m.path, fields=list(m.fields), body=m.body) for m in members
    ]
    chunks.append(writer.close())
    return Response(
        200,
        [
            ("Content-Type", format_batch_content_type(boundary)),
            ("ETag", etag),
            ("Last-Modified", format_http_date(modified)),
            vary,
        ],
        b"".join(chunks),
    )
