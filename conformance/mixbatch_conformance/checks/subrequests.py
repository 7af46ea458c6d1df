"""Sub-request checks (spec 8.1, 8.2): a part behaves as the same request sent alone.

Theory of operation: each part's status, fields (less the target's volatile ones) and body
equal those of the same request sent alone (MB-SUB-1, MB-RESP-4), compared by the rules of spec
3.2.4 (`_shared.alone`: the echo resource's descriptions as requests, the random resource's
octets by their number); and a conditional field on the batch request is not applied to its
parts (MB-SUB-6), nor is any other ordinary field of the batch request: the echo resource
shows what a part received (`outer-fields-not-echoed`), and fields that would change a part's
answer (a range, failing date preconditions, the batch's own Content-Type on a part without one)
leave its status and fields as alone (`outer-effective-fields-not-applied`). A part body
reaches its resource whole, with a content length equal to it, whether or not the part
declares Content-Length (`part-body-length-reaches-resource`, MB-PART-13). A method is case-sensitive (RFC 9110
§9.1), so a part whose Http-Method is `get` gets what `get` alone gets, not what `GET` gets
(`part-method-case-kept`). A PATCH a sandbox member refuses (a media type it does not take, or
none) is refused in a part with the status and the Accept-Patch and Allow members it gets alone
(`refused-patch-as-alone`). Credential inheritance has its own module (credentials).
"""

from __future__ import annotations

from collections.abc import Sequence

from mixbatch_conformance.checks._shared.alone import (
    expect_same_as_alone,
    expect_same_request,
    readable_echoes,
)
from mixbatch_conformance.checks._shared.requests import etag_of, new_member, ok_and_not_found
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.echo import read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.validator import list_members

#: Fields of a batch request that a part must not receive (MB-SUB-6), each with a value no
#: server would make up: negotiation, preferences, trace context, request ids, forwarding,
#: caching directives, one of the suite's own and credential-like fields. A server that passes
#: "request-scoped" fields on to its parts is the usual way to break MB-SUB-6.
OUTER_FIELDS = (
    ("Accept", "multipart/mixed, application/x-mb-outer-probe;q=0.1"),
    ("Accept-Language", "x-mb-outer-probe"),
    ("Prefer", "mb-outer-probe"),
    ("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
    ("Tracestate", "mb-suite=outer-probe"),
    ("X-Request-Id", "mb-outer-probe"),
    ("X-Correlation-Id", "mb-outer-probe"),
    ("Forwarded", "for=192.0.2.60;proto=http;by=203.0.113.43"),
    ("X-Forwarded-For", "192.0.2.60"),
    ("X-Forwarded-Proto", "https"),
    ("X-Forwarded-Host", "mb-outer-probe.example"),
    ("Cache-Control", "no-cache"),
    ("Pragma", "no-cache"),
    ("Baggage", "mb-suite=outer-probe"),
    ("X-Mb-Outer-Probe", "mb-outer-probe"),
    # Credential-like fields that are neither Authorization nor Cookie, the two MB-SUB-5
    # passes on: a server that widens "the credentials" to these breaks MB-SUB-6.
    ("Proxy-Authorization", "Basic bWItcHJveHk6bWItb3V0ZXI="),
    ("X-Api-Key", "mb-outer-probe"),
    ("X-Auth-Token", "mb-outer-probe"),
    ("Cookie2", '$Version="1"'),
)

#: Declared resources a GET only reads, compared with alone besides `ok` and `not_found`.
READ_ROLES = ("collection", "empty_collection", "etag_resource")

#: Field lines of one part: a name repeated around another, in two cases, and a list value.
REPEATED_FIELDS = (
    ("X-Mb-Repeated", "first"),
    ("Accept-Language", "en, fr;q=0.5"),
    ("x-mb-repeated", "second"),
    ("X-Mb-Repeated", "third, fourth"),
)

#: Spellings of GET that are other methods (RFC 9110 §9.1: "The method token is
#: case-sensitive"); only GET's, so that a server that upper-cases them changes nothing.
OTHER_CASE_METHODS = ("get", "Get")

#: Octets asked of the `random` resource: more than one read buffer of most servers, so a
#: server that cuts or re-encodes a long sub-response body answers a different length.
RANDOM_OCTETS = 70_000


@checker(
    "batch-equals-alone",
    ("MB-SUB-1", "MB-RESP-4", "MB-PART-8", "MB-PART-13", "MB-TEST-5"),
    "Each part's status, fields and body equal those of the same request sent alone, compared as spec 3.2.4 says.",
    state=State.READ_ONLY,
)
def batch_equals_alone(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    # OPTIONS is safe (RFC 9110 §9.3.7) and its answer carries what a GET's does not (Allow,
    # Accept-Patch, or a 405 with its own Allow), which MB-RESP-4 keeps as well.
    subs = [ok, nf, SubRequest("OPTIONS", ok.target)]
    # Every other declared resource a GET reads without changing it: their answers carry the
    # fields ok's may not (Vary, ETag, Last-Modified, Cache-Control), and MB-RESP-4 keeps all.
    subs += [
        SubRequest("GET", ctx.path(path))
        for role in READ_ROLES
        if (path := ctx.target.resource(role))
    ]
    echo = ctx.target.resource("echo")
    if echo:
        subs.append(
            # MB-PART-8: "in order": repeated lines stay lines, in the order written, and the
            # query's percent-encodings keep the case of their hex digits (MB-PART-6).
            SubRequest("GET", f"{ctx.path(echo)}?q=%2f%C3%a9", REPEATED_FIELDS)
        )
        binary = bytes(range(256)) + b"\r\n--not-a-boundary\r\n"
        subs += [
            SubRequest("PUT", ctx.path(echo), (("Content-Type", "text/plain"),), b"put body"),
            SubRequest(
                "POST", ctx.path(echo), (("Content-Type", "application/octet-stream"),), binary
            ),
            SubRequest("DELETE", ctx.path(echo)),
            # An empty POST: whether it carries `Content-Length: 0` is the HTTP stack's
            # business (spec 3.2.4), so the comparison must not depend on it.
            SubRequest("POST", ctx.path(echo), (("Content-Type", "text/plain"),), b"", False),
        ]
    random = ctx.target.resource("random")
    if random:
        subs.append(SubRequest("GET", ctx.path(random.replace("{n}", str(RANDOM_OCTETS)))))
    alone = [ctx.alone(judge, s) for s in subs]
    resp = ctx.batch(judge, subs)
    env = expect_processed(ctx, judge, resp, [s.content_id for s in subs])
    for i, (sub, part, single) in enumerate(zip(subs, env.parts, alone, strict=True)):
        # MB-SUB-1: "the same routing, authentication, authorisation, rate-limit,
        # input-validation and audit checks as the same request sent on its own"; MB-RESP-4:
        # the sub-response's fields and content go in the part.
        expect_same_as_alone(
            ctx,
            judge,
            f"part {i} ({sub.method} {sub.target})",
            sub,
            (part_status(env, i), part.fields, part.body),
            (single.status, single.headers, single.body),
        )


@checker(
    "outer-fields-not-inherited",
    ("MB-SUB-6",),
    "A conditional field on the batch request is not applied to its parts.",
    state=State.READ_ONLY,
)
def outer_fields(ctx: Context, judge: Judge) -> None:
    path, etag = etag_of(ctx, judge)
    sub = SubRequest("GET", path)
    resp = ctx.batch(judge, [sub], headers=(("If-None-Match", etag),))
    env = expect_processed(ctx, judge, resp, [sub.content_id])
    # MB-SUB-6: "MUST NOT apply any other header field of the batch request to a
    # sub-request": the part has no If-None-Match, so it gets 200, not 304.
    judge.expect("part 0 status", part_status(env, 0), {200}, "MB-SUB-6")


@checker(
    "outer-fields-not-echoed",
    ("MB-SUB-6",),
    "Ordinary fields of the batch request (negotiation, Prefer, trace context, request ids, forwarding, caching, an extension field) do not reach a part, which receives what the same request alone receives.",
    state=State.READ_ONLY,
)
def outer_fields_not_echoed(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    subs = [
        SubRequest("GET", f"{echo}?mb-outer=bare"),
        # A part with fields of its own: the outer ones are not merged into them either.
        SubRequest(
            "GET",
            f"{echo}?mb-outer=own",
            (("Accept", "text/plain"), ("X-Mb-Part-Field", "own")),
        ),
    ]
    alone = [ctx.alone(judge, s).body for s in subs]
    resp = ctx.batch(judge, subs, headers=OUTER_FIELDS)
    env = expect_processed(
        ctx, judge, resp, [s.content_id for s in subs], [{200}, {200}], "MB-SUB-6"
    )
    for i, (sub, single) in enumerate(zip(subs, alone, strict=True)):
        seen, single_seen = readable_echoes(judge, env.parts[i].body, single)
        own = {n.lower() for n, _ in sub.headers}
        for name, value in OUTER_FIELDS:
            # MB-SUB-6: "MUST NOT apply any other header field of the batch request to a
            # sub-request": no outer line, whatever the part itself carries.
            received = [v for v in seen.get_all(name) if name.lower() not in own or v == value]
            judge.expect(f"part {i} received {name}", received, [[]], "MB-SUB-6")
        # MB-SUB-6 with spec 3.2.4: the sub-request is the same request as the part sent
        # alone, whose fields are the part's own and nothing of the batch request's.
        expect_same_request(ctx, judge, f"part {i}", seen, single_seen, "MB-SUB-6")


@checker(
    "part-method-case-kept",
    ("MB-SUB-1", "MB-RESP-4"),
    "A part whose Http-Method is get or Get, which are not GET, is refused when the same request alone is refused, and otherwise answered as alone.",
    state=State.READ_ONLY,
)
def part_method_case_kept(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    subs = [SubRequest(method, ok) for method in OTHER_CASE_METHODS]
    alone = [ctx.alone(judge, s) for s in subs]
    resp = ctx.batch(judge, subs)
    env = expect_processed(ctx, judge, resp, [s.content_id for s in subs])
    for i, (sub, part, single) in enumerate(zip(subs, env.parts, alone, strict=True)):
        label = f"part {i} ({sub.method} {sub.target})"
        got = part_status(env, i)
        if single.status is not None and single.status >= 400:
            # MB-SUB-1: "the same routing, authentication, authorisation, rate-limit,
            # input-validation and audit checks as the same request sent on its own, and
            # report a check's failure in the part". Alone the method is refused; which layer
            # refuses it (the HTTP parser's 400, the router's 405, a 501) may differ in a
            # batch, but running it as GET is the bypass.
            judge.note(f"{label}: alone {single.status}")
            judge.expect(
                f"{label} status",
                got,
                lambda s: isinstance(s, int) and s >= 400,
                "MB-SUB-1",
                allowed_text=f"a refusal (4xx or 5xx), as alone ({single.status})",
            )
            continue
        expect_same_as_alone(
            ctx,
            judge,
            label,
            sub,
            (got, part.fields, part.body),
            (single.status, single.headers, single.body),
        )


#: Batch request fields that would change a part's answer were they applied to it: a range,
#: date preconditions no representation meets, a content coding, and content fields describing
#: the batch's own content, which a part without them must not take as its own. No If-Match:
#: RFC 9110 §13.1.1 has the server evaluate it against the batch endpoint itself, where a 412
#: for the whole batch is a fair answer.
OUTER_EFFECTIVE_FIELDS = (
    ("Range", "bytes=0-0"),
    ("If-Unmodified-Since", "Mon, 01 Jan 1990 00:00:00 GMT"),
    ("If-Modified-Since", "Fri, 01 Jan 2100 00:00:00 GMT"),
    ("Accept-Encoding", "x-mb-outer-coding"),
    ("Content-Language", "x-mb-outer-probe"),
    ("Content-Location", "/mb-outer-probe"),
)


@checker(
    "outer-effective-fields-not-applied",
    ("MB-SUB-6",),
    "A Range, failing date preconditions, an Accept-Encoding and the content fields of the batch request (its Content-Type above all) do not reach a part: a PUT part without Content-Type receives none, and each part gets the status and fields the same request alone gets.",
    state=State.READ_ONLY,
)
def outer_effective_fields_not_applied(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    path, _ = etag_of(ctx, judge)
    subs = [
        # A part with content and no Content-Type: the batch's multipart/mixed is not its type.
        SubRequest("PUT", f"{echo}?mb-outer=untyped", (), b"mb-suite-untyped-content"),
        SubRequest("GET", f"{echo}?mb-outer=effective"),
        SubRequest("GET", path),
    ]
    alone = [ctx.alone(judge, s) for s in subs]
    resp = ctx.batch(judge, subs, headers=OUTER_EFFECTIVE_FIELDS)
    env = expect_processed(ctx, judge, resp, [s.content_id for s in subs])
    for i, (sub, single) in enumerate(zip(subs, alone, strict=True)):
        # MB-SUB-6: "MUST NOT apply any other header field of the batch request to a
        # sub-request": no range, no precondition, so the status the same request alone gets.
        judge.expect(
            f"part {i} ({sub.method} {sub.target}) status",
            part_status(env, i),
            {single.status},
            "MB-SUB-6",
        )
        if sub.target == path:
            continue
        seen, by_itself = readable_echoes(judge, env.parts[i].body, single.body)
        received = {n.lower() for n, _ in seen.headers}
        for name, _ in (*OUTER_EFFECTIVE_FIELDS, ("Content-Type", "")):
            # A field the request alone carries (a stack's own Accept-Encoding, say) is not
            # the batch's.
            if name.lower() in {n.lower() for n, _ in by_itself.headers}:
                continue
            judge.expect(f"part {i} received {name}", name.lower() in received, {False}, "MB-SUB-6")
        expect_same_request(ctx, judge, f"part {i}", seen, by_itself, "MB-SUB-6")


#: Part bodies sent with and without Content-Length: one octet, one ending in CRLF (which
#: belongs to the body when Content-Length says so, and otherwise to the delimiter), one
#: holding CRLF and hyphens, and one larger than most read buffers.
LENGTH_BODIES = (
    b"x",
    b"ends in a CRLF\r\n",
    b"line one\r\n--not-the-boundary\r\n\r\nline three",
    bytes(range(256)) * 280,
)


@checker(
    "part-body-length-reaches-resource",
    ("MB-PART-13", "MB-PART-8"),
    "PUT and POST parts with and without Content-Length, of one octet, ending in CRLF, holding hyphens and of 70 KiB, reach the resource with exactly their body and a content length equal to it.",
    state=State.READ_ONLY,
)
def part_body_length_reaches_resource(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    subs = [
        SubRequest(
            method,
            f"{echo}?mb-length={i}-{declared}",
            (("Content-Type", "application/octet-stream"),),
            body,
            declared,
        )
        for i, body in enumerate(LENGTH_BODIES)
        for method, declared in (("PUT", True), ("POST", False))
    ]
    env = expect_processed(ctx, judge, ctx.batch(judge, subs), [s.content_id for s in subs])
    for i, sub in enumerate(subs):
        label = f"part {i} ({sub.method}, {len(sub.body)} octets, Content-Length {'sent' if sub.content_length else 'not sent'})"
        judge.require(f"{label} status", part_status(env, i), {200}, "MB-PART-8")
        seen = read_echo(env.parts[i].body)
        if seen is None:
            judge.not_applicable(
                "the echo resource does not describe the request as JSON with method, target "
                "and headers, so the suite cannot see the sub-request's content"
            )
        # MB-PART-8: "the part body as the sub-request's content"; MB-PART-13: "a content
        # length equal to the part body's length, whether or not the request part carries
        # ... Content-Length".
        judge.expect(f"{label} content received", seen.body, {sub.body}, "MB-PART-13")
        lengths = seen.get_all("Content-Length")
        if lengths:
            judge.expect(
                f"{label} Content-Length received", lengths, [[str(len(sub.body))]], "MB-PART-13"
            )


#: PATCH requests a sandbox member does not take: a media type no server registers, and no
#: content type at all (spec/examples/extension-methods sends a PATCH so).
REFUSED_PATCH_TYPES = ("application/x-mb-suite-no-such-patch-format", None)
#: The hint fields of a refusal, each a list whose order says nothing (RFC 5789 §3.1: a 415
#: to PATCH carries Accept-Patch; RFC 9110 §15.5.6: a 405 carries Allow).
REFUSAL_HINTS = ("Accept-Patch", "Allow")


def _hint(fields: Sequence[tuple[str, str]], name: str) -> list[str]:
    values = [v for n, v in fields if n.lower() == name.lower()]
    return sorted(m.lower() for m in list_members(values))


@checker(
    "refused-patch-as-alone",
    ("MB-SUB-1", "MB-RESP-4"),
    "PATCH parts to a sandbox member in a media type it does not take, or with none, get the status and the Accept-Patch and Allow members the same requests get alone.",
    state=State.WRITES_IN_SANDBOX,
)
def refused_patch_as_alone(ctx: Context, judge: Judge) -> None:
    path, doc = new_member(ctx, judge)
    subs = [
        SubRequest("PATCH", path, (("Content-Type", t),), doc) if t else SubRequest("PATCH", path)
        for t in REFUSED_PATCH_TYPES
    ]
    alone = [ctx.alone(judge, s) for s in subs]
    # Only a refusal leaves the member as it was, so only refusals are compared; what a
    # server refuses, and with which status, is learnt from the same server alone.
    refused = [i for i, a in enumerate(alone) if 400 <= a.status < 500]
    if not refused:
        judge.not_applicable(
            f"alone the member took every PATCH ({[a.status for a in alone]}): nothing refused"
        )
    sent = [subs[i] for i in refused]
    env = expect_processed(ctx, judge, ctx.batch(judge, sent), [s.content_id for s in sent])
    for k, i in enumerate(refused):
        label = f"PATCH with {subs[i].headers[0][1] if subs[i].headers else 'no Content-Type'}"
        # MB-SUB-1: "the same routing, authentication, authorisation, rate-limit,
        # input-validation and audit checks as the same request sent on its own, and report a
        # check's failure in the part".
        judge.expect(f"{label}: status", part_status(env, k), {alone[i].status}, "MB-SUB-1")
        for name in REFUSAL_HINTS:
            # MB-RESP-4: "put the sub-response's header fields in the response part"; the
            # sub-response is the one the same request gets alone (spec 3.2.4: "Two responses
            # are compared the same way"), its list members in any order.
            judge.expect(
                f"{label}: {name} members",
                _hint(env.parts[k].fields, name),
                [_hint(alone[i].headers, name)],
                "MB-RESP-4",
            )
