"""Part checks (spec 3.2, 3.3): how request parts are addressed and response parts framed.

Theory of operation: a processed batch response is read by the suite's strict validator, so
any framing finding fails the check (MB-WIRE-*, MB-RESP-2/3); the four Content-Id forms of one
resource must resolve to it and be echoed octet for octet (MB-PART-5, MB-PART-6); a part that
creates a sandbox member names it in Location (MB-RESP-7).
"""

from __future__ import annotations

import json

from mixbatch_conformance.checks._shared.collections import created_path
from mixbatch_conformance.checks._shared.requests import ok_and_not_found, require_alone
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker


@checker(
    "response-framing-strict",
    (
        "MB-WIRE-7",
        "MB-WIRE-12",
        "MB-WIRE-16",
        "MB-RESP-2",
        "MB-RESP-3",
        "MB-WIRE-10",
        "MB-WIRE-15",
        "MB-RESP-9",
        "MB-SEC-3",
    ),
    "A processed batch response is framed exactly by the ABNF, with valid part header fields.",
    state=State.READ_ONLY,
)
def response_framing_strict(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    resp = ctx.batch(judge, [ok, nf, ok])
    env = expect_processed(ctx, judge, resp, [ok.content_id, nf.content_id, ok.content_id])
    # MB-WIRE-15 (SHOULD): "give each part a `Content-Length` field stating the length of its
    # body"; the framing itself is judged by the validator against the ABNF.
    for part in env.parts:
        judge.expect_true(
            f"part {part.index} Content-Length",
            part.get("Content-Length") is not None,
            "absent" if part.get("Content-Length") is None else "present",
            "present (SHOULD)",
            "MB-WIRE-15",
        )


@checker(
    "content-id-forms-echoed",
    ("MB-PART-5", "MB-PART-6", "MB-RESP-3"),
    "Relative, absolute-path, dot-segment and absolute-URI targets resolve to one resource and are echoed octet for octet.",
    state=State.READ_ONLY,
)
def content_id_forms(ctx: Context, judge: Judge) -> None:
    path = ctx.resource(judge, "ok")
    refs = [
        ctx.ref(path, "relative"),
        ctx.ref(path, "absolute-path"),
        ctx.ref(path, "absolute-uri"),
        "./" + ctx.ref(path, "relative"),
    ]
    subs = [SubRequest("GET", r) for r in refs]
    require_alone(ctx, judge, SubRequest("GET", ctx.path(path)), set(range(200, 300)))
    env = expect_processed(ctx, judge, ctx.batch(judge, subs), [s.content_id for s in subs])
    # MB-PART-5: "resolve the reference inside `Content-Id` against the batch request's target
    # URI": every form names the ok resource, which answered 2xx alone.
    for i in range(len(subs)):
        judge.expect(f"part {i} status", part_status(env, i), set(range(200, 300)), "MB-PART-5")


@checker(
    "created-location",
    ("MB-RESP-7", "MB-RESP-3", "MB-TEST-3"),
    "A part that creates a resource gives its URI in Location and echoes the request's Content-Id.",
    state=State.WRITES_IN_SANDBOX,
)
def created_location(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    member = ctx.target.sandbox_member
    if member is None:
        judge.not_applicable("the target declares no sandbox.member document to write")
    doc = json.dumps(member).encode()
    sub = SubRequest("POST", coll, (("Content-Type", "application/json"),), doc)
    env = expect_processed(ctx, judge, ctx.batch(judge, [sub]), [sub.content_id])
    location = env.parts[0].get("Location")
    made = created_path(ctx, coll, location) or ""
    if made and part_status(env, 0) == 201:
        # MB-TEST-3: "A suite deletes every member it creates before it finishes".
        ctx.alone(judge, SubRequest("DELETE", made))
    # MB-TEST-3: the sandbox answers a POST of a member document "by creating a new member and
    # answering 201 with a `Location` field naming it"; MB-RESP-7: that URI is "in the
    # response part's `Location` field".
    judge.expect("part 0 status", part_status(env, 0), {201}, "MB-TEST-3")
    judge.expect_true("Location", bool(location), repr(location), "a Location field", "MB-RESP-7")
