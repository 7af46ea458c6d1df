"""Test resources under proactive-negotiation fields (spec 14.4): their answers stay the same.

Theory of operation: other checks send the declared test resources requests that carry `Accept`,
`Accept-Language` or `Accept-Charset` beside what they judge (a part's fields, a batch's fields
that must not reach a part), and rely on the resource answering as MB-TEST-n says all the same.
MB-TEST-1 says so of `ok`, `not_found` and `etag_resource`: "Those answers do not depend on
proactive negotiation: a `GET` of the `ok` or `etag_resource` resource whose `Accept`,
`Accept-Language` or `Accept-Charset` admits none of its representations is still answered
200". The echo (MB-TEST-2), random (MB-TEST-5), status (MB-TEST-6) and delay (MB-TEST-7)
requirements fix the answer to every such `GET` without naming any request field, so a field
the resource does not serve cannot change it either. A server that negotiates on a resource
(406 for an `Accept` that admits none of its media type) is caught here, alone and as the parts
of a batch, where a server may negotiate on a sub-request and not on the same request alone or
the other way round. `HEAD` is left out: MB-TEST-1 binds `GET` only, and MB-TEST-2 excludes it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mixbatch_conformance.checks._shared.validators import is_entity_tag, is_http_date
from mixbatch_conformance.checks._shared.versions import with_version
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.echo import read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import (
    expect_processed,
    part_status,
    unjudged_if_policy_refusal,
)
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.validator import parse_media_type

#: Fields that admit none of a test resource's representations: media types no test resource
#: is (HTML, XML, an image), every type refused (`*/*;q=0`, RFC 9110 §12.4.2: q=0 is "not
#: acceptable"), JSON refused (the echo's type and a JSON member's), a language and a charset
#: no resource has, and all of them at once.
NEGOTIATING: tuple[tuple[tuple[str, str], ...], ...] = (
    (("Accept", "text/html"),),
    (("Accept", "application/xml"),),
    (("Accept", "image/png"),),
    (("Accept", "*/*;q=0"),),
    (("Accept", "application/json;q=0"),),
    (("Accept-Language", "x-none"),),
    (("Accept-Charset", "x-none"),),
    (
        ("Accept", "text/html, image/png;q=0.5"),
        ("Accept-Language", "x-none"),
        ("Accept-Charset", "x-none"),
    ),
)
#: Octets asked of the `random` resource, milliseconds of the `delay` resource and codes of the
#: `status` resource: small, so that each request is quick, and a success and a failure code.
RANDOM_N = 16
DELAY_MS = 0
STATUS_CODES = (200, 404)


@dataclass(frozen=True)
class Answer:
    """What a request or a part was answered: status, fields by name, content."""

    status: int | None
    get: Callable[[str], str | None]
    body: bytes


@dataclass(frozen=True)
class Case:
    """One GET of a declared resource and the judge of its answer."""

    role: str
    sub: SubRequest
    judge: Callable[[Judge, str, Answer], None]


def _status(want: int, requirement: str) -> Callable[[Judge, str, Answer], None]:
    def check(judge: Judge, label: str, got: Answer) -> None:
        judge.expect(f"{label} status", got.status, {want}, requirement)

    return check


def _etag(judge: Judge, label: str, got: Answer) -> None:
    # MB-TEST-1: "answer a `GET` of that resource with ... 200 with an `ETag` and a
    # `Last-Modified` field"; "a `GET` of the `ok` or `etag_resource` resource whose `Accept`,
    # `Accept-Language` or `Accept-Charset` admits none of its representations is still
    # answered 200".
    judge.expect(f"{label} status", got.status, {200}, "MB-TEST-1")
    judge.expect_true(
        f"{label} validators",
        is_entity_tag(got.get("ETag")) and is_http_date(got.get("Last-Modified")),
        f"ETag {got.get('ETag')!r}, Last-Modified {got.get('Last-Modified')!r}",
        "an ETag that is an entity-tag and a Last-Modified that is an HTTP-date",
        "MB-TEST-1",
    )


def _echo(judge: Judge, label: str, got: Answer) -> None:
    # MB-TEST-2: "answer every request to that resource whose method a sub-request may carry,
    # other than `HEAD`, with 200, `Content-Type: application/json` and a JSON object with
    # these members".
    judge.expect(f"{label} status", got.status, {200}, "MB-TEST-2")
    try:
        media = parse_media_type(got.get("Content-Type") or "")[0]
    except ValueError:
        media = repr(got.get("Content-Type"))
    judge.expect(f"{label} media type", media, {"application/json"}, "MB-TEST-2")
    seen = read_echo(got.body) if got.status == 200 else None
    judge.expect(f"{label} described method", seen and seen.method, {"GET"}, "MB-TEST-2")


def _random(judge: Judge, label: str, got: Answer) -> None:
    # MB-TEST-5: "answer a `GET` of that resource for a count *n* with 200 and exactly *n*
    # octets of content".
    judge.expect(f"{label} status", got.status, {200}, "MB-TEST-5")
    judge.expect(f"{label} length", len(got.body), {RANDOM_N}, "MB-TEST-5")


def _cases(ctx: Context, fields: tuple[tuple[str, str], ...]) -> list[Case]:
    """The GETs of each declared role with `fields`; the failing `not_found` last."""
    out: list[Case] = []

    def add(role: str, path: str, check: Callable[[Judge, str, Answer], None]) -> None:
        out.append(Case(role, SubRequest("GET", ctx.path(path), fields), check))

    resource = ctx.target.resource
    if path := resource("ok"):
        # MB-TEST-1: "answer a `GET` of that resource with 200"; "still answered 200".
        add("ok", path, _status(200, "MB-TEST-1"))
    if path := resource("etag_resource"):
        add("etag_resource", path, _etag)
    if path := resource("echo"):
        add("echo", path, _echo)
    if template := resource("random"):
        add("random", template.replace("{n}", str(RANDOM_N)), _random)
    if template := resource("status"):
        for code in STATUS_CODES:
            # MB-TEST-6: "answer a `GET` of that resource for a code from 200 to 599 with that
            # status".
            add(f"status {code}", template.replace("{code}", str(code)), _status(code, "MB-TEST-6"))
    if template := resource("delay"):
        # MB-TEST-7: "answer a `GET` of that resource for a count *ms* with 200"; 0 is below
        # every largest the resource accepts.
        add("delay", template.replace("{ms}", str(DELAY_MS)), _status(200, "MB-TEST-7"))
    if path := resource("not_found"):
        # MB-TEST-1: "with ... 404"; "Those answers do not depend on proactive negotiation".
        add("not_found", path, _status(404, "MB-TEST-1"))
    return out


def _shown(fields: tuple[tuple[str, str], ...]) -> str:
    return "; ".join(f"{n}: {v}" for n, v in fields)


@checker(
    "test-resources-ignore-negotiation",
    ("MB-TEST-1", "MB-TEST-2", "MB-TEST-5", "MB-TEST-6", "MB-TEST-7"),
    "GET of the declared ok, not_found, etag_resource, echo, random, status and delay resources with an Accept, Accept-Language or Accept-Charset that admits none of their representations (text/html, application/xml, image/png, */*;q=0, application/json;q=0, x-none) is answered as without it, alone and as the parts of a batch: 200, 404, 200 with ETag and Last-Modified, the echo's 200 JSON description, n octets, the code asked, 200 after the delay; never 406.",
    state=State.READ_ONLY,
    tier="standard",
)
def resources_ignore_negotiation(ctx: Context, judge: Judge) -> None:
    if not _cases(ctx, ()):
        judge.not_applicable("the target declares none of the test resources a GET is judged on")
    room = max(1, ctx.limit("max_parts") or 1 << 16)
    for fields in NEGOTIATING:
        cases = _cases(ctx, fields)
        shown = _shown(fields)
        for case in cases:
            resp = ctx.alone(judge, case.sub)
            case.judge(
                judge, f"{case.role} alone with {shown}", Answer(resp.status, resp.get, resp.body)
            )
        # The same GETs as the parts of one batch (spec 3.2.4: a sub-request is answered as the
        # same request alone), in as many batches as the published max_parts asks.
        for start in range(0, len(cases), room):
            chunk = cases[start : start + room]
            subs = [c.sub for c in chunk]
            resp = ctx.batch(judge, subs)
            unjudged_if_policy_refusal(judge, resp, f"the batch of GETs with {shown}")
            env = expect_processed(ctx, judge, resp, [s.content_id for s in subs])
            for i, case in enumerate(chunk):
                part = env.parts[i]
                got = Answer(part_status(env, i), part.get, part.body)
                case.judge(judge, f"{case.role} part with {shown}", got)


#: (what, HTTP version, fields) of each way a GET of a test resource is sent: HTTP/1.0 with and
#: without a request to keep the connection, and HTTP/1.1 closing it.
VERSIONS: tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...] = (
    ("HTTP/1.0", "1.0", ()),
    ("HTTP/1.0 with Connection: keep-alive", "1.0", (("Connection", "keep-alive"),)),
    ("HTTP/1.1 with Connection: close", "1.1", (("Connection", "close"),)),
)
#: The boundary of the HTTP/1.0 batch of the same GETs.
VERSION_BOUNDARY = "mb-resources-http10-4f1c9a2e"


def _retrieval(status: int) -> Callable[[Judge, str, Answer], None]:
    """MB-TEST-8: "answer a `GET` of that resource with `Accept: multipart/mixed` as a
    collection retrieval ([4.2]): for `empty_collection`, with 204"; a collection retrieval
    that is answered 200 is multipart/mixed (MB-METHOD-4)."""

    def judge_answer(judge: Judge, label: str, got: Answer) -> None:
        judge.expect(f"{label} status", got.status, {status}, "MB-TEST-8")
        if status != 200 or got.status != 200:
            return
        try:
            media = parse_media_type(got.get("Content-Type") or "")[0]
        except ValueError:
            media = repr(got.get("Content-Type"))
        judge.expect(f"{label} media type", media, {"multipart/mixed"}, "MB-TEST-8")

    return judge_answer


def _retrievals(ctx: Context) -> list[Case]:
    """A GET of each declared collection with Accept: multipart/mixed, for a target offering
    collection retrievals (spec 4.2: "a server that does not offer the `collection-get`
    profile ... answers with another representation or 406 as usual")."""
    accept = (("Accept", "multipart/mixed"),)
    out: list[Case] = []
    if not ctx.target.claims("collection-get"):
        return out
    for role, status in (("collection", 200), ("empty_collection", 204)):
        if path := ctx.target.resource(role):
            out.append(Case(role, SubRequest("GET", ctx.path(path), accept), _retrieval(status)))
    return out


@checker(
    "test-resources-any-http-version",
    ("MB-TEST-1", "MB-TEST-2", "MB-TEST-5", "MB-TEST-6", "MB-TEST-7", "MB-TEST-8"),
    "GET of the declared ok, not_found, etag_resource, echo, random, status and delay resources over HTTP/1.0 (with and without Connection: keep-alive) and over HTTP/1.1 with Connection: close, alone and as the parts of an HTTP/1.0 batch, is answered as each resource's requirement says: 200, 404, 200 with ETag and Last-Modified, the echo's 200 JSON description, n octets, the code asked, 200 after the delay; a declared collection's GET with Accept: multipart/mixed, alone, as a collection retrieval (multipart/mixed, or 204 for the empty collection).",
    state=State.READ_ONLY,
)
def resources_any_http_version(ctx: Context, judge: Judge) -> None:
    if ctx.settings.http2:
        judge.not_applicable("HTTP/1.0 and Connection: close are HTTP/1.1-only framings")
    cases = _cases(ctx, ())
    if not cases:
        judge.not_applicable("the target declares none of the test resources a GET is judged on")
    # MB-TEST-1 and the other resource requirements fix the answer to "a `GET`" of the resource,
    # whatever version carries it: an HTTP/1.0 client gets the same status and fields (an
    # etag_resource's ETag included, RFC 9110 §8.8.3 being no HTTP/1.1-only field).
    refused: set[str] = set()
    for what, version, fields in VERSIONS:
        probe = ctx.send(
            judge, with_version(ctx.raw_request("GET", cases[0].sub.target, fields), version)
        )
        if probe.status in (426, 505):
            # The spec does not make a server take HTTP/1.0: a stack may answer 426 (Upgrade
            # Required) or 505 (HTTP Version Not Supported) to it (RFC 9110 §15.5.22, §15.6.6).
            judge.note(f"{what} refused with {probe.status}: not judged")
            refused.add(version)
            continue
        # MB-TEST-8 fixes the answer to a collection's GET with Accept: multipart/mixed
        # whatever version carries it: HTTP/1.0 has no chunked coding, and a retrieval framed
        # by Content-Length or by closing the connection is the same retrieval.
        for case in [*cases, *_retrievals(ctx)]:
            request = with_version(
                ctx.raw_request("GET", case.sub.target, [*case.sub.headers, *fields]), version
            )
            resp = ctx.send(judge, request)
            if resp.status in (426, 505):
                # As for the probe: a stack that refuses the version for this resource only
                # (RFC 9110 §15.6.6) says nothing of the resource.
                judge.note(f"{case.role} over {what} refused with {resp.status}: not judged")
                continue
            case.judge(
                judge, f"{case.role} alone over {what}", Answer(resp.status, resp.get, resp.body)
            )
    if "1.0" in refused:
        return
    room = max(1, ctx.limit("max_parts") or 1 << 16)
    head = [("Content-Type", f"multipart/mixed; boundary={VERSION_BOUNDARY}")]
    for start in range(0, len(cases), room):
        chunk = cases[start : start + room]
        subs = [c.sub for c in chunk]
        body = compose_batch(subs, VERSION_BOUNDARY)
        resp = ctx.send(
            judge, with_version(ctx.raw_request("POST", ctx.batch_path, head, body), "1.0")
        )
        env = expect_processed(ctx, judge, resp, [s.content_id for s in subs])
        for i, case in enumerate(chunk):
            part = env.parts[i]
            got = Answer(part_status(env, i), part.get, part.body)
            case.judge(judge, f"{case.role} part of an HTTP/1.0 batch", got)
