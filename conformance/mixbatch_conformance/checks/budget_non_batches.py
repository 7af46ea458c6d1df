"""Requests that are not batches, while the budget of batches in flight is full (spec 9.1, 9.2).

Theory of operation: MB-LIMIT-6's budget is of batches ("A server SHOULD bound the batches it
holds in flight", published as `max_batches_in_flight`, "a batch request beyond that budget"
being the one refused), and a request that is not a batch holds none of it. MB-LIMIT-2 asks a
server offering the `limits` profile to "answer `OPTIONS` on a batch endpoint with 200, an
`application/vnd.mixbatch.capabilities+json` document", with no exception for a busy server;
MB-METHOD-2 asks it to "answer a request to a batch endpoint with any method it does not
support there with 405 (Method Not Allowed)"; MB-TEST-1 asks the `ok` resource to answer a
`GET` with 200. A server that takes the budget at the top of its batch endpoint for every
method answers those 503 while the budget is full.

The check learns each request's answer alone while the server is idle: OPTIONS of the batch
endpoint (with and without an Accept naming the capabilities document), GET, HEAD and DELETE of
the endpoint, and GET of `ok` alone. It then holds exactly the published
`max_batches_in_flight` batches at once (`MAX_PROBED` where none is published, as
`budget-refusal-retry-after` does), each a GET of the delay resource taking `HOLD_MS`, and
once a batch sent beyond them is refused (the budget is full; one processed is sent again until
`PROBE_UNTIL_S`, as `beyond_held` does) it sends each request again, on a connection of its
own, and expects OPTIONS to get its idle status (and, answered 200, the capabilities media
type), and each other request its idle status or 503, which any overloaded server may give.
A request answered only after the held batches could have ended is not judged (the budget was
not seen full for it; a proxy whose connections to its origin the held batches all take answers
a GET of `ok` only then); where none is answered before, the check is N/A. A batch beyond the budget may be refused: only requests that are not
batches are judged. The load is bounded: a published budget over `MAX_PROBED` is N/A. Where the batch
beyond the held ones is never refused, the budget was not seen full, and the check is N/A
unless a request was already answered otherwise.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

from mixbatch_conformance.checks._shared.budget_load import (
    BUDGET,
    CONCURRENT_LOAD,
    MAX_PROBED,
    beyond_held,
    probed_budget,
    processed,
)
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import Exchange

__all__: list[str] = []

#: Milliseconds each held batch's slow part takes: the requests judged go while it runs.
HOLD_MS = 1500
#: Seconds of `HOLD_MS` the requests must be answered within, counted from the held batches'
#: sending, so that the held batches are still running when the last one is answered.
ANSWERED_WITHIN_S = HOLD_MS / 1000 - 0.2
BOUNDARY = "mb-budget-non-batches-5b1e8c27"
CAPABILITIES = "application/vnd.mixbatch.capabilities+json"


def _held(ctx: Context, judge: Judge) -> int:
    """How many batches to hold: the published budget, else `MAX_PROBED` (N/A for a published
    budget over `MAX_PROBED`, or where a held batch would outlast the batch_timeout_ms)."""
    published = ctx.limit(BUDGET)
    if published is not None and not 1 <= published <= MAX_PROBED:
        judge.not_applicable(
            f"{BUDGET} {published} is outside the 1 to {MAX_PROBED} the check fills"
        )
    limit = ctx.target.batch_timeout_ms
    if limit is not None and limit <= HOLD_MS + 1000:
        judge.not_applicable(f"a held batch would outlast the declared batch_timeout_ms {limit}")
    return probed_budget(ctx)


def _requests(ctx: Context, judge: Judge) -> list[tuple[str, bytes, str]]:
    """(what, request, the requirement its answer is judged under)."""
    endpoint = ctx.batch_path
    ok = ctx.path(ctx.resource(judge, "ok"))
    out: list[tuple[str, bytes, str]] = []
    if ctx.target.claims("limits"):
        out.append(
            ("OPTIONS of the batch endpoint", ctx.raw_request("OPTIONS", endpoint), "MB-LIMIT-2")
        )
        out.append(
            (
                f"OPTIONS of the batch endpoint with Accept: {CAPABILITIES}",
                ctx.raw_request("OPTIONS", endpoint, [("Accept", CAPABILITIES)]),
                "MB-LIMIT-2",
            )
        )
    for method in ("GET", "HEAD", "DELETE"):
        out.append(
            (f"{method} of the batch endpoint", ctx.raw_request(method, endpoint), "MB-METHOD-2")
        )
    out.append((f"GET of ok ({ok})", ctx.raw_request("GET", ok), "MB-TEST-1"))
    return out


def _status(ex: Exchange) -> int | None:
    return ex.response.status if ex.response is not None else None


@checker(
    "budget-full-non-batches-answered-as-idle",
    ("MB-LIMIT-2", "MB-METHOD-2", "MB-TEST-1"),
    "While the published max_batches_in_flight batches (32 where none is published) are held, OPTIONS of the batch endpoint (with and without an Accept of the capabilities type) gets the capabilities document it gets when the server is idle, and GET, HEAD and DELETE of the endpoint and GET of ok get their idle status or 503: the budget counts batches only.",
    tier="standard",
    state=State.READ_ONLY,
    direct_only=CONCURRENT_LOAD,
)
def non_batches_answered_as_idle(ctx: Context, judge: Judge) -> None:
    budget = _held(ctx, judge)
    delay = ctx.path(ctx.resource(judge, "delay").replace("{ms}", str(HOLD_MS)))
    ok = ctx.path(ctx.resource(judge, "ok"))
    probes = _requests(ctx, judge)
    idle: list[tuple[int | None, str | None]] = []
    for what, request, _ in probes:
        ex = ctx.send_many(judge, [request])[0]
        if ex.response is None:
            judge.setup_error(f"{what} got no answer while the server was idle: {ex.error}")
        idle.append((ex.response.status, ex.response.media_type))
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    slow = ctx.raw_request(
        "POST", ctx.batch_path, head, compose_batch([SubRequest("GET", delay)], BOUNDARY)
    )
    small = ctx.raw_request(
        "POST", ctx.batch_path, head, compose_batch([SubRequest("GET", ok)], BOUNDARY)
    )
    with ThreadPoolExecutor(budget, thread_name_prefix="mixbatch-budget-idle") as pool:
        held_at = time.monotonic()
        futures = [pool.submit(ctx.send_many, judge, [slow]) for _ in range(budget)]
        beyond = beyond_held(ctx, judge, small, held_at)
        busy: list[tuple[Exchange, float]] = []
        for _, request, _ in probes:
            ex = ctx.send_many(judge, [request])[0]
            busy.append((ex, time.monotonic() - held_at))
        held = [f.result()[0] for f in futures]
    held_statuses = [_status(ex) for ex in held]
    judge.note(
        f"{budget} batches held answered {held_statuses}; the batch beyond them {_status(beyond)}"
    )
    late = [
        what for (what, _, _), (_, at) in zip(probes, busy, strict=True) if at > ANSWERED_WITHIN_S
    ]
    if len(late) == len(probes):
        # Answered only once the held batches could have ended (a server, or a proxy, that
        # queues requests behind them): the budget was not seen full when they were answered.
        judge.not_applicable(
            f"the requests were answered {busy[0][1]:.2f} s and more after the held batches "
            f"were sent, after {ANSWERED_WITHIN_S:.2f} s of their {HOLD_MS} ms: the budget "
            "was not seen full"
        )
    if late:
        # A request answered after the held batches could have ended (a proxy whose
        # connections to its origin are all taken by them) did not meet a full budget: it is
        # not judged, the requests answered before are.
        judge.note(
            f"not judged, answered after {ANSWERED_WITHIN_S:.2f} s of the held batches' "
            f"{HOLD_MS} ms: {', '.join(late)}"
        )
    full = not processed(beyond)
    differs = False
    for (what, _, requirement), (status, media), (ex, at) in zip(probes, idle, busy, strict=True):
        if at > ANSWERED_WITHIN_S:
            continue
        got = _status(ex)
        differs = differs or got != status
        # MB-LIMIT-6 budgets "the batches it holds in flight" and refuses "a batch request
        # beyond that budget". OPTIONS is "not a batch request" (spec 9.2) and MB-LIMIT-2 has
        # it answered "with 200, an `application/vnd.mixbatch.capabilities+json` document",
        # busy or not: it gets its idle answer. Another method on the endpoint (MB-METHOD-2's
        # 405) or a GET of ok (MB-TEST-1's 200) may also be shed as any overloaded server
        # sheds a request (RFC 9110 §15.6.4: 503 for "a temporary overload"; spec 5.1 imposes
        # no order among the statuses of its table), so for those 503 is allowed too.
        allowed = {status} if requirement == "MB-LIMIT-2" else {status, 503}
        judge.expect(
            f"{what} while {budget} batches are held",
            got,
            allowed,
            requirement,
            allowed_text=f"{status} (its answer when the server is idle)"
            + ("" if requirement == "MB-LIMIT-2" else " or 503 (overload)"),
        )
        if requirement == "MB-LIMIT-2" and got == status == 200 and ex.response is not None:
            # MB-LIMIT-2: "with 200, an `application/vnd.mixbatch.capabilities+json` document".
            judge.expect(
                f"{what} while {budget} batches are held: media type",
                ex.response.media_type,
                {media},
                requirement,
            )
    if not full and not differs:
        judge.not_applicable(
            f"a batch beyond the {budget} held was processed: the budget was not seen full"
        )
