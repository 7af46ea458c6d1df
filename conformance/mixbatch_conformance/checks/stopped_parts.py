"""The parts that ran in a batch that stopped: each keeps its own sub-response (spec 3.3.3).

Theory of operation: a batch under `Prefer: batch-on-error=stop` (MB-PROC-6), and an atomic
batch (MB-PROC-8), stop at their first failing part. What they write for the parts after it is
an outcome (`skipped`); what they write for the parts that ran is still a sub-response, and
MB-RESP-4 binds it like any other: "MUST put the sub-response's header fields in the response
part ... and MUST put the sub-response's content in the part body". MB-PROC-8 says the same of
the atomic batch's parts in its own words: the failing part "with its own status", the parts
before it `rolled-back` "with their real statuses". A server that writes the stopping part as a
report of the stop (a problem document of its own in place of the resource's answer), or the
rolled-back parts without their content, breaks MB-RESP-4.

The check sends a quick GET, a GET the target's resources fail (its `not_found` resource, and a
500 from its `status` resource where it declares one), and a quick GET, under each mode the
target offers (the stop preference, Batch-Mode: atomic) and in every form it declares
(multipart/mixed, and the XML and JSON forms). The failing part, and in the atomic batch the
rolled-back part before it, must be the same request sent alone by the rules of spec 3.2.4:
the same status, the same header fields apart from framing fields, `Date` and the declared
volatile ones, and the same content. It writes nothing.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.alone import expect_same_as_alone
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import answers_in_every_form

__all__: list[str] = []

#: The modes that stop a batch at its first failing part: (the profile that offers it, the
#: request field that asks for it, its name in the report).
STOPPING_MODES = (
    ("error-policy", ("Prefer", "batch-on-error=stop"), "stop"),
    ("atomic", ("Batch-Mode", "atomic"), "atomic"),
)
#: Status codes the `status` resource is asked for: a failure of the server's own class.
FAILING_CODES = ("500",)


def _failing_requests(ctx: Context, judge: Judge) -> list[SubRequest]:
    failing = [SubRequest("GET", ctx.path(ctx.resource(judge, "not_found")))]
    template = ctx.target.resource("status")
    if template:
        failing += [
            SubRequest("GET", ctx.path(template.replace("{code}", c))) for c in FAILING_CODES
        ]
    return failing


@checker(
    "stopping-part-keeps-its-response",
    ("MB-RESP-4", "MB-PROC-6", "MB-PROC-8"),
    "Under the stop preference and in an atomic batch, in every declared form, the part that stops the batch (a 404, a 500) and the rolled-back part before it carry the same fields and content as the same request alone.",
    state=State.READ_ONLY,
)
def stopping_part_keeps_its_response(ctx: Context, judge: Judge) -> None:
    modes = [(field, name) for profile, field, name in STOPPING_MODES if ctx.target.claims(profile)]
    if not modes:
        judge.not_applicable("the target claims neither the error-policy nor the atomic profile")
    ok = SubRequest("GET", ctx.path(ctx.resource(judge, "ok")))
    ok_alone = ctx.alone(judge, ok)
    if ok_alone.status >= 400:
        judge.setup_error(f"GET {ok.target} alone answered {ok_alone.status}")
    for failing in _failing_requests(ctx, judge):
        alone = ctx.alone(judge, failing)
        if alone.status < 400:
            judge.note(f"GET {failing.target} alone answered {alone.status}: it fails nothing")
            continue
        subs = [ok, failing, ok]
        for field, name in modes:
            for media, _, entries in answers_in_every_form(ctx, judge, subs, (field,)):
                got = entries[1]
                # MB-PROC-6 and MB-PROC-8 keep the failing part a part that ran: "the failing
                # part with its own status and no Batch-Outcome"; MB-RESP-4 gives it "the
                # sub-response's header fields" and "the sub-response's content".
                judge.expect(
                    f"{name}, {media}: failing part Batch-Outcome",
                    got.outcome,
                    {None},
                    "MB-PROC-8" if name == "atomic" else "MB-PROC-6",
                )
                expect_same_as_alone(
                    ctx,
                    judge,
                    f"{name}, {media}: failing part ({failing.target})",
                    failing,
                    (got.status, got.fields, got.body),
                    (alone.status, alone.headers, alone.body),
                )
                if name != "atomic":
                    continue
                first = entries[0]
                # MB-PROC-8: "mark each part before the failing one `Batch-Outcome:
                # rolled-back` with its real status": a part that ran, whose sub-response
                # MB-RESP-4 still carries whole.
                expect_same_as_alone(
                    ctx,
                    judge,
                    f"{name}, {media}: rolled-back part ({ok.target})",
                    ok,
                    (first.status, first.fields, first.body),
                    (ok_alone.status, ok_alone.headers, ok_alone.body),
                )
