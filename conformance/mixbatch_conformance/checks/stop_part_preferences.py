"""A part's own Prefer does not lift the batch's stop (spec 7.4, 7.5, 3.2).

Theory of operation: the error policy is a preference of the batch request (spec 7.4: "the
client's preference `batch-on-error`, sent in the batch request's `Prefer` field"), and a part's
header fields are its sub-request's (MB-PART-8). A server that reads a part's own
`Prefer: batch-on-error=continue` as leave to run that part after a failure, or as the policy
from that part on, runs what MB-PROC-6 and MB-PROC-8 skip. `stop-whatever-parts-prefer` sends,
under each stopping mode the target offers, a failing part then a part that succeeds alone, with
`Prefer: batch-on-error=continue` in the failing part, in the part after it and in both: the
part after is skipped every time, in every declared form. An echo part carrying the field,
alone in a stopping batch, receives it as the same request alone does (MB-PART-8).
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.alone import expect_same_as_alone
from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.checks._shared.stopping_modes import stopping_modes
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import answers_in_every_form

__all__: list[str] = []

#: The part-level field: the preference a batch would use to ask for continue.
CONTINUE = ("Prefer", "batch-on-error=continue")


@checker(
    "stop-whatever-parts-prefer",
    ("MB-PROC-6", "MB-PROC-8", "MB-PART-8"),
    "Under batch-on-error=stop and in an atomic batch, Prefer: batch-on-error=continue inside the failing part, the part after it or both is a sub-request field: the part after the failing one is skipped, in every declared form, and an echo part receives the field as alone.",
    state=State.READ_ONLY,
)
def stop_whatever_parts_prefer(ctx: Context, judge: Judge) -> None:
    modes = stopping_modes(ctx, judge)
    ok, nf = ok_and_not_found(ctx, judge)
    # In the failing part, in the part after it, and in both.
    cases = [
        [SubRequest("GET", nf.target, (CONTINUE,)), ok],
        [nf, SubRequest("GET", ok.target, (CONTINUE,))],
        [SubRequest("GET", nf.target, (CONTINUE,)), SubRequest("GET", ok.target, (CONTINUE,))],
    ]
    for field, name, requirement in modes:
        for subs in cases:
            where = [i for i, sub in enumerate(subs) if sub.headers]
            for media, _, entries in answers_in_every_form(ctx, judge, subs, (field,)):
                what = f"{name}, {media}, Prefer continue in part(s) {where}"
                # MB-TEST-1: the not_found resource answers 404, a failing status (spec 7.4:
                # "A part fails when its status is 400 or above").
                judge.expect(f"{what}: part 0 status", entries[0].status, {404}, requirement)
                # MB-PROC-6 and MB-PROC-8: every part after the first failing part is answered
                # `Batch-Outcome: skipped` and not run.
                judge.expect(
                    f"{what}: part 1 (outcome, status)",
                    (entries[1].outcome, entries[1].status),
                    {("skipped", None)},
                    requirement,
                )
        echo = ctx.target.resource("echo")
        if echo:
            # MB-PART-8: "The part's other header fields are the sub-request's header fields".
            sub = SubRequest("GET", ctx.path(echo), (CONTINUE,))
            resp = ctx.alone(judge, sub)
            alone = (resp.status, resp.headers, resp.body)
            for media, _, entries in answers_in_every_form(ctx, judge, [sub], (field,)):
                got = (entries[0].status, entries[0].fields, entries[0].body)
                label = f"{name}, {media}: echo part with Prefer continue"
                expect_same_as_alone(ctx, judge, label, sub, got, alone)
