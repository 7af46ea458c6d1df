"""Planted violations of a collection retrieval's representation (spec 4.2): octets that follow
the request under a strong aggregate ETag, or other representations under that tag
(MB-METHOD-7), conditional fields matched by another representation's tag (MB-STATUS-7), and a
member without content written as a part that is not what its GET alone answers (MB-METHOD-4).

    collection-content-ids-from-host      each part's Content-Id made absolute with the Host
                                          the retrieval was asked by, the tag left strong
    collection-boundary-from-request      the boundary hashed from the Host and request-target
                                          as well as the collection's state, the tag left strong
    collection-tag-shared-by-listing      the collection's other representations (its JSON
                                          listing) given the retrieval's strong aggregate ETag,
                                          as a validator hashed from the members alone gives
    collection-conditional-any-tag        If-None-Match and If-Match on a retrieval compared
                                          with the tags of every representation of the
                                          collection, not with the aggregate tag alone
    empty-member-part-204                 a sandbox that takes a PUT without content (the
                                          reference's refuses it: the relay keeps the member as
                                          it was and answers for it with no content), whose
                                          retrieval labels that member's part 204 though its GET
                                          alone answers 200
    not-modified-echoes-request-tag       a retrieval's 304 carrying the tag If-None-Match
                                          sent (its weak spelling, say), not the aggregate tag
                                          the 200 carries
    retrieval-conditions-per-member       a retrieval's If-None-Match also evaluated against
                                          each member, a member whose own tag it lists written
                                          as a 304 part without content
    retrieval-dates-by-oldest-member      a retrieval's If-Modified-Since judged against the
                                          oldest member's date, not the aggregate
                                          Last-Modified it carries: 304 for a date between
"""

from __future__ import annotations

import hashlib
from email.utils import parsedate_to_datetime
from urllib.parse import urlsplit

from mixbatch_conformance.run.mutations import Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    SANDBOX_MEMBER,
    Part,
    boundary_of,
    field_of,
    is_batch,
    parts_of,
    set_field,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: Members the relay holds as written without content while its plant is in place.
EMPTY_MEMBERS: set[str] = set()
#: The last aggregate tag each collection path was retrieved under, and the tags its other
#: representations were answered with, as the relay saw them.
RETRIEVAL_TAGS: dict[str, str] = {}
LISTING_TAGS: dict[str, set[str]] = {}


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


def _is_retrieval(resp: RelayResponse) -> bool:
    ctype = (resp.get("Content-Type") or "").lower()
    return resp.status == 204 or (resp.status == 200 and ctype.startswith("multipart/mixed"))


def _tag_shared_by_listing(req: RelayRequest, resp: RelayResponse) -> None:
    """A collection's other representations answered under its retrieval's aggregate tag."""
    if is_batch(req) or req.method not in ("GET", "HEAD"):
        return
    path = _path(req.target)
    tag = resp.get("ETag")
    if _is_retrieval(resp) and tag:
        RETRIEVAL_TAGS[path] = tag
    elif resp.status == 200 and path in RETRIEVAL_TAGS:
        resp.set("ETag", RETRIEVAL_TAGS[path])


def _opaque(tag: str) -> str:
    tag = tag.strip()
    return tag[2:] if tag.startswith("W/") else tag


def _conditional_any_tag(req: RelayRequest) -> None:
    """A retrieval's If-None-Match and If-Match matched by any representation's tag: one that
    names another representation's tag is shown the server with the aggregate tag instead."""
    path = _path(req.target)
    listed = {_opaque(t) for t in LISTING_TAGS.get(path, set())}
    aggregate = RETRIEVAL_TAGS.get(path)
    if is_batch(req) or req.method not in ("GET", "HEAD") or aggregate is None or not listed:
        return
    out: list[tuple[str, str]] = []
    for name, value in req.headers:
        if name.lower() in ("if-none-match", "if-match"):
            tags = [t.strip() for t in value.split(",")]
            tags = [
                ("W/" if t.startswith("W/") else "") + _opaque(aggregate)
                if _opaque(t) in listed
                else t
                for t in tags
            ]
            value = ", ".join(tags)
        out.append((name, value))
    req.headers = out


def _learn_tags(req: RelayRequest, resp: RelayResponse) -> None:
    """Remember each collection's aggregate tag and its other representations' tags."""
    if is_batch(req) or req.method != "GET" or req.get("If-None-Match") or req.get("If-Match"):
        return
    path = _path(req.target)
    tag = resp.get("ETag")
    if not tag:
        return
    if _is_retrieval(resp):
        RETRIEVAL_TAGS[path] = tag
    elif resp.status == 200:
        LISTING_TAGS.setdefault(path, set()).add(tag)


def _empty_put_taken(req: RelayRequest) -> None:
    """A PUT without content to a sandbox member taken as that member's new (empty) content:
    forwarded as a merge patch that changes nothing, so the member stays."""
    path = _path(req.target)
    if is_batch(req) or not SANDBOX_MEMBER.match(path):
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


def _member_conditions_per_part(req: RelayRequest, resp: RelayResponse) -> None:
    """A retrieval whose If-None-Match lists a member's own tag writes that member as a 304
    part without content, as if each part were a conditional GET of its member."""
    parts = _retrieval(req, resp)
    b = boundary_of(resp)
    listed = {_opaque(t) for t in (req.get("If-None-Match") or "").split(",") if t.strip()}
    if parts is None or b is None or not listed:
        return
    out: list[Part] = []
    for fields, body in parts:
        tag = field_of(fields, "ETag")
        if tag is not None and _opaque(tag) in listed:
            fields = [
                (n, v)
                for n, v in set_field(fields, "Http-Status-Code", "304")
                if n.lower() not in ("content-type", "content-length")
            ]
            fields, body = [*fields, ("Content-Length", "0")], b""
        out.append((fields, body))
    resp.body = write_parts(out, b)


def _not_modified_echoes_request_tag(req: RelayRequest, resp: RelayResponse) -> None:
    """A retrieval's 304 carrying the tag the request's If-None-Match sent, not its own."""
    sent = (req.get("If-None-Match") or "").strip()
    if not is_batch(req) and resp.status == 304 and sent and "," not in sent and sent != "*":
        resp.set("ETag", sent)


def _stamp(value: str | None) -> float | None:
    try:
        return parsedate_to_datetime(value or "").timestamp()
    except (TypeError, ValueError):
        return None


def _dates_by_oldest_member(req: RelayRequest, resp: RelayResponse) -> None:
    """A retrieval whose If-Modified-Since is no earlier than its oldest member's date answered
    304, as if the collection had not changed since the first member was written."""
    parts = _retrieval(req, resp)
    since = _stamp(req.get("If-Modified-Since"))
    if parts is None or since is None:
        return
    dates = [_stamp(field_of(fields, "Last-Modified")) for fields, _ in parts]
    known = [d for d in dates if d is not None]
    if not known or since < min(known):
        return
    resp.status, resp.body = 304, b""
    for name in ("Content-Type", "Content-Length"):
        resp.set(name, None)


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
        "collection-tag-shared-by-listing",
        "MB-METHOD-7 a collection's JSON listing answered under the retrieval's strong tag",
        ("collection-tag-per-representation",),
        caught_by=("FAIL",),
        on_response=_tag_shared_by_listing,
    ),
    Mutation(
        "collection-conditional-any-tag",
        "MB-STATUS-7 a retrieval's conditional fields matched by another representation's tag",
        ("collection-tag-per-representation",),
        caught_by=("FAIL",),
        on_request=_conditional_any_tag,
        on_response=_learn_tags,
    ),
    Mutation(
        "retrieval-conditions-per-member",
        "MB-METHOD-4 a retrieval's If-None-Match evaluated per part, a listed member's part 304",
        ("collection-parts-ignore-member-conditions",),
        on_response=_member_conditions_per_part,
    ),
    Mutation(
        "retrieval-dates-by-oldest-member",
        "MB-STATUS-7 a retrieval's If-Modified-Since judged by its oldest member's date",
        ("collection-parts-ignore-member-conditions",),
        on_response=_dates_by_oldest_member,
    ),
    Mutation(
        "not-modified-echoes-request-tag",
        "MB-METHOD-4 a retrieval's 304 carrying the If-None-Match tag sent, not its own",
        ("collection-tag-strength-compared",),
        on_response=_not_modified_echoes_request_tag,
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
