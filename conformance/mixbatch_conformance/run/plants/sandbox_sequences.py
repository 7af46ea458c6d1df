"""Planted violations of the sandbox collection's retrieval after sequences of writes (spec 4.2):
a member's media type kept outside the strong aggregate ETag (MB-METHOD-7), and a collection
order that lists a deleted member or a rewritten one twice (MB-METHOD-4). Each acts on requests
sent alone.

    member-type-outside-aggregate-tag   a sandbox that stores a member document under any media
                                        type (the reference's takes JSON alone: the relay
                                        forwards it as JSON and remembers the type), answers
                                        the member and its part with that type, and leaves the
                                        aggregate tag as the reference hashed it, so the same
                                        octets under another type keep the strong tag
    deleted-member-still-listed         a retrieval that keeps the part of a member deleted
                                        since (alone or by a multipart batch's part), as a
                                        listing cached per member answers
    rewritten-member-listed-twice       a member replaced by a PUT listed in two parts, as an
                                        order that appends the id on every write gives
"""

from __future__ import annotations

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

JSON_TYPE = "application/json"
#: The media type each member was last written with, where it is not JSON.
MEMBER_TYPES: dict[str, str] = {}
#: The part each member last had in a retrieval, and the members deleted since.
LAST_PARTS: dict[str, Part] = {}
DELETED: set[str] = set()
#: Members replaced by a PUT since they were created.
REWRITTEN: set[str] = set()


def _path(target: str) -> str:
    return urlsplit(target).path


def _part_path(fields: list[tuple[str, str]]) -> str:
    return _path((field_of(fields, "Content-Id") or "").strip().strip("<>"))


def _retrieval(req: RelayRequest, resp: RelayResponse) -> tuple[list[Part], str] | None:
    """The parts and boundary of a collection retrieval answered alone, else None."""
    if is_batch(req) or req.method != "GET" or resp.status != 200:
        return None
    b = boundary_of(resp)
    parts = parts_of(resp.body, b) if b else None
    return (parts, b) if parts is not None and b else None


def _type_kept(req: RelayRequest) -> None:
    """A PUT of a member in any media type forwarded as JSON, its type remembered."""
    path = _path(req.target)
    if is_batch(req) or not SANDBOX_MEMBER.match(path):
        return
    if req.method == "DELETE":
        MEMBER_TYPES.pop(path, None)
    if req.method != "PUT":
        return
    ctype = (req.get("Content-Type") or "").strip()
    if ctype.split(";")[0].strip().lower() == JSON_TYPE:
        MEMBER_TYPES.pop(path, None)
        return
    MEMBER_TYPES[path] = ctype
    req.headers = [(n, v) for n, v in req.headers if n.lower() != "content-type"]
    req.headers.append(("Content-Type", JSON_TYPE))


def _type_answered(req: RelayRequest, resp: RelayResponse) -> None:
    """The member, alone and as a part, answered with the type it was written with; the
    retrieval's aggregate ETag left as the server hashed it (from the JSON it stored)."""
    path = _path(req.target)
    if not is_batch(req) and req.method == "GET" and path in MEMBER_TYPES and resp.status == 200:
        resp.set("Content-Type", MEMBER_TYPES[path])
        return
    found = _retrieval(req, resp)
    if found is None:
        return
    parts, b = found
    out: list[Part] = []
    for fields, body in parts:
        kept = MEMBER_TYPES.get(_part_path(fields))
        out.append((set_field(fields, "Content-Type", kept) if kept else fields, body))
    resp.body = write_parts(out, b)


def _deleted_in_batch(req: RelayRequest, resp: RelayResponse) -> None:
    """The members a multipart batch's DELETE parts deleted (answered 200 or 204)."""
    rb, sb = boundary_of(req), boundary_of(resp)
    asked = parts_of(req.body, rb) if rb else None
    answered = parts_of(resp.body, sb) if sb else None
    for (fields, _), (got, _) in zip(asked or [], answered or [], strict=False):
        path = _part_path(fields)
        method = (field_of(fields, "Http-Method") or "").strip().upper()
        status = (field_of(got, "Http-Status-Code") or "").strip()
        if method == "DELETE" and SANDBOX_MEMBER.match(path) and status in ("200", "204"):
            DELETED.add(path)


def _deleted_still_listed(req: RelayRequest, resp: RelayResponse) -> None:
    """A deleted member's last part kept in later retrievals."""
    path = _path(req.target)
    if is_batch(req):
        _deleted_in_batch(req, resp)
        return
    if req.method == "DELETE" and SANDBOX_MEMBER.match(path) and resp.status in (200, 204):
        DELETED.add(path)
        return
    found = _retrieval(req, resp)
    if found is None:
        return
    parts, b = found
    listed = {_part_path(fields) for fields, _ in parts}
    for fields, body in parts:
        LAST_PARTS[_part_path(fields)] = (fields, body)
    stale = [LAST_PARTS[p] for p in sorted(DELETED) if p in LAST_PARTS and p not in listed]
    if stale:
        resp.body = write_parts([*parts, *stale], b)


def _rewritten_twice(req: RelayRequest, resp: RelayResponse) -> None:
    """A member replaced by a PUT listed again at the end of later retrievals."""
    path = _path(req.target)
    if is_batch(req):
        return
    if SANDBOX_MEMBER.match(path):
        if req.method == "DELETE":
            REWRITTEN.discard(path)
        elif req.method == "PUT" and resp.status in (200, 204):
            REWRITTEN.add(path)
        return
    found = _retrieval(req, resp)
    if found is None:
        return
    parts, b = found
    again = [(fields, body) for fields, body in parts if _part_path(fields) in REWRITTEN]
    if again:
        resp.body = write_parts([*parts, *again], b)


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "member-type-outside-aggregate-tag",
        "MB-METHOD-7 a member's media type changed under the same strong aggregate ETag",
        ("sandbox-collection-write-sequences",),
        caught_by=("FAIL",),
        on_request=_type_kept,
        on_response=_type_answered,
    ),
    Mutation(
        "deleted-member-still-listed",
        "MB-METHOD-4 a deleted member's part kept in later collection retrievals",
        ("sandbox-collection-write-sequences", "property-sandbox-state-machine"),
        caught_by=("FAIL",),
        on_response=_deleted_still_listed,
    ),
    Mutation(
        "rewritten-member-listed-twice",
        "MB-METHOD-4 a member replaced by a PUT listed in two parts",
        ("sandbox-collection-write-sequences",),
        caught_by=("FAIL",),
        on_response=_rewritten_twice,
    ),
)
