"""Planted sandboxes whose POST, once a member was deleted, names its new member after one still
there (MB-TEST-3: a POST answers "by creating a new member").

    sandbox-post-takes-live-name-after-delete
                                    after a DELETE of a member, the next POST answered 201
                                    names its member after the newest one a POST created and
                                    no DELETE removed, writing over it (a name drawn from the
                                    number of members plus one)
    sandbox-post-takes-put-name-after-delete
                                    a sandbox that creates members by PUT; after a DELETE, the
                                    next POST answered 201 names its member after the newest
                                    one a PUT created, writing over it (a counter that checks
                                    the names in use only until a name is freed)

The relay's reference server keeps its sandbox at /books, names each book a POST creates by a
counter of its own and refuses a PUT to an absent book (404), which MB-TEST-3 allows. Each plant
keeps a table in the relay of the names it hands out for the books upstream: a POST that takes
a member's name gets the book the POST created upstream behind that name, so from then on the
member reads the POST's document in place of its own (the first plant deletes the book it wrote
over upstream before the next request). The second plant also keeps the members
PUTs create, answering their GET, PUT and DELETE itself; a POST whose upstream book would land
on such a name (the reference's counter knows nothing of them) is given a name of its own
instead, so that only a POST after a DELETE takes one. Requests alone are routed by the table;
a batch's DELETE parts and POST parts are read and its POST parts' Locations renamed the same way.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

from mixbatch_conformance.run.mutations import FieldList, Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    boundary_of,
    field_of,
    is_batch,
    parts_of,
    set_field,
)
from mixbatch_conformance.transport.http import build_request
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

COLLECTION = "/books"
#: A request field the relay adds to a request it routed to a book upstream: the name asked for.
ROUTED = "X-Plant-Routed-Name"
#: Where a request to a member the relay holds itself goes upstream: no book is named so.
NOWHERE = "/books/0"
#: The first of the names the relay gives a POST's book that would land on a PUT-created name.
OWN_NAMES = 900_000_000


def _path(value: str | None) -> str | None:
    return urlsplit(urljoin(f"{COLLECTION}/", value.strip())).path if value else None


def _json(resp: RelayResponse, status: int, body: bytes) -> None:
    resp.status = status
    resp.headers = [(n, v) for n, v in resp.headers if n.lower() in ("date", "server")]
    if body:
        resp.headers.append(("Content-Type", "application/json"))
    resp.body = body


@dataclass
class _Sandbox:
    """The names the relay hands out, and (with `puts`) the members PUTs created in it."""

    puts: bool
    #: Names of members a POST created and no DELETE removed, oldest first.
    posted: dict[str, None] = field(default_factory=dict)
    #: Members a PUT created in the relay: name -> the document written; oldest first.
    held: dict[str, bytes] = field(default_factory=dict)
    #: Names handed out for books upstream named otherwise: name -> the book's path.
    routes: dict[str, str] = field(default_factory=dict)
    #: Whether a DELETE removed a member since the last POST.
    armed: bool = False
    own: itertools.count[int] = field(default_factory=lambda: itertools.count(OWN_NAMES))
    #: Books upstream whose name a POST took: written over, so deleted before the next request.
    overwritten: list[str] = field(default_factory=list)

    def request(self, req: RelayRequest) -> None:
        """A request alone to a name the relay handed out reaches the book behind it; one to
        a member the relay holds reaches no book."""
        while self.overwritten and req.upstream is not None:
            book = self.overwritten.pop()
            req.upstream(build_request("DELETE", book, req.get("Host") or "relay", [], None))
        if is_batch(req) or not req.target.startswith(f"{COLLECTION}/"):
            return
        if req.target in self.routes:
            req.headers.append((ROUTED, req.target))
            req.target = self.routes[req.target]
        elif req.target in self.held:
            req.headers.append((ROUTED, req.target))
            req.target = NOWHERE

    def named(self, upstream: str | None) -> str | None:
        """The name a POST's new member is given, the book upstream being `upstream`."""
        if upstream is None:
            return None
        armed, self.armed = self.armed, False
        if armed and self.puts and self.held:
            name = next(reversed(self.held))
            del self.held[name]
        elif armed and not self.puts and self.posted:
            name = next(reversed(self.posted))
            del self.posted[name]
            self.overwritten.append(self.routes.get(name, name))
        elif upstream in self.held or upstream in self.routes:
            name = f"{COLLECTION}/{next(self.own)}"
        else:
            self.posted[upstream] = None
            return upstream
        self.routes[name] = upstream
        self.posted[name] = None
        return name

    def deleted(self, name: str) -> None:
        self.posted.pop(name, None)
        self.routes.pop(name, None)
        self.armed = True

    def response(self, req: RelayRequest, resp: RelayResponse) -> None:
        asked = next((v for n, v in req.headers if n == ROUTED), req.target)
        if is_batch(req):
            self._batch(req, resp)
        elif req.method == "POST" and req.target == COLLECTION and resp.status == 201:
            name = self.named(_path(resp.get("Location")))
            if name is not None:
                resp.set("Location", name)
        elif asked in self.held:
            self._held(asked, req, resp)
        elif self.puts and req.method == "PUT" and resp.status == 404:
            self.held[asked] = req.body
            _json(resp, 201, req.body)
            resp.set("Location", asked)
        elif req.method == "DELETE" and resp.status in (200, 204):
            self.deleted(asked)

    def _held(self, name: str, req: RelayRequest, resp: RelayResponse) -> None:
        """A request to a member a PUT created in the relay, answered from what it holds."""
        if req.method == "GET":
            _json(resp, 200, self.held[name])
        elif req.method == "PUT":
            self.held[name] = req.body
            _json(resp, 204, b"")
        elif req.method == "DELETE":
            del self.held[name]
            self.deleted(name)
            _json(resp, 204, b"")

    def _batch(self, req: RelayRequest, resp: RelayResponse) -> None:
        """A batch's DELETE parts that removed a member arm the next POST; its POST parts
        answered 201 are named as a POST alone is."""
        rb, sb = boundary_of(req), boundary_of(resp)
        asked = parts_of(req.body, rb) if rb else None
        answered = parts_of(resp.body, sb) if sb else None
        if asked is None or answered is None or sb is None:
            return
        out: list[tuple[FieldList, bytes]] = []
        for (fields, _), (got, body) in zip(asked, answered, strict=False):
            method = (field_of(fields, "Http-Method") or "").strip().upper()
            status = (field_of(got, "Http-Status-Code") or "").strip()
            if method == "DELETE" and status in ("200", "204"):
                self.deleted(_path((field_of(fields, "Content-Id") or "").strip("<> ")) or "")
            elif method == "POST" and status == "201":
                name = self.named(_path(field_of(got, "Location")))
                if name is not None:
                    got = set_field(got, "Location", name)
            out.append((got, body))
        out.extend(answered[len(out) :])
        resp.body = write_parts(out, sb)


def _plant(puts: bool) -> tuple[Callable[[RelayRequest], None], Callable[..., None]]:
    sandbox = _Sandbox(puts)
    return sandbox.request, sandbox.response


_LIVE = _plant(puts=False)
_PUT = _plant(puts=True)
P = Mutation
PLANTS: tuple[Mutation, ...] = (
    P(
        "sandbox-post-takes-live-name-after-delete",
        "MB-TEST-3 a POST after a DELETE names its new member after a member still there",
        ("sandbox-creations-after-deletes", "property-sandbox-state-machine"),
        caught_by=("FAIL",),
        on_request=_LIVE[0],
        on_response=_LIVE[1],
    ),
    P(
        "sandbox-post-takes-put-name-after-delete",
        "MB-TEST-3 a POST after a DELETE names its new member after one a PUT created",
        ("sandbox-creations-after-deletes",),
        caught_by=("FAIL",),
        on_request=_PUT[0],
        on_response=_PUT[1],
    ),
)
