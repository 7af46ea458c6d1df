"""Standalone writes sent while an atomic batch that will not commit runs (spec 7.5).

Theory of operation: MB-PROC-15 says a server "MUST NOT let any other request, standalone or a
part of another batch, observe ... any effect of an atomic batch that does not commit". The
reader checks cover requests that only read; a write observes the store too, through its
precondition, and a rollback can reach past its own batch's writes. So the check runs an atomic
batch that rewrites member `p` (PUT), waits `HOLD_MS` on the `delay` resource and fails on the
`not_found` resource, so it rolls back (MB-PROC-8). `WRITE_AFTER_S` after it is sent, while it
waits, three standalone writes go at once, each in its own thread:

    PUT p        a new document for the member the batch rewrites; with `If-Match` and the tag
                 `p` had before the batch, where the target offers `conditional` and gives ETags
    PUT q        a new document for another member, which the batch never names
    POST coll    a new member of the sandbox collection

A server that runs the writes before the batch or after it passes: either way each write is
answered as MB-TEST-3 says, and once the batch is answered each one is still there. A 412 to
the `If-Match` PUT compared the tag with the batch's uncommitted document. A write answered
2xx and gone after the batch was undone by the batch's rollback: the state a later read sees is
then neither the one before the batch nor the one after it, which is an effect of a batch that
did not commit. Without ETags and a sandbox that reads back, a rewrite cannot be seen, and only
the POST is judged.
"""

from __future__ import annotations

import secrets
import threading
import time

from mixbatch_conformance.checks._shared.collections import created_path
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
#: Milliseconds the atomic batch waits between its write and its failing part: long enough for
#: the standalone writes to arrive while it holds its write.
HOLD_MS = 800
#: Seconds after the batch is sent that the standalone writes are sent: it has written and
#: waits.
WRITE_AFTER_S = 0.3


def _rewritten(ctx: Context, got: Response, marker: str, tag: str | None) -> bool:
    """Whether a GET's answer shows the document marked `marker` (its content where the sandbox
    reads back, else a tag other than the `tag` before)."""
    if got.status != 200:
        return False
    if ctx.target.sandbox_reads_back:
        return marker.encode() in got.body
    return got.get("ETag") != tag


@checker(
    "atomic-rollback-spares-standalone-writes",
    ("MB-PROC-15",),
    "Standalone writes sent while an atomic batch that rolls back holds its write (a PUT of "
    "the member it rewrote, with If-Match where the target offers conditional; a PUT of "
    "another member; a POST) neither see the uncommitted write nor are undone by the rollback.",
    profile="atomic",
    state=State.WRITES_IN_SANDBOX,
    tier="standard",
)
def rollback_spares_standalone_writes(ctx: Context, judge: Judge) -> None:
    coll, wait, fail = held_rollback(
        ctx, judge, HOLD_MS, holds=2, waiting="a write queued behind a delayed batch"
    )
    run = secrets.token_hex(6)
    p, q = (created_member(ctx, judge, coll, f"mb-suite-old-{run}") for _ in range(2))
    tags: dict[str, str | None] = {}
    for path in (p, q):
        before = ctx.alone(judge, SubRequest("GET", path))
        judge.require(f"GET {path}", before.status, {200}, "MB-TEST-3")
        tags[path] = before.get("ETag")
    rewrites = ctx.target.sandbox_reads_back or None not in tags.values()
    batch_doc = marked_member(ctx, judge, f"mb-suite-batch-{run}")
    mine = {path: f"mb-suite-alone-{n}-{run}" for n, path in enumerate((p, q))}
    created = f"mb-suite-created-{run}"
    before_tag = tags[p]
    writes: dict[str, SubRequest] = {
        "POST": SubRequest("POST", coll, JSON_FIELDS, marked_member(ctx, judge, created))
    }
    if rewrites:
        condition: tuple[tuple[str, str], ...] = ()
        if ctx.target.claims("conditional") and before_tag is not None:
            condition = (("If-Match", before_tag),)
        writes[f"PUT {p}"] = SubRequest(
            "PUT", p, JSON_FIELDS + condition, marked_member(ctx, judge, mine[p])
        )
        writes[f"PUT {q}"] = SubRequest("PUT", q, JSON_FIELDS, marked_member(ctx, judge, mine[q]))
    else:
        judge.note("the sandbox neither reads back nor gives ETags: only the POST is sent")

    answers: dict[str, Response] = {}

    def send(name: str) -> None:
        if name == "batch":
            subs = [SubRequest("PUT", p, JSON_FIELDS, batch_doc), wait, fail]
            answers[name] = ctx.batch(judge, subs, headers=ATOMIC)
        else:
            answers[name] = ctx.alone(judge, writes[name])

    batch = threading.Thread(target=send, args=("batch",), name="mixbatch-atomic-writers")
    batch.start()
    time.sleep(WRITE_AFTER_S)
    during = batch.is_alive()
    threads = [
        threading.Thread(target=send, args=(name,), name="mixbatch-standalone-writer")
        for name in writes
    ]
    for t in threads:
        t.start()
    for t in (batch, *threads):
        t.join()
    if len(answers) != len(threads) + 1:
        judge.setup_error("a request of the round got no answer")
    env = ctx.read_batch(judge, answers["batch"])
    failed = part_status(env, 2) if len(env.parts) > 2 else None
    if failed is None or failed < 400:
        judge.setup_error(f"the atomic batch's last part answered {failed}, not a failure")
    if not during:
        judge.not_applicable("the atomic batch was answered before the writes could be sent")

    post = answers["POST"]
    # MB-TEST-3: a POST of a member document is answered "201 with a Location field naming
    # it".
    judge.require("the standalone POST", post.status, {201}, "MB-TEST-3")
    new = created_path(ctx, coll, post.get("Location"))
    if new is None:
        judge.setup_error("the standalone POST answered 201 without a usable Location")
    got = ctx.alone(judge, SubRequest("GET", new))
    # MB-PROC-15: "nor any effect of an atomic batch that does not commit": a member created
    # while the batch ran, gone after its rollback, was removed by that rollback.
    judge.expect(f"GET {new}, created while the batch ran", got.status, {200}, "MB-PROC-15")
    if not rewrites:
        return
    for path in (p, q):
        put = answers[f"PUT {path}"]
        if put.status == 412 and path == p:
            # MB-PROC-15: a precondition is an observation; the tag it failed against is the
            # one of the batch's uncommitted document, since `p` carried the `If-Match` tag
            # before the batch and carries it again once the batch is undone.
            judge.expect_true(
                f"PUT {path} with If-Match: {tags[p]} while the batch ran",
                False,
                "412: the precondition saw the batch's uncommitted document",
                "200 or 204: the tag before the batch is the tag outside it",
                "MB-PROC-15",
            )
            continue
        # MB-TEST-3: "a `PUT` to an existing member with 200 or 204".
        if not judge.expect(f"PUT {path} while the batch ran", put.status, {200, 204}, "MB-TEST-3"):
            continue
        got = ctx.alone(judge, SubRequest("GET", path))
        kept = _rewritten(ctx, got, mine[path], tags[path])
        # MB-PROC-15: a write answered 2xx and undone once the batch is answered was undone by
        # the rollback of a batch that did not commit.
        judge.expect_true(
            f"GET {path} after the batch",
            kept,
            f"{got.status}, the standalone PUT's document {'there' if kept else 'gone'}",
            "200 with the document of the PUT sent while the batch ran",
            "MB-PROC-15",
        )
