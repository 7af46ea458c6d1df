"""What fails a part under the stop policy and in an atomic batch: its status, wherever the
status comes from (spec 7.4, 7.5).

Theory of operation: spec 7.4 defines a failing part by its number alone, "A part **fails**
when its status is 400 or above", and MB-PROC-6 (stop) and MB-PROC-8 (atomic) stop the batch at
the first one. A server that decides by the meaning of the status instead (a 412 is "the part's
own precondition saying no", a 409 or 422 "an answer from the resource", a 501 or 503 "not a
failure of the part") runs on where it must stop. So:

- `error-policy-stop-resource-statuses` asks the target's `status` resource (MB-TEST-6) for
  each 4xx and 5xx code a resource or a precondition gives, one batch under the stop
  preference each: the part after it must be skipped; and for the 2xx and 3xx codes, 304
  among them, all in one batch: every part runs.
- `stop-at-failing-precondition` sends a GET of `etag_resource` whose If-Match names no tag
  it has, and one whose If-Unmodified-Since is the epoch (412 by RFC 9110 §13.1.1, §13.1.4),
  then a GET of `ok`, under the stop preference and as an atomic batch, in every declared
  form: the GET after the 412 is skipped (atomic: the part before it rolled back); a GET whose
  If-None-Match is the current tag (304) stops nothing.

- `stop-at-unknown-method-and-head-failure` sends a part whose method no resource knows (spec
  3.2.1: "answered in its part like any unknown method (typically 501 or 405)") and a HEAD of
  `not_found` (a failure with no content), then a GET of `ok`, under the stop preference and
  as an atomic batch, in every declared form: where the first part is answered 400 or above,
  the GET after it is skipped.

All are read-only: no part writes (an unknown method is answered without running).
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.requests import etag_of, ok_and_not_found
from mixbatch_conformance.checks._shared.status_parts import require_status_code
from mixbatch_conformance.checks._shared.stopping_modes import STOP, stopping_modes
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import (
    answers_in_every_form,
    entries_from_multipart,
    entry_requirement,
)

__all__: list[str] = []

#: 4xx and 5xx codes a resource or a precondition gives a request (RFC 9110 §15.5, §15.6):
#: each fails a part by spec 7.4, whatever it means.
RESOURCE_FAILURES = (401, 403, 405, 406, 409, 410, 412, 413, 415, 416, 422, 428, 429, 501, 503)
#: 2xx and 3xx codes, 304 (Not Modified) among them: none fails a part (below 400).
NOT_FAILING = (201, 202, 204, 300, 301, 302, 303, 304, 307, 308)
NO_SUCH = '"mb-suite-no-such-etag"'
EPOCH = "Thu, 01 Jan 1970 00:00:00 GMT"


def _status_part(ctx: Context, judge: Judge, code: int) -> SubRequest:
    """A GET of the target's status resource for `code` (MB-TEST-6)."""
    return SubRequest("GET", ctx.path(ctx.resource(judge, "status").replace("{code}", str(code))))


@checker(
    "error-policy-stop-resource-statuses",
    ("MB-PROC-6", "MB-RESP-2", "MB-TEST-6"),
    "Under batch-on-error=stop a part answered 401, 403, 405, 406, 409, 410, 412, 413, 415, 416, 422, 428, 429, 501 or 503 stops the batch, and parts answered 2xx or 3xx (304 among them) do not.",
    profile="error-policy",
    state=State.READ_ONLY,
)
def error_policy_stop_resource_statuses(ctx: Context, judge: Judge) -> None:
    ok, _ = ok_and_not_found(ctx, judge)
    for code in RESOURCE_FAILURES:
        subs = [_status_part(ctx, judge, code), ok]
        env = expect_processed(
            ctx, judge, ctx.batch(judge, subs, headers=(STOP,)), [s.content_id for s in subs]
        )
        entries = entries_from_multipart(env)
        require_status_code(
            ctx, judge, f"part 0 status ({subs[0].target})", subs[0], entries[0].status, code
        )
        # MB-PROC-6: "answer every part after the first failing part with `Batch-Outcome:
        # skipped`"; spec 7.4: "A part fails when its status is 400 or above".
        judge.expect(
            f"part 1 (outcome, status) after a part answered {code}",
            (entries[1].outcome, entries[1].status),
            {("skipped", None)},
            "MB-PROC-6",
        )
    subs = [_status_part(ctx, judge, code) for code in NOT_FAILING] + [ok]
    env = expect_processed(
        ctx, judge, ctx.batch(judge, subs, headers=(STOP,)), [s.content_id for s in subs]
    )
    for i, entry in enumerate(entries_from_multipart(env)):
        # Spec 7.4: a part below 400 does not fail, so under stop every later part still runs
        # (MB-PROC-6 skips only "every part after the first failing part").
        judge.expect(
            f"part {i} ({subs[i].target}) outcome after parts answered 2xx and 3xx",
            entry.outcome,
            {None},
            "MB-PROC-6",
        )


@checker(
    "stop-at-failing-precondition",
    ("MB-PROC-6", "MB-PROC-8", "MB-PROC-9", "MB-MULTI-6", "MB-MULTI-4"),
    "Under batch-on-error=stop and in an atomic batch, in every declared form, a GET part answered 412 for its If-Match or If-Unmodified-Since stops the batch, and one answered 304 for its If-None-Match does not.",
    profile="conditional",
    state=State.READ_ONLY,
)
def stop_at_failing_precondition(ctx: Context, judge: Judge) -> None:
    modes = stopping_modes(ctx, judge)
    path, etag = etag_of(ctx, judge)
    ok, _ = ok_and_not_found(ctx, judge)
    failing = (
        SubRequest("GET", path, (("If-Match", NO_SUCH),)),
        SubRequest("GET", path, (("If-Unmodified-Since", EPOCH),)),
    )
    for field, name, requirement in modes:
        for fail in failing:
            cond = "; ".join(f"{n}: {v}" for n, v in fail.headers)
            forms = answers_in_every_form(ctx, judge, [ok, fail, ok], (field,))
            base = forms[0][2]
            for media, _, entries in forms:
                # MB-PROC-9 (RFC 9110 §13.1.1, §13.1.4): the condition is false, so 412.
                judge.require(
                    f"{name}, {media}: part 1 ({cond}) status",
                    entries[1].status,
                    {412},
                    "MB-PROC-9",
                )
                # MB-PROC-6: "answer every part after the first failing part with
                # `Batch-Outcome: skipped`"; MB-PROC-8: "answer every later part
                # `Batch-Outcome: skipped`"; spec 7.4: "A part fails when its status is 400
                # or above", a 412 included.
                # The 207 forms: see entry_requirement.
                skipped = ("skipped", None)
                judge.expect(
                    f"{name}, {media}: part 2 (outcome, status) after the 412 for {cond}",
                    (entries[2].outcome, entries[2].status),
                    {skipped},
                    entry_requirement(
                        media, (base[2].outcome, base[2].status) == skipped, requirement
                    ),
                )
                want = "rolled-back" if name == "atomic" else None
                # MB-PROC-8: "mark each part before the failing one `Batch-Outcome:
                # rolled-back` with its real status"; under stop it is a part that ran.
                judge.expect(
                    f"{name}, {media}: part 0 outcome before the 412 for {cond}",
                    entries[0].outcome,
                    {want},
                    entry_requirement(media, base[0].outcome == want, requirement),
                )
        not_modified = SubRequest("GET", path, (("If-None-Match", etag),))
        for media, _, entries in answers_in_every_form(ctx, judge, [not_modified, ok], (field,)):
            # MB-PROC-9 (RFC 9110 §13.1.2): a matching If-None-Match on GET is 304.
            judge.require(f"{name}, {media}: part 0 status", entries[0].status, {304}, "MB-PROC-9")
            # Spec 7.4: 304 is below 400, so no part failed: every part runs (MB-PROC-6), and
            # an atomic batch commits with no part carrying Batch-Outcome (MB-PROC-8).
            judge.expect(
                f"{name}, {media}: outcomes after a 304",
                tuple(e.outcome for e in entries),
                {(None, None)},
                requirement,
            )


#: A method token no resource implements (RFC 9110 §9.1: a token; §15.6.2: 501 when the server
#: does not recognise it, or 405 from the resource).
UNKNOWN_METHOD = "MB-SUITE-UNKNOWN"


@checker(
    "stop-at-unknown-method-and-head-failure",
    ("MB-PROC-6", "MB-PROC-8"),
    "Under batch-on-error=stop and in an atomic batch, in every declared form, a part whose method no resource knows and a HEAD answered 404, each answered 400 or above, stop the batch.",
    state=State.READ_ONLY,
)
def stop_at_unknown_method_and_head_failure(ctx: Context, judge: Judge) -> None:
    modes = stopping_modes(ctx, judge)
    ok, nf = ok_and_not_found(ctx, judge)
    failing = (SubRequest(UNKNOWN_METHOD, ok.target), SubRequest("HEAD", nf.target))
    for field, name, requirement in modes:
        for fail in failing:
            for media, _, entries in answers_in_every_form(ctx, judge, [fail, ok], (field,)):
                status = entries[0].status
                if not isinstance(status, int) or status < 400:
                    judge.note(f"{name}, {media}: {fail.method} {fail.target} answered {status}")
                    continue
                # MB-PROC-6: "answer every part after the first failing part with
                # `Batch-Outcome: skipped`"; MB-PROC-8: "answer every later part
                # `Batch-Outcome: skipped`"; spec 7.4: "A part fails when its status is 400
                # or above", whoever answers it and whether or not it has content.
                judge.expect(
                    f"{name}, {media}: part 1 (outcome, status) after {fail.method} "
                    f"{fail.target} answered {status}",
                    (entries[1].outcome, entries[1].status),
                    {("skipped", None)},
                    requirement,
                )
