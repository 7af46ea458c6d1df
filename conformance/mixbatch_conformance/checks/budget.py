"""The budget of batches in flight (spec 9.1, MB-LIMIT-6): the batch beyond it is refused first.

Theory of operation: MB-LIMIT-6 asks a server to "bound the batches it holds in flight" and to
"answer a batch request beyond that budget with 503 (Service Unavailable) and a Retry-After
field before any part of it runs". A client can only reach the budget on purpose when it knows
it, so the check reads the number the target publishes as `max_batches_in_flight` (in its
target description, else in the capabilities document's `limits`, spec 9.1) and is N/A when
there is none: probing an unknown budget would mean sending load without a bound, and a
server that refuses nothing under a guessed load may simply have a larger budget.

With a budget of n, the check holds n batches at once, each a POST of the sandbox member
marked with its own fresh value followed by a GET of the delay resource that takes `HOLD_MS`;
after `SETTLE_S`, while they are all still running, it sends batch n+1 the same way. It then
judges:

    refusal       at least one of the n+1 is answered 503 (the server may refuse any of them:
                  another client may hold part of the budget)
    Retry-After   every 503 carries Retry-After, as delay-seconds or an HTTP-date
    nothing ran   no refused batch's marker is among the sandbox's members afterwards (a
                  collection retrieval, MB-STATUS-7), so its write never happened
    statuses      every other answer is the 200 of a processed batch
    given back    once all are answered, up to three waves of n batches held at once (each
                  a GET of the delay resource), each after the Retry-After of the one before,
                  do not admit fewer and fewer, one drop after another: spec 9.1 says a
                  refused batch "takes no part of the budget", so a 503 gives its place back
                  (a single short wave is no fault: other clients share the budget)

A server that admits the batches more slowly than `SETTLE_S` would see them one after another;
the margin to `HOLD_MS` is wide on any server that answers a small batch in a few tens of
milliseconds. The budget is bounded by `MAX_HELD`, so the check never opens more connections
than that; a larger budget is N/A. An intermediary may queue concurrent requests or spread them
over its own pool of connections, so the check runs direct only. It waits out one slow part
(about a second) and writes, so it is in the standard tier.

`budget-refusal-retry-after` needs no published budget: it holds `MAX_PROBED` batches at once,
each only a GET of the delay resource (it writes nothing), and sends one more. A server that
refuses none may have a larger budget and the check is N/A; every answer but a 200 is its
refusal, judged as MB-LIMIT-6 says: 503, with Retry-After and a problem document (a 429, the
status of a rate limit, or a 500 is not the answer for "too busy").
"""

from __future__ import annotations

import secrets
import time
from concurrent.futures import ThreadPoolExecutor

from mixbatch_conformance.checks._shared.budget_load import (
    BUDGET,
    CONCURRENT_LOAD,
    SETTLE_S,
    probed_budget,
    slow_part,
)
from mixbatch_conformance.checks._shared.requests import sandbox_listing
from mixbatch_conformance.checks._shared.sandbox_marks import marked_member
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch, problem_of
from mixbatch_conformance.core.judge import Judge, NotApplicable
from mixbatch_conformance.core.outcomes import expect_rejected, expect_retry_after, retry_after_s
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import Exchange

__all__: list[str] = []

#: The largest budget the check fills: it opens at most this many connections plus one.
MAX_HELD = 32
#: Waves of a full budget sent after the excess was refused, until one runs whole.
GIVEN_BACK_WAVES = 3
#: The longest Retry-After a wave waits out before the next.
RETRY_WAIT_CAP_S = 2.0
BOUNDARY = "mb-budget-7d3f09a1c4e6b258"
JSON_FIELDS = (("Content-Type", "application/json"),)


def _budget(ctx: Context, judge: Judge) -> int:
    budget = ctx.limit(BUDGET)
    if budget is None:
        judge.not_applicable(f"the target publishes no {BUDGET} budget to fill")
    if not 1 <= budget <= MAX_HELD:
        judge.not_applicable(f"{BUDGET} {budget} is outside the 1 to {MAX_HELD} the check fills")
    return budget


@checker(
    "budget-excess-batch-refused",
    ("MB-LIMIT-6",),
    "A batch beyond the published budget of batches in flight is answered 503 with "
    "Retry-After, and none of its parts ran; afterwards waves of as many batches as the budget, "
    "held at once, do not admit fewer and fewer as the refusals pile up.",
    tier="standard",
    state=State.WRITES_IN_SANDBOX,
    direct_only=CONCURRENT_LOAD,
)
def excess_batch_refused(ctx: Context, judge: Judge) -> None:
    budget = _budget(ctx, judge)
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    delay = slow_part(ctx, judge)
    run = secrets.token_hex(6)
    markers = [f"mb-suite-budget-{run}-{i}" for i in range(budget + 1)]
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    requests = [
        ctx.raw_request(
            "POST",
            ctx.batch_path,
            head,
            compose_batch(
                [
                    SubRequest("POST", coll, JSON_FIELDS, marked_member(ctx, judge, marker)),
                    SubRequest("GET", delay),
                ],
                BOUNDARY,
            ),
        )
        for marker in markers
    ]
    with ThreadPoolExecutor(budget, thread_name_prefix="mixbatch-budget") as pool:
        held = [pool.submit(ctx.send_many, judge, [r]) for r in requests[:-1]]
        time.sleep(SETTLE_S)
        answers: list[Exchange] = [*ctx.send_many(judge, [requests[-1]])]
        answers = [f.result()[0] for f in held] + answers
    missing = [i for i, ex in enumerate(answers) if ex.response is None]
    if missing:
        judge.setup_error(f"batches {missing} got no answer: {answers[missing[0]].error}")
    statuses = [ex.response.status if ex.response else 0 for ex in answers]
    refused = [i for i, s in enumerate(statuses) if s == 503]
    # MB-LIMIT-6: "SHOULD bound the batches it holds in flight ... and SHOULD answer a batch
    # request beyond that budget with 503 (Service Unavailable)".
    judge.expect_true(
        "a batch beyond the budget refused",
        bool(refused),
        f"statuses {statuses} with {BUDGET} {budget}",
        f"503 for at least one of {budget + 1} batches held at once",
        "MB-LIMIT-6",
    )
    for i, status in enumerate(statuses):
        judge.expect(f"batch {i} status", status, {200, 503}, "MB-LIMIT-6")
    for i in refused:
        response = answers[i].response
        assert response is not None
        expect_retry_after(judge, response, f"batch {i} Retry-After")
        # MB-STATUS-4: "A server MUST give each 4xx or 5xx response it makes to a batch request
        # an `application/problem+json` body (RFC 9457) ...; the document MUST be one the problem
        # schema ([`spec/schemas/problem.schema.json`]) admits": the 503 carries one, whose
        # schema validity Context judges for every answer to a batch request (spec 5.3: its
        # `limit` "stands beside a 413, 431 or 503", naming a limit or `max_batches_in_flight`).
        judge.expect_true(
            f"batch {i}: problem document",
            problem_of(response) is not None,
            repr(response.get("Content-Type")),
            "a JSON object as application/problem+json",
            "MB-STATUS-4",
        )
    if not refused:
        return
    _refusals_give_back_their_place(ctx, judge, budget, delay, statuses)
    try:
        listing = sandbox_listing(ctx, judge, coll)
    except NotApplicable as exc:
        # Everything else stands; only whether a refused batch ran cannot be seen.
        judge.note(f"{exc}: whether a refused batch ran is not judged")
        return
    for i in refused:
        ran = markers[i].encode() in listing
        # MB-LIMIT-6: the 503 comes "before any part of it runs".
        judge.expect_true(
            f"batch {i} ran nothing",
            not ran,
            "its POST part created a member" if ran else "no member with its marker",
            "no part of a refused batch ran",
            "MB-LIMIT-6",
        )


def _refusals_give_back_their_place(
    ctx: Context, judge: Judge, budget: int, delay: str, first: list[int]
) -> None:
    """Once every batch of the excess is answered, waves of `budget` batches held at once do
    not find the budget shrinking by the places refusals took.

    Spec 9.1: "A batch the server has refused, for any fault, is no longer held once its
    refusal is sent, and takes no part of the budget", its 503 included. The budget is shared
    with other clients ("a client cannot count on the first `max_batches_in_flight` of its own
    batches being taken"), and a server may admit fewer than it publishes, so a wave that is
    not processed whole is no fault by itself. A place a refusal keeps is kept for good, and
    each refusal of a wave keeps one more: each wave then admits what the one before admitted
    less that one's refusals, one drop after another. That shape, over GIVEN_BACK_WAVES waves after the excess, is what is judged;
    each wave waits out the Retry-After of the one before (up to RETRY_WAIT_CAP_S)."""
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    request = ctx.raw_request(
        "POST", ctx.batch_path, head, compose_batch([SubRequest("GET", delay)], BOUNDARY)
    )
    admitted = [sum(status == 200 for status in first)]
    refused = [sum(status == 503 for status in first)]
    if admitted[0] <= GIVEN_BACK_WAVES - 1:
        judge.note(
            f"{admitted[0]} of {budget + 1} batches ran beside the refused one: too few places "
            "to see the budget shrink wave by wave"
        )
        return
    wait = SETTLE_S
    waves: list[list[int]] = []
    for _ in range(GIVEN_BACK_WAVES):
        time.sleep(wait)
        with ThreadPoolExecutor(budget, thread_name_prefix="mixbatch-budget") as pool:
            held = [pool.submit(ctx.send_many, judge, [request]) for _ in range(budget)]
            answers = [f.result()[0] for f in held]
        waves.append([ex.response.status if ex.response else 0 for ex in answers])
        admitted.append(sum(status == 200 for status in waves[-1]))
        refused.append(sum(status == 503 for status in waves[-1]))
        if admitted[-1] == budget:
            break
        wait = max(SETTLE_S, min(RETRY_WAIT_CAP_S, _retry_after_s(answers)))
    # The leak's own arithmetic: each wave admits what the one before admitted less the
    # places its refusals kept, and fewer each time. A limit that adapts to load falls too,
    # but not by exactly the refusals of each wave, three times over.
    shrinking = len(admitted) == GIVEN_BACK_WAVES + 1 and all(
        admitted[i] < admitted[i - 1] and admitted[i] == max(0, admitted[i - 1] - refused[i - 1])
        for i in range(1, len(admitted))
    )
    # MB-LIMIT-6 bounds "the batches it holds in flight"; spec 9.1: a refused batch "takes no
    # part of the budget", so the refusals leave the places they met as free as before.
    judge.expect_true(
        f"waves of {budget} batches held at once after the excess was refused",
        not shrinking,
        f"batches run: {admitted[0]} beside the excess, then {admitted[1:]} (statuses {waves})",
        "no wave admitting fewer than the one before it by the refusals of that one, wave "
        "after wave (a budget shrinking by the places its refusals kept)",
        "MB-LIMIT-6",
    )


def _retry_after_s(answers: list[Exchange]) -> float:
    """The longest Retry-After in delay-seconds among the 503s of `answers` (0 when none)."""
    seconds = [
        retry_after_s(ex.response)
        for ex in answers
        if ex.response is not None and ex.response.status == 503
    ]
    return max(seconds, default=0.0)


@checker(
    "budget-refusal-retry-after",
    ("MB-LIMIT-6", "MB-STATUS-4"),
    "Batches held at once up to 32, published budget or not: every answer that is not 200 is a "
    "503 with Retry-After and a problem document.",
    tier="standard",
    state=State.READ_ONLY,
    direct_only=CONCURRENT_LOAD,
)
def refusal_retry_after(ctx: Context, judge: Judge) -> None:
    delay = slow_part(ctx, judge)
    held = probed_budget(ctx)
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    request = ctx.raw_request(
        "POST", ctx.batch_path, head, compose_batch([SubRequest("GET", delay)], BOUNDARY)
    )
    with ThreadPoolExecutor(held, thread_name_prefix="mixbatch-budget-probe") as pool:
        futures = [pool.submit(ctx.send_many, judge, [request]) for _ in range(held)]
        time.sleep(SETTLE_S)
        last: list[Exchange] = [*ctx.send_many(judge, [request])]
        answers = [f.result()[0] for f in futures] + last
    missing = [i for i, ex in enumerate(answers) if ex.response is None]
    if missing:
        judge.setup_error(f"batches {missing} got no answer: {answers[missing[0]].error}")
    statuses = [ex.response.status if ex.response else 0 for ex in answers]
    judge.note(f"{held + 1} batches held at once answered {statuses}")
    if all(s == 200 for s in statuses):
        judge.not_applicable(f"none of {held + 1} batches held at once was refused")
    for ex in answers:
        assert ex.response is not None
        if ex.response.status == 200:
            continue
        # Any other answer while the server holds batches is its "too busy" refusal, whatever
        # status it chose (a rate limit's 429, a 500): MB-LIMIT-6 says "SHOULD answer a batch
        # request beyond that budget with 503 (Service Unavailable)".
        # MB-LIMIT-6: "answer a batch request beyond that budget with 503 (Service
        # Unavailable) and a `Retry-After` field"; MB-STATUS-4: its body is a problem document.
        # expect_rejected judges both.
        expect_rejected(judge, ex.response, {503}, "MB-LIMIT-6")
