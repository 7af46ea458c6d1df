"""Planted violation of RFC 9110 §13's evaluation on a target with no current representation
(MB-PROC-9).

    unmodified-since-on-absent-member   a sandbox that creates members on PUT evaluates
                                        If-Unmodified-Since where the member does not exist,
                                        as if nothing there stayed unmodified, and answers 412,
                                        alone as in a part (RFC 9110 §13.1.4 ignores the field
                                        when there is no modification date)
    if-match-before-not-found           such a sandbox evaluates If-Match before it looks the
                                        member up, so a GET, HEAD or DELETE of a member that
                                        does not exist carrying If-Match gets 412 where spec
                                        7.6 (RFC 9110 §13.2.1) keeps its 404

The relay's reference server keeps its sandbox at /books and refuses a PUT to a book that does
not exist (404), which MB-TEST-3 allows; the plant models a sandbox that takes one instead. The
relay keeps what such PUTs wrote and answers their GET and DELETE itself, alone and in the parts
of a batch (which it reads in the order they were sent, as a plain multipart batch answers
them). A PUT to a book that does not exist carrying If-Match is refused 412, as RFC 9110
§13.1.1 says; in the first plant one carrying If-Unmodified-Since is refused 412 too, and in the
second a GET, HEAD or DELETE carrying If-Match is. What the relay kept is dropped once its member
is deleted.
"""

from __future__ import annotations

import re
from functools import partial

from mixbatch_conformance.run.mutations import FieldList, Mutation
from mixbatch_conformance.run.plants._edits import (
    Part,
    field_of,
    is_batch,
    map_answered_parts,
    set_field,
    without_field,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

MEMBER = re.compile(r"/books/[^/?]+")
#: Members a PUT created in the relay, by path, with the document it wrote.
_KEPT: dict[str, bytes] = {}


#: The planted bugs: which conditional field is evaluated where no member exists, and for which
#: methods.
UNMODIFIED_SINCE_ON_PUT = ("If-Unmodified-Since", frozenset({"PUT"}))
IF_MATCH_BEFORE_LOOKUP = ("If-Match", frozenset({"GET", "HEAD", "DELETE"}))
Bug = tuple[str, frozenset[str]]


def _relay_answer(
    bug: Bug, method: str, target: str, fields: FieldList, body: bytes, status: int
) -> tuple[int, bytes] | None:
    """The relay's answer to a request the server answered `status`; None keeps the server's."""
    if not MEMBER.fullmatch(target):
        return None
    if target in _KEPT:
        if method in ("GET", "HEAD"):
            return 200, _KEPT[target] if method == "GET" else b""
        if method == "DELETE":
            del _KEPT[target]
            return 204, b""
        if method == "PUT":
            _KEPT[target] = body
            return 204, b""
        return None
    if status != 404:
        return None
    field, methods = bug
    if method in methods and field_of(fields, field) is not None:
        # The bug: the field is evaluated as if the member existed (or, for a date, as if no
        # representation were one unmodified since then).
        return 412, b""
    if method != "PUT":
        return None
    if field_of(fields, "If-Match") is not None:
        return 412, b""
    _KEPT[target] = body
    return 201, body


def _target_of(fields: FieldList) -> str:
    cid = (field_of(fields, "Content-Id") or "").strip()
    return cid[1:-1] if cid.startswith("<") and cid.endswith(">") else cid


def _part_answer(bug: Bug, sent: Part, answered: Part) -> Part:
    """The answered part as the relay answers its request, or as the server did."""
    (qf, qb), (af, _) = sent, answered
    method = (field_of(qf, "Http-Method") or "GET").upper()
    code = field_of(af, "Http-Status-Code") or ""
    got = _relay_answer(bug, method, _target_of(qf), qf, qb, int(code) if code.isdigit() else 0)
    if got is None:
        return answered
    status, body = got
    af = set_field(af, "Http-Status-Code", str(status))
    af = without_field(without_field(af, "Content-Type"), "Content-Length")
    if body:
        af = [*af, ("Content-Type", "application/json")]
    return [*af, ("Content-Length", str(len(body)))], body


def _answer(bug: Bug, req: RelayRequest, resp: RelayResponse) -> None:
    if is_batch(req):
        # A plain multipart batch answers its parts in the order they were sent.
        map_answered_parts(partial(_part_answer, bug))(req, resp)
        return
    got = _relay_answer(bug, req.method, req.target, req.headers, req.body, resp.status)
    if got is None:
        return
    status, body = got
    resp.status = status
    resp.headers = [(n, v) for n, v in resp.headers if n.lower() in ("date", "server")]
    if body:
        resp.headers.append(("Content-Type", "application/json"))
    if status == 201:
        resp.headers.append(("Location", req.target))
    resp.body = body


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "unmodified-since-on-absent-member",
        "MB-PROC-9 If-Unmodified-Since evaluated where the member does not exist (412)",
        ("conditional-fields-on-absent-members",),
        on_response=partial(_answer, UNMODIFIED_SINCE_ON_PUT),
    ),
    Mutation(
        "if-match-before-not-found",
        "MB-PROC-9 If-Match evaluated before the member is looked up (412 where 404 is due)",
        ("conditional-fields-on-absent-members",),
        on_response=partial(_answer, IF_MATCH_BEFORE_LOOKUP),
    ),
)
