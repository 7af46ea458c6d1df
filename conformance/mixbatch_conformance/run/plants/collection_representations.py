"""Planted violations of a collection retrieval's representation (spec 4.2): octets that follow
the request under a strong aggregate ETag (MB-METHOD-7), and a member without content written
as a part that is not what its GET alone answers (MB-METHOD-4).

    collection-content-ids-from-host      each part's Content-Id made absolute with the Host
                                          the retrieval was asked by, the tag left strong
    collection-boundary-from-request      the boundary hashed from the Host and request-target
                                          as well as the collection's state, the tag left strong
    empty-member-part-204                 a sandbox that takes a PUT without content (the
                                          reference's refuses it: the relay keeps the member as
                                          it was and answers for it with no content), whose
                                          retrieval labels that member's part 204 though its GET
                                          alone answers 200
"""

from __future__ import annotations

import hashlib
import re
from urllib.parse import urlsplit

from mixbatch_conformance.run.mutations import Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    Part,
    boundary_of,
    field_of,
    is_batch,
    parts_of,
    set_field,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: A member of the reference server's sandbox collection.
MEMBER = re.compile(r"^/books/\d+$")
#: Members the relay holds as written without content while its plant is in place.
EMPTY_MEMBERS: set[str] = set()


def _retrieval(req: RelayRequest, resp: RelayResponse) -> list[Part] | None:
    """The parts of a collection retrieval answered alone, else None."""
    if is_batch(req) or req.method != "GET" or resp.status != 200:
        return None
    b = boundary_of(resp)
    return parts_of(resp.body, b) if b else None


def _path(target: str) -> str:
    return urlsplit(target).path


def _content_ids_from_host(req: RelayRequest, resp: RelayResponse) -> None:
    """Each Content-Id written as an absolute URI on the Host the request named."""
    parts = _retrieval(req, resp)
    b = boundary_of(resp)
    if parts is None or b is None:
        return
    host = req.get("Host") or ""
    out: list[Part] = []
    for fields, body in parts:
        cid = (field_of(fields, "Content-Id") or "").strip()
        if cid.startswith("</"):
            fields = set_field(fields, "Content-Id", f"<http://{host}{cid[1:]}")
        out.append((fields, body))
    resp.body = write_parts(out, b)


def _boundary_from_request(req: RelayRequest, resp: RelayResponse) -> None:
    """The boundary hashed from the request's Host and target beside the state's boundary."""
    parts = _retrieval(req, resp)
    b = boundary_of(resp)
    if parts is None or b is None:
        return
    salt = f"{req.get('Host') or ''} {req.target}".encode()
    new = f"{b[:40]}-{hashlib.sha256(salt).hexdigest()[:12]}"
    resp.set("Content-Type", f"multipart/mixed; boundary={new}")
    resp.body = write_parts(parts, new)


def _empty_put_taken(req: RelayRequest) -> None:
    """A PUT without content to a sandbox member taken as that member's new (empty) content:
    forwarded as a merge patch that changes nothing, so the member stays."""
    path = _path(req.target)
    if is_batch(req) or not MEMBER.match(path):
        return
    if req.method == "DELETE":
        EMPTY_MEMBERS.discard(path)
    if req.method != "PUT" or req.body:
        return
    EMPTY_MEMBERS.add(path)
    req.method, req.body = "PATCH", b"{}"
    req.headers = [(n, v) for n, v in req.headers if n.lower() != "content-type"]
    req.headers.append(("Content-Type", "application/merge-patch+json"))


def _empty_member_part_204(req: RelayRequest, resp: RelayResponse) -> None:
    """A member without content answered 200 with no content alone, and labelled 204 in a
    retrieval."""
    path = _path(req.target)
    if is_batch(req):
        return
    if path in EMPTY_MEMBERS and req.method == "PATCH" and resp.status == 200:
        resp.status, resp.body = 204, b""
        resp.set("Content-Type", None)
        return
    if path in EMPTY_MEMBERS and req.method == "GET" and resp.status == 200:
        resp.body = b""
        return
    parts = _retrieval(req, resp)
    b = boundary_of(resp)
    if parts is None or b is None:
        return
    out: list[Part] = []
    for fields, body in parts:
        cid = (field_of(fields, "Content-Id") or "").strip().strip("<>")
        if _path(cid) in EMPTY_MEMBERS:
            fields, body = set_field(fields, "Http-Status-Code", "204"), b""
            if field_of(fields, "Content-Length") is not None:
                fields = set_field(fields, "Content-Length", "0")
        out.append((fields, body))
    resp.body = write_parts(out, b)


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "collection-content-ids-from-host",
        "MB-METHOD-7 Content-Ids written from the request's Host under a strong aggregate ETag",
        ("collection-retrieval-same-under-request-variants",),
        caught_by=("FAIL",),
        on_response=_content_ids_from_host,
    ),
    Mutation(
        "collection-boundary-from-request",
        "MB-METHOD-7 a boundary hashed from the request's Host and target under a strong ETag",
        ("collection-retrieval-same-under-request-variants",),
        caught_by=("FAIL",),
        on_response=_boundary_from_request,
    ),
    Mutation(
        "empty-member-part-204",
        "MB-METHOD-4 a member without content written as a 204 part though its GET answers 200",
        ("sandbox-collection-unusual-members-as-alone",),
        caught_by=("FAIL",),
        on_request=_empty_put_taken,
        on_response=_empty_member_part_204,
    ),
)
