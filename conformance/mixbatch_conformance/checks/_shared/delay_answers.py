"""What a part answering a GET of the delay resource may carry, given when it arrived.

MB-TEST-7 has the delay resource answer a `GET` for *ms* "with 200 no sooner than *ms*
milliseconds after it received the request", counted for a sub-request "from the moment it
begins to run that sub-request", and MB-PROC-1 runs no part "before it has received the whole
batch request". So the delay resource's 200 for a part exists no sooner than *ms* after the
batch request was sent whole. A response part that carries `Http-Status-Code: 200` for such a
sub-request and arrived before then carries a status the sub-response could not yet have had:
MB-RESP-2 gives a part "whose sub-request ran exactly one `Http-Status-Code` field holding the
sub-response's three-digit status code", not a status the server made up for a sub-request it
cut off (spec 5.4 leaves such a part unanswered, behind the abort part). A part that arrived
no more than `CLOCK_SLACK_MS` before *ms* had passed is not taken for early: a server's timers
and the suite's clock have a granularity, and a server that answers at once is far below.

The same holds of a failure status: MB-TEST-7 gives the delay resource 200 for every *ms* it
accepts and a 4xx for a larger one, never a 5xx. A part of a batch that outlasted its time
budget written with a 5xx (a 500 or 504 for the sub-request the budget cut off) is a stand-in
the server made up in place of the abort part spec 5.4 puts there; a part written with another
status than 200 is compared with the same GET sent alone, whose answer MB-TEST-7 leaves to the
largest *ms* the server accepts.
"""

from __future__ import annotations

import re

from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.validator import Part

__all__ = [
    "ALONE_SLACK_S",
    "CLOCK_SLACK_MS",
    "delay_waits",
    "expect_delay_status_not_early",
    "expect_no_stand_in_for_abort",
]

#: Milliseconds an answer may come in under a delay it waited out, for the granularity of a
#: server's timers and the suite's clock; far less than any delay the checks ask for, which a
#: server that does not wait saves whole.
CLOCK_SLACK_MS = 5
#: Seconds each standalone GET of the delay resource may take beyond its delay.
ALONE_SLACK_S = 2.0


def delay_waits(ctx: Context, judge: Judge, subs: list[SubRequest]) -> dict[int, int]:
    """The index of each GET part of `subs` on the delay resource, and its *ms*."""
    head, _, tail = ctx.path(ctx.resource(judge, "delay")).partition("{ms}")
    pattern = re.compile(re.escape(head) + r"([0-9]+)" + re.escape(tail))
    waits: dict[int, int] = {}
    for i, sub in enumerate(subs):
        found = pattern.fullmatch(sub.target)
        if sub.method == "GET" and found:
            waits[i] = int(found.group(1))
    return waits


def expect_delay_status_not_early(
    judge: Judge, label: str, part: Part, index: int, ms: int, arrived_s: float
) -> bool:
    """Part `index`, a GET of the delay resource for `ms`, arrived no later than `arrived_s`
    seconds after the batch request was sent whole: it carries the resource's 200 only if
    `ms` had passed by then. Whether it held."""
    statuses = [v.strip() for v in part.get_all("Http-Status-Code")]
    # MB-TEST-7: the delay resource answers "with 200 no sooner than *ms* milliseconds after
    # it received the request", less the clock slack.
    early = statuses == ["200"] and arrived_s * 1000 < ms - CLOCK_SLACK_MS
    # MB-RESP-2: "exactly one `Http-Status-Code` field holding the sub-response's three-digit
    # status code": a 200 the delay resource could not yet have sent (MB-TEST-7) is not it.
    return judge.expect_true(
        f"{label}part {index} (a {ms} ms delay) Http-Status-Code as the sub-response's",
        not early,
        f"Http-Status-Code: 200 within {arrived_s:.3f} s of the batch being sent whole, "
        f"before the delay resource's 200 could exist",
        f"no 200 before {ms} ms (less {CLOCK_SLACK_MS} ms of clock slack) had passed, as "
        "MB-TEST-7's delay resource answers no sooner than ms: the sub-response's own status, "
        "or no part (the abort part in its place)",
        "MB-RESP-2",
    )


def expect_no_stand_in_for_abort(
    ctx: Context, judge: Judge, label: str, status: int | None, sub: SubRequest, index: int, ms: int
) -> bool:
    """Part `index` of a batch that outlasted its time budget, a GET of the delay resource
    for `ms` answered before the abort with `status`, carries the resource's own status, not a
    failure written for the sub-request the budget cut off. Whether it held."""
    if status is None or status == 200:
        return True
    what = f"{label}part {index} (a {ms} ms delay) Http-Status-Code {status} before the abort"
    # Spec 5.4 lists what a server that stops while part k runs writes: "parts 0 to k-1, then
    # the abort part with `part_index` k", or "parts 0 to k, then the abort part with
    # `part_index` k+1 (the server finished part k ...)"; "Parts from `part_index` on have no
    # response part". MB-STATUS-6: the server "MUST finish the part it is writing if it can,
    # then write a final part with `Batch-Outcome: aborted`". A part written with a status its
    # sub-request never produced finished nothing: it stands where the abort part goes.
    if status >= 500:
        # MB-TEST-7: the delay resource answers "with 200 no sooner than *ms* milliseconds
        # after it received the request, for every *ms* up to the largest it accepts, and with
        # a 4xx status for any larger *ms*": never a 5xx.
        return judge.expect_true(
            what,
            False,
            f"Http-Status-Code: {status}, a status the delay resource never answers (200, "
            "or a 4xx for a delay it does not accept)",
            "the delay resource's own answer (200), or no part: the abort part in its place "
            "(spec 5.4: parts 0 to k-1 then the abort part naming k, or parts 0 to k then the "
            "abort part naming k+1)",
            "MB-STATUS-6",
        )
    if ms / 1000 + ALONE_SLACK_S > ctx.timeout_for(judge):
        judge.note(f"{what} not compared: the same GET alone would not fit the check's wait")
        return True
    alone = ctx.alone(judge, sub)
    # MB-TEST-7 fixes the 4xx only "for any larger *ms*" than the server accepts: the same
    # GET alone says which it is.
    return judge.expect(
        f"{what}, as the same GET alone answers",
        status,
        {alone.status},
        "MB-STATUS-6",
        allowed_text=f"{alone.status}, the status the same GET answers alone; else no part, "
        "the abort part in its place (spec 5.4)",
    )
