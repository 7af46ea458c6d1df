"""Planted sandboxes that take a member id for something other than the member it names.

    sandbox-inherited-names-present   a store keyed like a plain object: ids naming what every
                                      object inherits (constructor, toString, __proto__, ...)
                                      look present before anything was written, so a PUT to one
                                      is answered 204 as a replacement, its GET 500, and its
                                      DELETE 204 (MB-TEST-3)
    sandbox-number-ids-overwrite      ids looked up as written but stored by the number they
                                      read as: a PUT to 0123 is answered 201 as a new member
                                      and writes over 123's document (MB-TEST-4)
    sandbox-ids-fold-case             a store keyed by the id in lower case: a PUT to abc after
                                      one created AbC is answered 204 (MB-TEST-3)
    sandbox-spelling-decoded-on-writes
                                      percent-encoded octets decoded for a PUT and a DELETE but
                                      not for a GET: a spelling whose GET finds no member is
                                      replaced by PUT with 204 and deleted with 204 (MB-TEST-3)

The relay's reference server keeps its sandbox at /books and refuses a PUT to an absent book
(404), which MB-TEST-3 allows; each plant models a sandbox that takes such PUTs in a store of
the relay's, keyed as the plant says. A request to a member that store holds, by the key its
method looks up, is answered from the store; any other goes on to the reference server. Only
requests alone reach the store: the checks that catch these plants write alone.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Hashable
from urllib.parse import unquote

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

MEMBER = re.compile(r"/books/([^/?#]+)")
#: What every JavaScript object inherits from Object.prototype, looked up by a plain object.
INHERITED = frozenset(
    {
        "constructor",
        "__proto__",
        "toString",
        "toLocaleString",
        "valueOf",
        "hasOwnProperty",
        "isPrototypeOf",
        "propertyIsEnumerable",
        "__defineGetter__",
        "__defineSetter__",
        "__lookupGetter__",
        "__lookupSetter__",
    }
)

Key = Callable[[str], Hashable]


def _as_written(ident: str) -> Hashable:
    return ident


def _as_number(ident: str) -> Hashable:
    """The number `ident` reads as (digit separators, a sign and an exponent included), or the
    id itself when it reads as none or as a value that is not finite."""
    try:
        return int(ident, 10)
    except ValueError:
        pass
    try:
        value = float(ident)
    except ValueError:
        return ident
    if not math.isfinite(value):
        return ident
    return int(value) if value.is_integer() else value


def _lower(ident: str) -> Hashable:
    return ident.lower()


def _decoded(ident: str) -> Hashable:
    return unquote(ident)


def _answer(resp: RelayResponse, status: int, body: bytes = b"") -> None:
    resp.status = status
    resp.headers = [(n, v) for n, v in resp.headers if n.lower() in ("date", "server")]
    if body:
        resp.headers.append(("Content-Type", "application/json"))
    resp.body = body


def _store(
    *,
    read: Key = _as_written,
    write: Key = _as_written,
    exists: Key | None = None,
    inherited: frozenset[str] = frozenset(),
) -> Callable[[RelayRequest, RelayResponse], None]:
    """A sandbox that creates members by PUT in a store keyed by `read` for a GET and by
    `write` for a PUT and a DELETE; `exists` (when given) keys the index every method looks up
    to tell an existing member from an absent one, apart from the store. Ids in `inherited` look
    present when nothing was written to them: a GET answers 500, a PUT replaces (204) and a
    DELETE answers 204."""
    held: dict[Hashable, bytes] = {}
    seen: set[Hashable] = set()

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        m = MEMBER.fullmatch(req.target)
        if m is None:
            return
        ident = m.group(1)
        key = read(ident) if req.method == "GET" else write(ident)
        present = exists(ident) in seen if exists else key in held
        if req.method == "GET":
            if present and key in held:
                _answer(resp, 200, held[key])
            elif ident in inherited:
                _answer(resp, 500, json.dumps({"title": "Internal error"}).encode())
        elif req.method == "PUT":
            if not present and ident not in inherited and resp.status != 404:
                return
            held[key] = req.body
            if exists is not None:
                seen.add(exists(ident))
            _answer(resp, 204 if present or ident in inherited else 201)
            if resp.status == 201:
                resp.headers.append(("Location", req.target))
        elif req.method == "DELETE" and (present or ident in inherited):
            held.pop(key, None)
            if exists is not None:
                seen.discard(exists(ident))
            _answer(resp, 204)

    return edit


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    P(
        "sandbox-inherited-names-present",
        "MB-TEST-3 a PUT to an absent member whose id an object inherits answered 204",
        ("sandbox-member-ids-confusable",),
        on_response=_store(inherited=INHERITED),
    ),
    P(
        "sandbox-number-ids-overwrite",
        "MB-TEST-4 a PUT creating a member writes over the one whose id reads as the same number",
        ("sandbox-member-ids-confusable",),
        on_response=_store(read=_as_number, write=_as_number, exists=_as_written),
    ),
    P(
        "sandbox-ids-fold-case",
        "MB-TEST-3 a PUT to an absent member whose id differs in case from another's answered 204",
        ("sandbox-member-ids-case-distinct",),
        on_response=_store(read=_lower, write=_lower),
    ),
    P(
        "sandbox-spelling-decoded-on-writes",
        "MB-TEST-3 a PUT to a percent-encoded spelling its GET finds no member at answered 204",
        ("sandbox-member-ids-confusable",),
        on_response=_store(write=_decoded),
    ),
)
