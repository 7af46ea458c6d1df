"""Conditional fields on parts whose request fails without them (spec 7.6, RFC 9110 §13.2.1).

Theory of operation: MB-PROC-9 asks a server to "evaluate the conditional header fields of a
part (RFC 9110 §13) exactly as for the standalone request", and RFC 9110 §13.2.1 has a server
"ignore all received preconditions if its response to the same request without those
conditions, prior to processing the request content, would have been a status code other than
a 2xx (Successful) or 412 (Precondition Failed)". A server that evaluates a resource's
preconditions in front of its routes (for every method, or for every collection) answers 412
where the method is not routed, the target does not exist or the media type is refused, and
makes the same mistake alone: only the answer to the request without the field tells.

`conditional-fields-where-the-request-fails` reads and writes only what the suite may touch:
GET and HEAD of `not_found` and of the status resource for 404, 405, 410 and 415; GET, HEAD,
DELETE, POST and PATCH of a sandbox member that does not exist and a PUT of text/plain content
to one; a POST of text/plain content to the sandbox collection; PATCH and PUT of text/plain
content to a member the check created. `conditional-fields-on-refused-posts` POSTs the
declared member document to the other declared resources (the collection, the empty
collection, `ok`, `etag_resource`, `not_found`, the status resource for 404 and 405), which
only a disposable target lets a suite write to. Each request is sent alone without conditional
fields first; where that answer is a 4xx other than 412, the same request with each
conditional field (If-None-Match `*` or a foreign tag, If-Match a foreign tag or `*`,
If-Unmodified-Since in the past, If-Modified-Since of now) must get it in a part
(`_shared.refused_conditionals`).
"""

from __future__ import annotations

import json
import secrets

from mixbatch_conformance.checks._shared.refused_conditionals import (
    FailingCase,
    judge_failing_cases,
)
from mixbatch_conformance.checks._shared.requests import new_member
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

JSON_TYPE = ("Content-Type", "application/json")
TEXT_TYPE = ("Content-Type", "text/plain")
TEXT = b"mb-suite: content of a media type the sandbox need not take"
#: Status codes the status resource answers that a request without conditions fails with.
STATUS_CODES = (404, 405, 410, 415)


def _fixed(what: str, sub: SubRequest) -> FailingCase:
    return FailingCase(what, lambda: sub)


def _read_cases(ctx: Context) -> list[FailingCase]:
    """GET and HEAD of `not_found` and of the status resource's failing codes."""
    cases: list[FailingCase] = []
    paths: list[tuple[str, str]] = []
    if (missing := ctx.target.resource("not_found")) is not None:
        paths.append(("not_found", ctx.path(missing)))
    if (template := ctx.target.resource("status")) is not None:
        for code in STATUS_CODES:
            paths.append(
                (f"the status resource for {code}", ctx.path(template.replace("{code}", str(code))))
            )
    for role, path in paths:
        for method in ("GET", "HEAD"):
            cases.append(_fixed(f"{method} of {role}", SubRequest(method, path)))
    return cases


def _absent(coll: str) -> str:
    return f"{coll.rstrip('/')}/mb-suite-absent-{secrets.token_hex(6)}"


def _sandbox_cases(ctx: Context, judge: Judge) -> list[FailingCase]:
    """Requests to the sandbox that a sandbox may refuse without conditions."""
    coll_ref = ctx.target.resource("sandbox_collection")
    member = ctx.target.sandbox_member
    if coll_ref is None or member is None:
        return []
    coll = ctx.path(coll_ref)
    doc = json.dumps(member).encode()
    cases = [
        FailingCase(
            "GET of a member that does not exist", lambda: SubRequest("GET", _absent(coll))
        ),
        FailingCase(
            "HEAD of a member that does not exist", lambda: SubRequest("HEAD", _absent(coll))
        ),
        FailingCase(
            "DELETE of a member that does not exist", lambda: SubRequest("DELETE", _absent(coll))
        ),
        FailingCase(
            "POST to a member that does not exist",
            lambda: SubRequest("POST", _absent(coll), (JSON_TYPE,), doc),
        ),
        FailingCase(
            "PATCH of a member that does not exist",
            lambda: SubRequest("PATCH", _absent(coll), (JSON_TYPE,), doc),
        ),
        FailingCase(
            "PUT of text/plain to a member that does not exist",
            lambda: SubRequest("PUT", _absent(coll), (TEXT_TYPE,), TEXT),
        ),
        _fixed(
            "POST of text/plain to the sandbox collection",
            SubRequest("POST", coll, (TEXT_TYPE,), TEXT),
        ),
    ]
    path, _ = new_member(ctx, judge)
    # PUT first: where it replaces the member, PATCH is learned and judged on what it left.
    for method in ("PUT", "PATCH"):
        cases.append(
            _fixed(
                f"{method} of text/plain to a member", SubRequest(method, path, (TEXT_TYPE,), TEXT)
            )
        )
    return cases


@checker(
    "conditional-fields-where-the-request-fails",
    ("MB-PROC-9",),
    "Parts whose request fails without conditional fields with a 4xx other than 412 (GET and HEAD of not_found and of the status resource for 404, 405, 410 and 415; GET, HEAD, DELETE, POST, PATCH and a text/plain PUT of a sandbox member that does not exist; text/plain POST, PUT and PATCH in the sandbox) get that status with If-None-Match, If-Match, If-Unmodified-Since or If-Modified-Since, as RFC 9110 §13.2.1 ignores them.",
    profile="conditional",
    state=State.WRITES_IN_SANDBOX,
)
def conditional_fields_where_the_request_fails(ctx: Context, judge: Judge) -> None:
    cases = _read_cases(ctx) + _sandbox_cases(ctx, judge)
    judge_failing_cases(ctx, judge, cases)


#: The roles a POST is sent to where the target is disposable, with the status resource's codes.
POST_ROLES = ("collection", "empty_collection", "ok", "etag_resource", "not_found")


@checker(
    "conditional-fields-on-refused-posts",
    ("MB-PROC-9",),
    "POST parts of the member document to the declared resources that refuse a POST without conditional fields (the collection, the empty collection, ok, etag_resource, not_found, the status resource for 404 and 405) get that refusal, not 412, with If-None-Match, If-Match, If-Unmodified-Since or If-Modified-Since.",
    profile="conditional",
    state=State.NEEDS_DISPOSABLE_TARGET,
)
def conditional_fields_on_refused_posts(ctx: Context, judge: Judge) -> None:
    member = ctx.target.sandbox_member
    doc = json.dumps(member if member is not None else {"mb-suite": "member"}).encode()
    paths: dict[str, str] = {}
    for role in POST_ROLES:
        if (ref := ctx.target.resource(role)) is not None:
            paths.setdefault(ctx.path(ref), role)
    if (template := ctx.target.resource("status")) is not None:
        for code in (404, 405):
            path = ctx.path(template.replace("{code}", str(code)))
            paths.setdefault(path, f"the status resource for {code}")
    cases = [
        _fixed(f"POST to {role} ({path})", SubRequest("POST", path, (JSON_TYPE,), doc))
        for path, role in paths.items()
    ]
    judge_failing_cases(ctx, judge, cases)
