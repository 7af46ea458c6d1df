"""GET collection retrieval: a whole collection as one ``multipart/mixed`` response.

Thesis ch. 4.2: "A simple batch retrieval of a collection, where the collection is given by the
URL of the request (for example, books/everything), is a prime candidate for caching", and its
status describes the collection as a whole: "200 OK (here are your books), 304 Not Modified
(nothing new since the last time you asked) or 404 (nope, no books here)" (MB-STATUS-7).

Each member becomes one part (``Http-Status-Code: 200``, ``Content-Id: <path>``, the member's
own fields and body). The aggregate ETag hashes the members' ETags in order, so it changes
whenever any member, the membership or the order changes (MB-METHOD-4).

The boundary is derived from the aggregate ETag instead of a CSPRNG (a documented departure from
the MB-WIRE-5 SHOULD): a strong ETag promises identical octets, so two 200s with the same ETag
must carry the same boundary. A body cannot aim at the boundary either, because the boundary is
a hash of that body's own validators. The writer still refuses any body containing it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from mixbatch.codec import BatchWriter, format_batch_content_type

from ._conditional import Validators, evaluate, format_http_date
from ._messages import Request, Response
from ._problems import problem

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
    """A strong ETag over the members' ETags, in order."""
    digest = hashlib.sha256()
    for member in members:
        digest.update(member.path.encode("utf-8") + b"\x00" + member.validators.etag.encode())
        digest.update(b"\n")
    return '"mc-' + digest.hexdigest()[:32] + '"'


def retrieve(request: Request, members: Sequence[Member], *, now: float) -> Response:
    """The multipart/mixed response for a collection GET (200, 304 or 404)."""
    vary = ("Vary", "Accept")
    if not members:
        # A multipart body needs at least one part (MB-WIRE-18), so an empty collection is
        # "no books here": 404, as the thesis puts it.
        return problem(
            404,
            "empty-collection",
            f"the collection {request.path!r} has no members",
            requirement="MB-STATUS-7",
            headers=[vary],
        )
    etag = aggregate_etag(members)
    modified = max(m.validators.last_modified for m in members)
    current = Validators(etag, modified)
    status = evaluate(request.method, request.headers, current, now)
    if status == 304:
        return Response(304, [("ETag", etag), vary])
    if status == 412:
        return problem(412, "precondition-failed", f"a precondition of GET {request.path} is false")
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
