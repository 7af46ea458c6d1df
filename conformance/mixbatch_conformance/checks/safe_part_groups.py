"""A long run of consecutive safe parts is answered part for part (spec 3.3, 7.3: MB-RESP-1,
MB-PROC-3).

Theory of operation: MB-PROC-3 lets a server run "consecutive safe sub-requests concurrently",
and a server that does so bounds how many run at once. A bound that holds a slot until the
part's result is written, while results are read only once every part of the group has
started, deadlocks on the first group longer than the bound: the status line has gone out and
nothing follows. Small batches never show it. The check sends one batch of `PARTS` parts, GET
and HEAD of the ok resource in turn, on a connection of its own, and waits the run's usual time
for the whole answer; MB-RESP-1 has it carry "exactly one response part for each request part,
in request order", each answered as that request is (200). An answer that does not end in that
time is a broken expectation of MB-RESP-1, not a timeout of the check. N/A under a published
`max_parts` below forty; a refusal by the server's own policies (503, 429) is not judged.
"""

from __future__ import annotations

from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, unjudged_if_policy_refusal
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

BOUNDARY = "mb-safe-group-5b19"
#: Consecutive safe parts: past any small bound on parts run at once (8, 16, 32).
PARTS = 40


@checker(
    "consecutive-safe-parts-all-answered",
    ("MB-RESP-1", "MB-PROC-3"),
    "A batch of forty consecutive GET and HEAD parts of ok, which a server may run concurrently, is answered with forty 200 parts in order within the run's usual wait.",
    state=State.READ_ONLY,
)
def consecutive_safe_parts_all_answered(ctx: Context, judge: Judge) -> None:
    published = ctx.limit("max_parts")
    if published is not None and published < PARTS:
        judge.not_applicable(f"the target publishes max_parts {published}, below {PARTS}")
    ok = ctx.path(ctx.resource(judge, "ok"))
    subs = [SubRequest("GET" if i % 2 == 0 else "HEAD", ok) for i in range(PARTS)]
    mixed = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    request = ctx.raw_request("POST", ctx.batch_path, mixed, compose_batch(subs, BOUNDARY))
    ex = ctx.send_within(judge, request, ctx.timeout_for(judge))
    # MB-RESP-1: "exactly one response part for each request part, in request order".
    judge.require_true(
        f"an answer to a batch of {PARTS} consecutive safe parts",
        ex.response is not None,
        f"none: {ex.error}",
        "a whole batch response",
        "MB-RESP-1",
    )
    assert ex.response is not None
    unjudged_if_policy_refusal(judge, ex.response, f"the batch of {PARTS} safe parts")
    expect_processed(
        ctx, judge, ex.response, [s.content_id for s in subs], [{200}] * PARTS, "MB-RESP-1"
    )
