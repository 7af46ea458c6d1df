"""Atomic batches queued behind one another, and a plain batch beside them (spec 7.5).

Theory of operation: MB-PROC-8 makes an atomic batch in which a part fails "undo the effects of
every part that ran", its own; MB-PROC-15 forbids any other request to observe "any effect of an
atomic batch that does not commit"; MB-PROC-16 makes the effects of a committed atomic batch
seen by "every request it receives after" its answer began. A rollback that puts back more than
its own batch's writes breaks them: a server that records the state to restore before its
atomic batch holds the store (while another atomic batch runs) records that batch's uncommitted
writes, and restores them when it rolls back in its turn; one that restores a state recorded
before other batches wrote undoes their writes.

The check creates sandbox members with POST (MB-TEST-3), then runs two rounds. In each, atomic
batch A deletes its member `a`, waits `HOLD_MS` on the delay resource and fails on the
`not_found` resource, so it rolls back; `QUEUE_AFTER_S` later, while A still runs, the other
batches are sent at once:

    both roll back   atomic batch B deletes `b` and fails. Where the sandbox reads back or
                     gives ETags, A also rewrites member `p` with a new document. Afterwards
                     `a` and `b` answer 200 and `p` its old document: each rollback undid its
                     own batch's writes and put back no other batch's.
    one commits      atomic batch B deletes `b` and commits; a batch of no mode deletes `c`.
                     Afterwards `a` answers 200, `b` and `c` 404 or 410: A's rollback left the
                     committed batch's and the plain batch's writes alone.

A server that runs the batches one after another in any order passes; so does one that runs
them together while keeping each atomic batch isolated. Each round takes about `HOLD_MS`; the
check writes only sandbox members it created, and they are deleted after the run.
"""

from __future__ import annotations

import secrets
import threading
import time

from mixbatch_conformance.checks._shared.rollbacks import held_rollback
from mixbatch_conformance.checks._shared.sandbox_marks import created_member, marked_member
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

ATOMIC = (("Batch-Mode", "atomic"),)
JSON_FIELDS = (("Content-Type", "application/json"),)
#: Milliseconds batch A waits between its writes and its failing part: long enough for the
#: batches sent after it to arrive while it holds the store.
HOLD_MS = 1000
#: Seconds after A is sent that the other batches are sent: A has written and is waiting.
QUEUE_AFTER_S = 0.3
#: What a GET of a deleted member answers (MB-TEST-3).
GONE = frozenset({404, 410})


def _round(
    ctx: Context,
    judge: Judge,
    first: list[SubRequest],
    queued: list[tuple[list[SubRequest], tuple[tuple[str, str], ...]]],
) -> tuple[Response, list[Response]]:
    """Atomic batch `first`, then each of `queued` (parts, header fields) at once while it
    runs; their answers, in that order."""
    answers: dict[int, Response] = {}

    def send(i: int, subs: list[SubRequest], headers: tuple[tuple[str, str], ...]) -> None:
        answers[i] = ctx.batch(judge, subs, headers=headers)

    threads = [threading.Thread(target=send, args=(0, first, ATOMIC), name="mixbatch-atomic-first")]
    threads += [
        threading.Thread(target=send, args=(i + 1, subs, headers), name="mixbatch-atomic-queued")
        for i, (subs, headers) in enumerate(queued)
    ]
    threads[0].start()
    time.sleep(QUEUE_AFTER_S)
    for t in threads[1:]:
        t.start()
    for t in threads:
        t.join()
    if len(answers) != len(threads):
        judge.setup_error("a batch of the round got no answer")
    return answers[0], [answers[i + 1] for i in range(len(queued))]


def _rolled_back(ctx: Context, judge: Judge, what: str, resp: Response, failing: int) -> None:
    """`resp` answers an atomic batch whose part `failing` failed (MB-PROC-8)."""
    env = ctx.read_batch(judge, resp)
    status = part_status(env, failing) if len(env.parts) > failing else None
    if status is None or status < 400:
        judge.setup_error(f"{what}: its failing part answered {status}, not a failure")


def _committed(ctx: Context, judge: Judge, what: str, resp: Response) -> None:
    env = ctx.read_batch(judge, resp)
    outcomes = [p.get("Batch-Outcome") for p in env.parts]
    statuses = [part_status(env, i) for i in range(len(env.parts))]
    if any(outcomes) or any(s is None or s >= 400 for s in statuses):
        judge.setup_error(f"{what}: answered {statuses} {outcomes}, not committed")


def _status(ctx: Context, judge: Judge, path: str) -> Response:
    return ctx.alone(judge, SubRequest("GET", path))


@checker(
    "atomic-batches-queued-undo-only-their-own",
    ("MB-PROC-15", "MB-PROC-8", "MB-PROC-16"),
    "An atomic batch that rolls back while another atomic batch waits behind it, and one that "
    "commits or a plain batch sent beside it, each leave exactly their own effects: every "
    "rollback undoes its own batch's writes and brings back no write of another batch, nor "
    "undoes one.",
    profile="atomic",
    state=State.WRITES_IN_SANDBOX,
    tier="standard",
)
def queued_undo_only_their_own(ctx: Context, judge: Judge) -> None:
    coll, wait, fail = held_rollback(
        ctx, judge, HOLD_MS, holds=2, waiting="two batches queued behind a delayed one"
    )
    limit = ctx.target.batch_timeout_ms
    if limit is not None and limit <= HOLD_MS * 2:
        judge.not_applicable(f"the queued batches would outlast the batch_timeout_ms {limit}")
    run = secrets.token_hex(6)
    old = f"mb-suite-old-{run}"

    # Round 1: A and B both roll back.
    a, b, p = (created_member(ctx, judge, coll, old) for _ in range(3))
    before = _status(ctx, judge, p)
    judge.require(f"GET {p}", before.status, {200}, "MB-TEST-3")
    tag = before.get("ETag")
    rewrite = ctx.target.sandbox_reads_back or tag is not None
    new = f"mb-suite-new-{run}"
    first = [SubRequest("DELETE", a)]
    if rewrite:
        first.append(SubRequest("PUT", p, JSON_FIELDS, marked_member(ctx, judge, new)))
    else:
        judge.note("the sandbox neither reads back nor gives ETags: A rewrites no member")
    first += [wait, fail]
    resp_a, (resp_b,) = _round(ctx, judge, first, [([SubRequest("DELETE", b), fail], ATOMIC)])
    _rolled_back(ctx, judge, "A (both roll back)", resp_a, len(first) - 1)
    _rolled_back(ctx, judge, "B (both roll back)", resp_b, 1)
    for path, whose in ((a, "A"), (b, "B")):
        got = _status(ctx, judge, path)
        # MB-PROC-8: a failing atomic batch "MUST undo the effects of every part that ran";
        # MB-PROC-15: no request may observe "any effect of an atomic batch that does not
        # commit", nor one that a rollback of another batch brought back.
        judge.expect(
            f"both rolled back: GET of the member {whose} deleted",
            got.status,
            {200},
            "MB-PROC-15",
        )
    if rewrite:
        got = _status(ctx, judge, p)
        if ctx.target.sandbox_reads_back:
            seen = got.status == 200 and new.encode() in got.body
        else:
            seen = got.status == 200 and got.get("ETag") != tag
        # MB-PROC-15: "nor any effect of an atomic batch that does not commit".
        judge.expect_true(
            "both rolled back: GET of the member A rewrote",
            got.status == 200 and not seen,
            f"{got.status}, {'the rewrite still there' if seen else 'the old document'}",
            "200 with the document before A",
            "MB-PROC-15",
        )

    # Round 2: A rolls back, B commits, a batch of no mode writes beside them.
    a, b, c = (created_member(ctx, judge, coll, old) for _ in range(3))
    resp_a, (resp_b, resp_c) = _round(
        ctx,
        judge,
        [SubRequest("DELETE", a), wait, fail],
        [([SubRequest("DELETE", b)], ATOMIC), ([SubRequest("DELETE", c)], ())],
    )
    _rolled_back(ctx, judge, "A (one commits)", resp_a, 2)
    _committed(ctx, judge, "B (one commits)", resp_b)
    env_c = ctx.read_batch(judge, resp_c)
    status_c = part_status(env_c, 0) if env_c.parts else None
    if status_c not in (200, 204):
        judge.setup_error(f"the plain batch's DELETE answered {status_c}")
    got = _status(ctx, judge, a)
    # MB-PROC-8 and MB-PROC-15, as in round 1.
    judge.expect("one commits: GET of the member A deleted", got.status, {200}, "MB-PROC-15")
    got = _status(ctx, judge, b)
    # MB-PROC-16: a committed atomic batch's effects are observed by "every request it receives
    # after" its answer began; a rollback of A that brought `b` back is an effect of A, which
    # did not commit (MB-PROC-15).
    judge.expect("one commits: GET of the member B deleted", got.status, GONE, "MB-PROC-16")
    got = _status(ctx, judge, c)
    # MB-PROC-15: a write of another batch undone by A's rollback is an effect of A, which did
    # not commit.
    judge.expect(
        "one commits: GET of the member the plain batch deleted", got.status, GONE, "MB-PROC-15"
    )
