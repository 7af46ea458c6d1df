"""Planted violation of the names a sandbox gives the members a POST creates (MB-TEST-3).

    sandbox-post-takes-a-put-name   a POST to the sandbox names its new member after one a PUT
                                    created, replacing it, and answers 201 all the same (a
                                    counter that hands out the next number unchecked)

The relay's reference server keeps its sandbox at /books and refuses a PUT to an absent book
(404), which MB-TEST-3 allows; the plant models a sandbox that takes one instead. The relay
keeps what such PUTs wrote and answers their GET and DELETE itself. A POST answered 201 (alone,
or a part of a batch) then takes the name of the oldest of them: its Location names that member,
whose reads and deletes from then on go to the book the POST created, so the member reads the
POST's document in place of its PUT's. What the relay kept is dropped once its member is deleted.
"""

from __future__ import annotations

import re

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

MEMBER = re.compile(r"/books/[^/?]+")
COLLECTION = "/books"
#: A request field the relay adds on its way upstream to a member a POST took the name of.
TAKEN = "X-Plant-Taken-Name"

#: Members a PUT created in the relay, by path, with the document it wrote; oldest first.
_PUT: dict[str, bytes] = {}
#: Members a POST took the name of: their path -> the book the POST created upstream.
_TAKEN: dict[str, str] = {}


def _to_taken_book(req: RelayRequest) -> None:
    """A request to a member a POST took the name of reaches the book the POST created."""
    book = _TAKEN.get(req.target)
    if book is None or not MEMBER.fullmatch(req.target):
        return
    req.headers.append((TAKEN, req.target))
    if req.method == "DELETE":
        del _TAKEN[req.target]
    req.target = book


def _json(resp: RelayResponse, status: int, body: bytes) -> None:
    resp.status = status
    resp.headers = [(n, v) for n, v in resp.headers if n.lower() in ("date", "server")]
    if body:
        resp.headers.append(("Content-Type", "application/json"))
    resp.body = body


def _name_after_put(location: str | None) -> str | None:
    """The name a new member gets: the oldest PUT-created one's, which it replaces."""
    if not location or not _PUT:
        return None
    name = next(iter(_PUT))
    del _PUT[name]
    _TAKEN[name] = location
    return name


def _answer(req: RelayRequest, resp: RelayResponse) -> None:
    target = req.target
    if any(n == TAKEN for n, _ in req.headers):
        return
    if req.method == "POST" and target == COLLECTION and resp.status == 201:
        name = _name_after_put(resp.get("Location"))
        if name is not None:
            resp.set("Location", name)
        return
    b = boundary_of(resp)
    if b and is_batch(req):
        parts = parts_of(resp.body, b)
        if parts is not None:
            resp.body = write_parts([_part(fields, body) for fields, body in parts], b)
        return
    if not MEMBER.fullmatch(target):
        return
    if req.method == "PUT" and (target in _PUT or resp.status == 404):
        created = target not in _PUT
        _PUT[target] = req.body
        _json(resp, 201 if created else 204, req.body if created else b"")
        if created:
            resp.set("Location", target)
    elif req.method == "GET" and target in _PUT:
        _json(resp, 200, _PUT[target])
    elif req.method == "DELETE" and target in _PUT:
        del _PUT[target]
        _json(resp, 204, b"")


def _part(fields: FieldList, body: bytes) -> tuple[FieldList, bytes]:
    if field_of(fields, "Http-Status-Code") == "201":
        name = _name_after_put(field_of(fields, "Location"))
        if name is not None:
            fields = set_field(fields, "Location", name)
    return fields, body


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    P(
        "sandbox-post-takes-a-put-name",
        "MB-TEST-3 a POST names its new member after one a PUT created, replacing it",
        ("sandbox-post-never-takes-a-put-name",),
        on_request=_to_taken_book,
        on_response=_answer,
    ),
)
