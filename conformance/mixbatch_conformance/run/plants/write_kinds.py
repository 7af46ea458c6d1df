"""Planted violations that hold for some kinds of write, framing or collection size only.

Covers an atomic rollback that leaves a rewritten member, a deleted member or a created member
as the rolled-back part left it (MB-PROC-8), a sandbox that stores nothing of a PUT or a POST
sent chunked (MB-TEST-4), an echo that describes a chunked request's content as empty
(MB-TEST-2), and a collection retrieval that answers the first 1000 members only (MB-METHOD-4).
The relay's reference server keeps its sandbox at /books and its echo at /echo.

The rollback plants remember what each rolled-back part did and answer later standalone GETs
of its member as if it had not been undone, which is what a server that undoes only some
kinds of write serves.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from mixbatch_conformance.run.mutations import FieldList, Mutation, write_parts
from mixbatch_conformance.run.plants._edits import boundary_of, field_of, is_batch, parts_of
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

MEMBER = re.compile(r"/books/([^/?]+)")
#: The most parts the paged retrieval answers.
PAGE = 1000


def _target(fields: FieldList) -> str:
    cid = (field_of(fields, "Content-Id") or "").strip()
    return cid[1:-1] if cid.startswith("<") and cid.endswith(">") else cid


def _rolled_back(
    req: RelayRequest, resp: RelayResponse
) -> list[tuple[str, str, bytes, int, FieldList]]:
    """(method, target, request body, status, response fields) of each rolled-back part."""
    rb, qb = boundary_of(resp), boundary_of(req)
    if not (is_batch(req) and rb and qb):
        return []
    asked, answered = parts_of(req.body, qb), parts_of(resp.body, rb)
    if asked is None or answered is None:
        return []
    out = []
    for (qf, qbody), (af, _) in zip(asked, answered, strict=False):
        if (field_of(af, "Batch-Outcome") or "").strip() != "rolled-back":
            continue
        status = (field_of(af, "Http-Status-Code") or "0").strip()
        method = (field_of(qf, "Http-Method") or "GET").strip().upper()
        out.append((method, _target(qf), qbody, int(status) if status.isdigit() else 0, af))
    return out


def _left_behind(kind: str) -> Callable[[RelayRequest, RelayResponse], None]:
    """A relay edit that keeps the effect of a rolled-back part of `kind` (PUT, DELETE or
    POST) visible to later standalone GETs of its member."""
    #: Member path -> (status, body) a standalone GET of it is answered with: what a write of
    #: this kind in a rolled-back part left there.
    left: dict[str, tuple[int, bytes]] = {}

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        for method, target, body, status, fields in _rolled_back(req, resp):
            if method != kind:
                continue
            if kind == "PUT" and status in (200, 204):
                left[target] = (200, body)
            elif kind == "DELETE" and status in (200, 204):
                left[target] = (404, b"")
            elif kind == "POST" and status == 201:
                location = field_of(fields, "Location") or ""
                left[re.sub(r"^https?://[^/]+", "", location)] = (200, body)
        kept = left.get(req.target)
        if req.method == "GET" and kept is not None and resp.status in (200, 404, 410):
            resp.status, resp.body = kept
            if kept[0] != 200:
                resp.headers = [(n, v) for n, v in resp.headers if n.lower() != "etag"]

    return edit


def _chunked_write_empty(
    path: re.Pattern[str], method: str, empty: bytes
) -> Callable[[RelayRequest], None]:
    def edit(req: RelayRequest) -> None:
        if req.method == method and req.chunks and path.fullmatch(req.target):
            req.body = empty

    return edit


def _first_page(req: RelayRequest, resp: RelayResponse) -> None:
    b = boundary_of(resp)
    if req.method != "GET" or req.target != "/books" or not b:
        return
    parts = parts_of(resp.body, b)
    if parts is not None and len(parts) > PAGE:
        resp.body = write_parts(parts[:PAGE], b)


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    P(
        "atomic-rollback-keeps-rewrite",
        "MB-PROC-8 a rolled-back PUT to an existing member is not undone",
        ("atomic-rollback-every-write-kind", "atomic-rollback-never-seen"),
        on_response=_left_behind("PUT"),
    ),
    P(
        "atomic-rollback-keeps-delete",
        "MB-PROC-8 a rolled-back DELETE of a member is not undone",
        ("atomic-rollback-every-write-kind", "atomic-rollback-never-seen"),
        on_response=_left_behind("DELETE"),
    ),
    P(
        "atomic-rollback-keeps-creation",
        "MB-PROC-8 a member created by a rolled-back POST is still there",
        ("atomic-rollback-every-write-kind",),
        on_response=_left_behind("POST"),
    ),
    P(
        "sandbox-chunked-put-stored-empty",
        "MB-TEST-4 a PUT sent chunked stores an empty object",
        ("sandbox-writes-any-framing",),
        on_request=_chunked_write_empty(MEMBER, "PUT", b"{}"),
    ),
    P(
        "sandbox-chunked-post-stored-empty",
        "MB-TEST-4 a POST sent chunked creates an empty object",
        ("sandbox-writes-any-framing",),
        on_request=_chunked_write_empty(re.compile("/books"), "POST", b"{}"),
    ),
    P(
        "echo-chunked-content-empty",
        "MB-TEST-2 the echo describes a chunked request's content as empty",
        ("test-resource-echo-any-framing",),
        on_request=_chunked_write_empty(re.compile(r"/echo(\?.*)?"), "PUT", b""),
    ),
    P(
        "retrieval-first-thousand-members",
        "MB-METHOD-4 a collection retrieval answers the first 1000 members only",
        ("sandbox-collection-every-member-retrieved",),
        on_response=_first_page,
    ),
)
