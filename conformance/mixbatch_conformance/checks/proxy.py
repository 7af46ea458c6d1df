"""Batching-proxy checks (spec 10.2, MB-PROXY-1..4): what the proxy sends to its origin.

Theory of operation: a batching proxy turns each part into a standalone request to its one
origin. What it forwarded is seen two ways, both black-box: through the origin's echo resource
(read by _echo), whose answer the proxy carries back in the part, and by asking the origin
directly (the target's `proxy.origin`, else --baseline) whether a write happened. The origin is
not the baseline of the other checks: a proxy adds Via to what it forwards (RFC 9110 §7.6.3),
so a part is compared with the same request sent alone through the proxy, not to the origin. Every check
here is N/A unless the target declares itself a proxy (the `proxy` member of the target
description), and each names the other facts it needs: the echo resource, the sandbox
collection and the origin, or the proxy's sub-request timeout and the delay resource.
"""

from __future__ import annotations

import json
import secrets

from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.echo import Echo, read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, expect_rejected, part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.validator import FORBIDDEN_REQUEST_FIELDS, Envelope
from mixbatch_conformance.transport.http import Response, build_request, pipeline, split_url

__all__ = ["FORBIDDEN_FORWARDED", "PART_CONTROL"]

BOUNDARY = "mb-proxy-6a1f0c93d7e4b285"
#: MB-PART-9's list: none of these may reach the origin from a part (MB-PROXY-4).
FORBIDDEN_FORWARDED = frozenset(name.lower() for name in FORBIDDEN_REQUEST_FIELDS)
#: The part's own control fields, which are not the sub-request's (MB-PART-8).
PART_CONTROL = frozenset({"http-method", "content-id"})
#: Seconds the suite allows beyond the delay it asks for before it gives up on the batch.
TIMEOUT_SLACK_S = 5.0


def _at_origin(ctx: Context, judge: Judge, path: str, headers: list[tuple[str, str]]) -> Response:
    """GET `path` from the proxy's origin itself; N/A when the target names no origin."""
    url = ctx.target.proxy_origin or ctx.settings.baseline_url
    if url is None:
        judge.not_applicable("the target declares no proxy origin to observe (proxy.origin)")
    host, port, _ = split_url(url)
    authority = host if port == 80 else f"{host}:{port}"
    request = build_request("GET", path, authority, [*headers, *ctx.target.credentials])
    ex = judge.record(pipeline(host, port, [request], ctx.target.timeout)[0])
    if ex.response is None:
        judge.setup_error(f"the origin {url} did not answer: {ex.error}")
    return ex.response


def _origin_authority(ctx: Context) -> str | None:
    """The declared origin's authority as a Host field would carry it, lower-case."""
    url = ctx.target.proxy_origin or ctx.settings.baseline_url
    if url is None:
        return None
    host, port, _ = split_url(url)
    return (host if port == 80 else f"{host}:{port}").lower()


def _echoes(ctx: Context, judge: Judge, env: Envelope, subs: list[SubRequest]) -> list[Echo]:
    """Each part's echo description; every part must be a 200 from the echo resource."""
    seen = []
    for i, sub in enumerate(subs):
        judge.require(f"part {i} status", part_status(env, i), {200}, "MB-PROXY-1")
        echo = read_echo(env.parts[i].body)
        if echo is None:
            judge.not_applicable(
                f"the echo resource's answer to {sub.method} {sub.target} is not the JSON "
                "description the suite reads (method, target, headers, body)"
            )
        seen.append(echo)
    return seen


@checker(
    "proxy-forwards-in-order",
    ("MB-PROXY-1",),
    "A batching proxy forwards each part as its own request to the origin and answers each part with that request's response, in request order.",
    state=State.READ_ONLY,
    roles=("proxy",),
)
def proxy_forwards_in_order(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    text = (("Content-Type", "text/plain"),)
    subs = [
        SubRequest("GET", f"{echo}?mb-order=0"),
        SubRequest("POST", f"{echo}?mb-order=1", text, b"part one"),
        SubRequest("GET", f"{echo}?mb-order=2"),
        SubRequest("GET", f"{echo}?mb-order=3"),
        SubRequest("DELETE", f"{echo}?mb-order=4"),
        SubRequest("PUT", f"{echo}?mb-order=5", text, b"part five"),
        SubRequest("GET", f"{echo}?mb-order=6"),
    ]
    env = expect_processed(ctx, judge, ctx.batch(judge, subs), [s.content_id for s in subs])
    for i, (sub, seen) in enumerate(zip(subs, _echoes(ctx, judge, env, subs), strict=True)):
        judge.expect(
            f"part {i} answers its own request",
            (seen.method, seen.target, seen.body),
            {(sub.method, sub.target, sub.body)},
            "MB-PROXY-1",
        )


@checker(
    "proxy-upstream-timeout-part",
    ("MB-PROXY-2",),
    "A batching proxy answers a part the origin is too slow for with 502 or 504 and still answers every other part.",
    state=State.READ_ONLY,
    roles=("proxy",),
)
def proxy_upstream_timeout(ctx: Context, judge: Judge) -> None:
    timeout_ms = ctx.target.proxy_timeout_ms
    if timeout_ms is None:
        judge.not_applicable("the target declares no proxy sub-request timeout")
    template = ctx.resource(judge, "delay")
    echo = ctx.path(ctx.resource(judge, "echo"))
    delay_ms = timeout_ms + max(1000, timeout_ms // 2)
    if delay_ms / 1000 + TIMEOUT_SLACK_S > ctx.target.timeout:
        judge.not_applicable(
            f"a delay of {delay_ms} ms past the proxy's timeout does not fit the suite's "
            f"{ctx.target.timeout:g} s per exchange"
        )
    slow = ctx.path(template.replace("{ms}", str(delay_ms)))
    subs = [
        SubRequest("GET", f"{echo}?mb-timeout=before"),
        SubRequest("GET", slow),
        SubRequest("POST", f"{echo}?mb-timeout=after", (("Content-Type", "text/plain"),), b"x"),
    ]
    env = expect_processed(
        ctx,
        judge,
        ctx.batch(judge, subs),
        [s.content_id for s in subs],
        [{200}, {502, 504}, {200}],
        requirement="MB-PROXY-2",
    )
    seen = read_echo(env.parts[2].body)
    judge.expect(
        "the part after the timeout reached the origin",
        seen.target if seen else None,
        {subs[2].target},
        "MB-PROXY-2",
    )


@checker(
    "proxy-validates-before-forwarding",
    ("MB-PROXY-3",),
    "A batching proxy refuses a batch whose last part is malformed with 4xx before any earlier part reaches the origin.",
    state=State.WRITES_IN_SANDBOX,
    roles=("proxy",),
)
def proxy_validates_first(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    echo = ctx.path(ctx.resource(judge, "echo"))
    look = [("Accept", "application/json")]
    if _at_origin(ctx, judge, coll, look).status != 200:
        judge.setup_error(f"GET {coll} at the origin did not answer 200")
    marker = f"mb-suite-proxy-{secrets.token_hex(6)}"
    doc = json.dumps({"title": marker, "author": "suite", "year": 1}).encode()
    valid = [
        SubRequest("POST", coll, (("Content-Type", "application/json"),), doc),
        SubRequest("GET", f"{echo}?mb-validate=1"),
    ]
    body = compose_batch(valid, BOUNDARY)
    # The last part has no Http-Method (MB-PART-2): the envelope is malformed only at its end.
    body = (
        body[: -len(f"\r\n--{BOUNDARY}--")]
        + (
            f"\r\n--{BOUNDARY}\r\nContent-Id: <{echo}?mb-validate=2>\r\n\r\n\r\n--{BOUNDARY}--"
        ).encode()
    )
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body))
    expect_rejected(judge, resp, set(range(400, 500)), "MB-PROXY-3", problem=False)
    after = _at_origin(ctx, judge, coll, look)
    reached = marker.encode() in after.body
    judge.expect_true(
        "the origin saw no part",
        not reached,
        "the POST part reached the origin" if reached else "the origin has no such member",
        "no part of a refused batch forwarded",
        "MB-PROXY-3",
    )


@checker(
    "proxy-frames-forwarded-requests",
    ("MB-PROXY-4", "MB-PART-8"),
    "A batching proxy names its origin in Host and forwards each part's exact content and no part control field or field MB-PART-9 forbids.",
    state=State.READ_ONLY,
    roles=("proxy",),
)
def proxy_frames_requests(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    text = b"line one\r\n--mb-not-a-boundary\r\n" + b"0123456789abcdef" * 64 + b"\r\n"
    subs = [
        SubRequest("POST", f"{echo}?mb-frame=text", (("Content-Type", "text/plain"),), text),
        SubRequest("PUT", f"{echo}?mb-frame=empty", (("Content-Type", "text/plain"),), b""),
        SubRequest(
            "POST",
            f"{echo}?mb-frame=binary",
            (("Content-Type", "application/octet-stream"),),
            bytes(range(256)),
        ),
        SubRequest("GET", f"{echo}?mb-frame=none", (("X-Mb-Suite", "frame"),)),
    ]
    env = expect_processed(ctx, judge, ctx.batch(judge, subs), [s.content_id for s in subs])
    origin = _origin_authority(ctx)
    for i, (sub, seen) in enumerate(zip(subs, _echoes(ctx, judge, env, subs), strict=True)):
        if origin is not None and seen.authority is not None:
            # Only when the origin is declared and its echo names the authority it was sent.
            judge.expect(
                f"part {i} Host at the origin",
                seen.authority.lower(),
                {origin},
                "MB-PROXY-4",
                allowed_text=f"the origin's authority {origin!r}",
            )
        judge.expect(
            f"part {i} content at the origin",
            seen.body,
            {sub.body},
            "MB-PROXY-4",
            allowed_text=f"the part's {len(sub.body)} octets exactly",
        )
        names = seen.names()
        judge.expect(
            f"part {i} forbidden fields at the origin",
            sorted(names & FORBIDDEN_FORWARDED),
            [[]],
            "MB-PROXY-4",
        )
        judge.expect(
            f"part {i} control fields at the origin",
            sorted(names & PART_CONTROL),
            [[]],
            "MB-PART-8",
        )
        for name, value in sub.headers:
            judge.expect(
                f"part {i} {name} at the origin", seen.get_all(name), [[value]], "MB-PART-8"
            )
