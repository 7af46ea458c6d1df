"""References between parts (spec 7.7) and Batch-Mode as a list, judged from the wire.

Theory of operation: a reference is right when the part that holds it acted on the resource
the named part produced, so the checks make that visible afterwards: two members are created,
the third part deletes `$(1)`, and standalone GETs show which of the two is gone. An
unresolved reference is made with a GET of `not_found` (a failure any server produces,
MB-TEST-1) and with the `Location` of a 200 that has none; a part naming an unresolved part is
skipped in turn, an independent part after it runs, and under stop the unresolved part does not
count as failing (MB-PROC-20). Every way MB-PROC-19 names for a reference to be refused is sent
on its own: a later part (in a Content-Id and in a field value), the part itself, a part that does
not exist, a field name in a Content-Id; the same written with the `$$(` escape, or in a part's
content, are no references and are processed. Every member a check creates is recorded by the
context and deleted when the check ends.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

from mixbatch_conformance.checks._shared.alone import readable_echoes
from mixbatch_conformance.checks._shared.collections import created_path
from mixbatch_conformance.checks._shared.forms_alike import expect_entries_as_multipart
from mixbatch_conformance.checks._shared.unresolved_parts import expect_unresolved_part
from mixbatch_conformance.core.context import Context, SubRequest, problem_of
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import answers_in_every_form

REFERENCES = (("Batch-Mode", "references"),)
JSON_FIELDS = (("Content-Type", "application/json"),)


def _member(ctx: Context, judge: Judge, marker: str) -> bytes:
    member = ctx.target.sandbox_member
    if member is None:
        judge.not_applicable("the target declares no sandbox.member document to write")
    doc: dict[str, Any] = {k: marker if isinstance(v, str) else v for k, v in member.items()}
    return json.dumps(doc).encode()


def _path(ctx: Context, location: str | None, request_path: str) -> str | None:
    """The member a POST to `request_path` created, from its `Location`."""
    return created_path(ctx, request_path, location)


@checker(
    "references-location",
    ("MB-PROC-18",),
    "Under Batch-Mode: references, DELETE $(1) deletes the member part 1 created and not the one part 0 created.",
    profile="references",
    state=State.WRITES_IN_SANDBOX,
)
def reference_location(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    marker = f"mb-suite-ref-{secrets.token_hex(6)}"
    subs = [
        SubRequest("POST", coll, JSON_FIELDS, _member(ctx, judge, marker)),
        SubRequest("POST", coll, JSON_FIELDS, _member(ctx, judge, marker)),
        SubRequest("DELETE", "$(1)"),
    ]
    resp = ctx.batch(judge, subs, headers=REFERENCES)
    env = expect_processed(ctx, judge, resp, [s.content_id for s in subs])
    judge.require("creating parts", [part_status(env, 0), part_status(env, 1)], [[201, 201]])
    # MB-PROC-18: "MUST replace each reference in a part's `Content-Id` ... with the value it
    # names before that part runs": $(1) is part 1's Location.
    judge.expect("part 2 status", part_status(env, 2), {200, 204})
    kept, deleted = (_path(ctx, env.parts[i].get("Location"), coll) for i in (0, 1))
    if kept is None or deleted is None:
        judge.setup_error("a 201 part names no Location to look at")
    judge.expect(
        f"GET {deleted} (part 1's)", ctx.alone(judge, SubRequest("GET", deleted)).status, {404, 410}
    )
    judge.expect(f"GET {kept} (part 0's)", ctx.alone(judge, SubRequest("GET", kept)).status, {200})


def _unresolved_not_failing(ctx: Context, judge: Judge, ok: str, nf: str) -> None:
    """MB-PROC-20 spec prose: "a part that refers to the skipped part is skipped in turn: a chain
    of dependants stops where its first link broke, and an independent part after it runs";
    and "the error policy treats that part as one that did not fail", so under stop a part
    whose reference names a part with no `Location` (a GET of `ok`) is skipped and the batch
    runs on, in every declared form."""
    chain = [SubRequest("GET", nf), SubRequest("GET", "$(0)"), SubRequest("GET", "$(1)")]
    chain.append(SubRequest("GET", ok))
    volatile = ctx.target.volatile_headers
    answers = answers_in_every_form(ctx, judge, chain, REFERENCES)
    for media, _, entries in answers:
        got = [(e.outcome, e.status) for e in entries]
        want = [(None, 404), ("skipped", None), ("skipped", None), (None, 200)]
        judge.expect(f"{media} a chain of dependants (outcome, status)", got, [want])
        # MB-MULTI-5: a skipped part's fields and problem document are in every form as in
        # multipart; the problem is compared by the member MB-PROC-20 fixes (its 4xx `status`
        # and the spelling of `reference` are each form's to choose, and expect_unresolved_part
        # judges them where they are read).
        expect_entries_as_multipart(
            judge, media, entries, answers[0][2], volatile, members=("requirement",)
        )
    if not ctx.target.claims("error-policy"):
        return
    stop = (*REFERENCES, ("Prefer", "batch-on-error=stop"))
    subs = [SubRequest("GET", ok), SubRequest("GET", "$(0)"), SubRequest("GET", ok)]
    for media, _, entries in answers_in_every_form(ctx, judge, subs, stop):
        got = [(e.outcome, e.status) for e in entries]
        want = [(None, 200), ("skipped", None), (None, 200)]
        judge.expect(f"{media} an unresolved part under stop (outcome, status)", got, [want])


@checker(
    "references-unresolved-skipped",
    ("MB-PROC-20", "MB-MULTI-5"),
    "A part whose reference names a failed part is skipped with a schema-valid problem of 4xx status naming the reference, a part naming it is skipped in turn, and a later independent part runs, under stop too, in every form, each form's entries carrying the multipart form's fields and bodies.",
    profile="references",
    state=State.READ_ONLY,
)
def reference_unresolved(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    nf = ctx.path(ctx.resource(judge, "not_found"))
    subs = [SubRequest("GET", nf), SubRequest("GET", "$(0)"), SubRequest("GET", ok)]
    _unresolved_not_failing(ctx, judge, ok, nf)
    env = expect_processed(
        ctx, judge, ctx.batch(judge, subs, headers=REFERENCES), [s.content_id for s in subs]
    )
    # MB-PROC-20: "The answer is `Batch-Outcome: skipped` with an `application/problem+json`
    # body that the problem schema admits, whose `status` is a 4xx code, whose `requirement` is
    # `MB-PROC-20` and whose `reference` member is the reference as written, and the error
    # policy treats that part as one that did not fail."
    expect_unresolved_part(judge, "part 1", env.parts[1], {"$(0)"})
    judge.expect("part 2 status", part_status(env, 2), {200})


@checker(
    "references-forward-refused",
    ("MB-PROC-19",),
    "A references batch with a part naming a later part (in its Content-Id or a field value), itself or a part that does not exist, or a field name in a Content-Id reference, is answered 400 before any part runs.",
    profile="references",
    state=State.READ_ONLY,
)
def reference_forward(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    # MB-PROC-19: "MUST answer 400, before any part runs, a batch that lists `references` and has
    # a part whose reference names that part itself, a later part or a part that does not exist,
    # or whose `Content-Id` holds a reference with a field name"; a reference is "written in a
    # part's `Content-Id` or in the value of one of its other header fields".
    later_in_field = SubRequest("GET", ok, (("If-None-Match", "$(1:ETag)"),))
    cases = {
        "a later part in the Content-Id": [SubRequest("GET", "$(1)"), SubRequest("GET", ok)],
        "itself": [SubRequest("GET", ok), SubRequest("GET", "$(1)")],
        "a part that does not exist": [SubRequest("GET", ok), SubRequest("GET", "$(2)")],
        # In the query: a colon in a relative reference's first segment is no URI syntax.
        "a field name in the Content-Id": [
            SubRequest("GET", ok),
            SubRequest("GET", f"{ok}?tag=$(0:ETag)"),
        ],
        "a later part in a field value": [later_in_field, SubRequest("GET", ok)],
    }
    for what, subs in cases.items():
        resp = ctx.batch(judge, subs, headers=REFERENCES)
        judge.expect(f"status for a reference to {what}", resp.status, {400})
        doc = problem_of(resp)
        judge.expect(
            f"problem requirement for a reference to {what}",
            (doc or {}).get("requirement"),
            {"MB-PROC-19"},
            "MB-STATUS-4",
        )


@checker(
    "references-refusal-neighbours-run",
    ("MB-PROC-19", "MB-PROC-18"),
    "A references batch whose parts hold escaped $$( naming the part itself, a later part, a part that does not exist or a field in a Content-Id, or $( references of those kinds in their content, is processed, the escapes reaching the echo as literal $( and the content unchanged.",
    profile="references",
    state=State.READ_ONLY,
)
def reference_refusal_neighbours(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    echo = ctx.path(ctx.resource(judge, "echo"))
    # `$`, `(`, `)` and `:` are sub-delims or allowed in a query (RFC 3986 §3.4).
    escaped = f"{echo}?self=$$(1)&later=$$(2)&none=$$(9)&field=$$(0:ETag)"
    content = b"$(2) $(3) $(9) $(0:ETag)"
    subs = [
        SubRequest("GET", ok),
        SubRequest("GET", escaped, (("X-Mb-Literal", "$$(1) $$(2) $$(9:ETag)"),)),
        SubRequest("POST", echo, (("Content-Type", "text/plain"),), content),
    ]
    resp = ctx.batch(judge, subs, headers=REFERENCES)
    # MB-PROC-19 refuses "a part whose reference names that part itself, a later part or a part
    # that does not exist, or whose `Content-Id` holds a reference with a field name"; spec 7.7:
    # "`$$(` stands for a literal `$(`" and "References are not substituted in part content",
    # so none of these is a reference.
    if not judge.expect("top-level status", resp.status, {200}, "MB-PROC-19"):
        judge.note(f"refused naming {(problem_of(resp) or {}).get('requirement')}")
        return
    statuses = [{200}, {200}, {200}]
    env = expect_processed(ctx, judge, resp, [s.content_id for s in subs], statuses, "MB-PROC-18")
    seen = readable_echoes(judge, env.parts[1].body, env.parts[2].body)
    # MB-PROC-18: the part runs "as the same request sent alone with those values".
    judge.expect(
        "part 1 target received",
        seen[0].target,
        {escaped.replace("$$(", "$(")},
        "MB-PROC-18",
    )
    judge.expect(
        "part 1 X-Mb-Literal received",
        seen[0].get_all("X-Mb-Literal"),
        [["$(1) $(2) $(9:ETag)"]],
        "MB-PROC-18",
    )
    judge.expect("part 2 content received", seen[1].body, {content}, "MB-PROC-18")


@checker(
    "references-atomic-unresolved",
    ("MB-PROC-21",),
    "In an atomic references batch, a reference to a part with no Location rolls back the parts that ran and skips the rest.",
    profile="references",
    state=State.WRITES_IN_SANDBOX,
)
def reference_atomic(ctx: Context, judge: Judge) -> None:
    if not ctx.target.claims("atomic"):
        judge.not_applicable("the target does not claim the atomic profile")
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    ok = ctx.path(ctx.resource(judge, "ok"))
    subs = [
        SubRequest(
            "POST", coll, JSON_FIELDS, _member(ctx, judge, f"mb-suite-ref-{secrets.token_hex(6)}")
        ),
        SubRequest("GET", ok),
        SubRequest("DELETE", "$(1)"),
        SubRequest("GET", ok),
    ]
    resp = ctx.batch(judge, subs, headers=(("Batch-Mode", "atomic, references"),))
    env = expect_processed(ctx, judge, resp, [s.content_id for s in subs])
    # MB-PROC-21: "MUST undo the effects of every part that ran and mark each of them
    # `Batch-Outcome: rolled-back` with its real status, answer the unresolved part as
    # MB-PROC-20 requires, and answer every later part `Batch-Outcome: skipped`".
    outcomes = [p.get("Batch-Outcome") for p in env.parts]
    judge.expect("outcomes", outcomes, [["rolled-back", "rolled-back", "skipped", "skipped"]])
    judge.expect("part 0 status", part_status(env, 0), {201})
    created = _path(ctx, env.parts[0].get("Location"), subs[0].target)
    if created is not None:
        after = ctx.alone(judge, SubRequest("GET", created))
        judge.expect(f"GET {created} after the batch", after.status, {404, 410})


@checker(
    "batch-mode-list",
    ("MB-PROC-17",),
    "A Batch-Mode list naming one mode the server does not implement is answered 501, whatever else it lists.",
    state=State.READ_ONLY,
)
def batch_mode_list(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    known = "atomic" if ctx.target.claims("atomic") else "references"
    resp = ctx.batch(
        judge, [SubRequest("GET", ok)], headers=(("Batch-Mode", f"{known}, mb-suite-no-such-mode"),)
    )
    # MB-PROC-17: "MUST answer 501 (Not Implemented), before any part runs, a batch request that
    # lists a mode it does not implement".
    judge.expect("status", resp.status, {501})
