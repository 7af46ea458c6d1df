"""Conditional fields on a sandbox member that has no current representation (MB-PROC-9).

Theory of operation: MB-PROC-9 asks a part's conditional fields to be evaluated "(RFC 9110
§13) exactly as for the standalone request". Where the target has no current representation
RFC 9110 gives each field a fixed evaluation: If-Match (`*` or a tag) is false (§13.1.1), so a
method that would otherwise run does not (412); If-None-Match (`*` or a tag) is true
(§13.1.2); If-Unmodified-Since is ignored when "the selected representation does not have a
last modification date" (§13.1.4); If-Modified-Since is ignored on a method other than GET or
HEAD and without a modification date (§13.1.3); and §13.2.2 orders a pair, If-Match deciding
before If-Unmodified-Since and If-None-Match before If-Modified-Since. A request that without
its conditions would not be 2xx (a GET or DELETE of a member that does not exist: 404 or 410)
keeps that answer, preconditions ignored (§13.2.1; spec 7.6: "A `GET`, `HEAD` or `DELETE` of a
member that does not exist is therefore answered 404 (or 410) whatever `If-Match` it carries").

The check learns from a PUT of the declared member document to a fresh member name, with no
conditional field, whether the sandbox creates members on PUT: MB-TEST-3 lets it refuse (404,
405), and then a PUT has no absent-target evaluation to judge (N/A). Otherwise each case is
sent alone, to a member name no request has used, and an answer RFC 9110 does not give is
noted (MB-PROC-9 binds the fields "of a part", no requirement the request alone); then every
case is sent again as a part of one batch, to other fresh names, and judged by RFC 9110 and,
where its answer alone is one RFC 9110 gives, against that answer. Every member a PUT created is deleted.
"""

from __future__ import annotations

import json
import secrets
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

JSON_TYPE = ("Content-Type", "application/json")
PAST = "Sun, 06 Nov 1994 08:49:37 GMT"
TAG = '"mb-suite-absent-tag"'
#: MB-TEST-3: "answers PUT to an absent member 201, 404 or 405".
REFUSED = frozenset({404, 405})

#: A case: its method, its conditional fields, and whether RFC 9110 evaluates it false
#: (If-Match present: the request must not run).
Case = tuple[str, tuple[tuple[str, str], ...], bool]


def _future() -> str:
    return format_datetime(datetime.now(UTC) + timedelta(days=365), True)


def _cases() -> list[Case]:
    future = _future()
    single: list[tuple[tuple[str, str], ...]] = [
        (("If-Unmodified-Since", PAST),),
        (("If-Unmodified-Since", future),),
        (("If-Modified-Since", PAST),),
        (("If-Modified-Since", future),),
        (("If-Match", "*"),),
        (("If-Match", TAG),),
        (("If-None-Match", "*"),),
        (("If-None-Match", TAG),),
        # RFC 9110 §13.2.2's pairs: If-Match before If-Unmodified-Since, If-None-Match before
        # If-Modified-Since, and If-Unmodified-Since (step 2) before If-None-Match (step 3).
        (("If-Match", "*"), ("If-Unmodified-Since", future)),
        (("If-Match", TAG), ("If-Unmodified-Since", PAST)),
        (("If-None-Match", "*"), ("If-Modified-Since", PAST)),
        (("If-None-Match", TAG), ("If-Modified-Since", future)),
        (("If-Unmodified-Since", PAST), ("If-None-Match", "*")),
    ]
    out: list[Case] = []
    for method in ("PUT", "DELETE", "GET"):
        for fields in single:
            out.append((method, fields, any(n == "If-Match" for n, _ in fields)))
    return out


def _describe(method: str, fields: tuple[tuple[str, str], ...]) -> str:
    return f"{method} with " + "; ".join(f"{n}: {v}" for n, v in fields)


def _fresh(coll: str) -> str:
    return f"{coll.rstrip('/')}/mb-suite-absent-{secrets.token_hex(6)}"


def _sub(method: str, path: str, fields: tuple[tuple[str, str], ...], doc: bytes) -> SubRequest:
    if method == "PUT":
        return SubRequest("PUT", path, (JSON_TYPE, *fields), doc)
    return SubRequest(method, path, fields)


def _allowed(plain: int, false_if_match: bool) -> frozenset[int]:
    """What RFC 9110 allows for a case whose request without conditions gets `plain`."""
    if not false_if_match:
        # §13.1.2-§13.1.4: every field but If-Match holds or is ignored here.
        return frozenset({plain})
    if 200 <= plain < 300:
        # §13.1.1: "the condition is false if the origin server does not have a current
        # representation" and it "MUST NOT perform the requested method".
        return frozenset({412})
    # Spec 7.6 on §13.2.1: "A `GET`, `HEAD` or `DELETE` of a member that does not exist is
    # therefore answered 404 (or 410) whatever `If-Match` it carries".
    return frozenset({plain})


@checker(
    "conditional-fields-on-absent-members",
    ("MB-PROC-9",),
    "PUT (creating), DELETE and GET requests to sandbox members that do not exist, carrying If-Unmodified-Since (past or future), If-Modified-Since, If-Match (* or a tag), If-None-Match (* or a tag) or the pairs RFC 9110 §13.2.2 orders, get the status RFC 9110 gives for a target with no current representation, alone and as parts, each part as its request alone.",
    profile="conditional",
    state=State.WRITES_IN_SANDBOX,
)
def conditional_fields_on_absent_members(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    member = ctx.target.sandbox_member
    if member is None:
        judge.not_applicable("the target declares no sandbox.member document to write")
    doc = json.dumps(member).encode()
    created: list[str] = []
    try:
        _judge_all(ctx, judge, coll, doc, created)
    finally:
        for path in created:
            ctx.alone(judge, SubRequest("DELETE", path))


def _plain(ctx: Context, judge: Judge, coll: str, doc: bytes, created: list[str]) -> dict[str, int]:
    """What each method gets, with no conditional field, on a member that does not exist."""
    out: dict[str, int] = {}
    for method in ("PUT", "DELETE", "GET"):
        path = _fresh(coll)
        status = ctx.alone(judge, _sub(method, path, (), doc)).status
        if 200 <= status < 300 and method == "PUT":
            created.append(path)
        out[method] = status
    if out["PUT"] in REFUSED:
        judge.not_applicable(
            f"the sandbox answers a PUT to a member that does not exist {out['PUT']} "
            "(MB-TEST-3 allows 404 and 405), so no member can be created by PUT"
        )
    if not 200 <= out["PUT"] < 300:
        judge.setup_error(f"a PUT to a member that does not exist answered {out['PUT']}")
    for method in ("DELETE", "GET"):
        if 200 <= out[method] < 300 or out[method] == 412:
            judge.setup_error(f"{method} of a member that does not exist answered {out[method]}")
    return out


def _judge_all(ctx: Context, judge: Judge, coll: str, doc: bytes, created: list[str]) -> None:
    plain = _plain(ctx, judge, coll, doc, created)
    cases = _cases()
    alone: list[int] = []
    for method, fields, false_if_match in cases:
        path = _fresh(coll)
        status = ctx.alone(judge, _sub(method, path, fields, doc)).status
        if method == "PUT" and 200 <= status < 300:
            created.append(path)
        alone.append(status)
        allowed = _allowed(plain[method], false_if_match)
        # MB-PROC-9 binds "the conditional header fields of a part", and no requirement binds
        # a request sent alone: an answer alone other than RFC 9110 §13's is noted, and the
        # parts below are judged by RFC 9110 (MB-PROC-9's evaluation) all the same.
        if status not in allowed:
            judge.note(
                f"{_describe(method, fields)}, alone, to a member that does not exist answered "
                f"{status}; RFC 9110 §13 gives {sorted(allowed)}"
            )
    subs = [_sub(m, _fresh(coll), f, doc) for m, f, _ in cases]
    env = expect_processed(ctx, judge, ctx.batch(judge, subs), [s.content_id for s in subs])
    for i, ((method, fields, false_if_match), sub) in enumerate(zip(cases, subs, strict=True)):
        got = part_status(env, i)
        if method == "PUT" and got is not None and 200 <= got < 300:
            created.append(sub.target)
        what = f"part {i} ({_describe(method, fields)}) to a member that does not exist"
        # MB-PROC-9: "evaluate the conditional header fields of a part (RFC 9110 §13) exactly
        # as for the standalone request, answering 304 (Not Modified) or 412 (Precondition
        # Failed) in the part when the standalone request would get them".
        allowed = _allowed(plain[method], false_if_match)
        judge.expect(what, got, allowed, "MB-PROC-9")
        if alone[i] not in allowed:
            # MB-PROC-9's evaluation is RFC 9110 §13's, not the standalone request's when that
            # one is evaluated otherwise: the part is judged by RFC 9110 above only.
            judge.note(f"{what}: not compared with its request alone ({alone[i]}, noted above)")
            continue
        judge.expect(
            f"{what}, as the same request alone",
            got,
            {alone[i]},
            "MB-PROC-9",
            allowed_text=f"{alone[i]} (the request alone)",
        )
