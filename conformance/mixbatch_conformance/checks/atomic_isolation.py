"""What other requests see while an atomic batch that will not commit runs (spec 7.5).

Theory of operation: MB-PROC-15 says a server "MUST NOT let any other request, standalone or a
part of another batch, observe ... any effect of an atomic batch that does not commit". The
check makes an atomic batch that writes a sandbox member first, then waits on the `delay`
resource, then fails on the `not_found` resource, so it rolls back (MB-PROC-8). While it runs,
a reader sends, one after another, a standalone GET of the member and a batch holding only that
GET, until the atomic batch is answered. Every read must show the member as it was before the
batch: a server that holds the store for each part in turn, or only while it writes, lets a
read in between two parts, and that read sees a write that is later undone.

Each write kind is its own batch: a PUT that rewrites a member (a read must not see the new
document), a DELETE (a read must not see the member gone) and, where the sandbox is retrieved as
a collection (spec 4.2), a POST that creates one (no listing may show its document). A reader may wait for the batch
to end (a server that serializes) or answer at once from the state before it; both pass. With
no ETag and a sandbox that does not read back, a rewrite cannot be seen and that batch is N/A.
The reads are bounded by the batch's own length (`DELAY_MS` and the time per exchange).
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable

from mixbatch_conformance.checks._shared.rollbacks import held_rollback, member_pair
from mixbatch_conformance.checks._shared.sandbox_marks import marked_member
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

ATOMIC = (("Batch-Mode", "atomic"),)
JSON_FIELDS = (("Content-Type", "application/json"),)
#: Milliseconds the atomic batch waits between its write and its failing part: long enough
#: for several reads, short enough that the check takes about a second.
DELAY_MS = 500
#: Seconds between two reads of the reader.
READ_PAUSE_S = 0.02
#: Reads at most, whatever the batch's length.
MAX_READS = 200


#: One read as the reader saw it: (how it was sent, status, ETag, body).
Read = tuple[str, int | None, str | None, bytes]


#: The Accept of a collection retrieval, the one listing of a sandbox the spec defines.
LISTING = (("Accept", "multipart/mixed"),)


def _listing(ctx: Context, judge: Judge, coll: str) -> Read:
    """The sandbox listed by a collection retrieval (spec 4.2)."""
    got = ctx.send(judge, ctx.raw_request("GET", coll, LISTING))
    return ("a listing", got.status, got.get("ETag"), got.body)


def _read(ctx: Context, judge: Judge, path: str, in_batch: bool) -> Read:
    if not in_batch:
        got = ctx.alone(judge, SubRequest("GET", path))
        return ("alone", got.status, got.get("ETag"), got.body)
    resp = ctx.batch(judge, [SubRequest("GET", path)])
    env = ctx.read_batch(judge, resp)
    part = env.parts[0] if env.parts else None
    if part is None:
        return ("in a batch", None, None, b"")
    return ("in a batch", part_status(env, 0), part.get("ETag"), part.body)


def _alternating(ctx: Context, judge: Judge, path: str) -> Callable[[int], Read]:
    """Reads of `path`: standalone, then in a batch of its own, in turn."""
    return lambda n: _read(ctx, judge, path, in_batch=n % 2 == 1)


def _reads_during(
    ctx: Context, judge: Judge, read: Callable[[int], Read], subs: list[SubRequest]
) -> tuple[Response, list[Read]]:
    """The atomic batch's answer, and every `read(n)` made while it ran (n counts them)."""
    answer: list[Response] = []
    batch = threading.Thread(
        target=lambda: answer.append(ctx.batch(judge, subs, headers=ATOMIC)),
        name="mixbatch-atomic-isolation",
    )
    reads: list[Read] = []
    batch.start()
    while batch.is_alive() and len(reads) < MAX_READS:
        reads.append(read(len(reads)))
        time.sleep(READ_PAUSE_S)
    batch.join()
    if not answer:
        judge.setup_error("the atomic batch got no answer")
    return answer[0], reads


def _judge_rolled_back(
    ctx: Context,
    judge: Judge,
    what: str,
    resp: Response,
    reads: list[Read],
    seen: Callable[[Read], bool],
    read: Callable[[int], Read],
) -> None:
    env = ctx.read_batch(judge, resp)
    failed = part_status(env, 2) if len(env.parts) > 2 else None
    if failed is None or failed < 400:
        judge.setup_error(f"{what}: the atomic batch's last part answered {failed}, not a failure")
    leaks = [r for r in reads if seen(r)]
    # MB-PROC-15: "MUST NOT let any other request, standalone or a part of another batch,
    # observe ... any effect of an atomic batch that does not commit".
    judge.expect_true(
        f"{what}: reads while the batch ran",
        not leaks,
        f"{len(reads)} reads, {len(leaks)} saw the write later rolled back "
        f"(first {leaks[0][0]}: {leaks[0][1]})"
        if leaks
        else f"{len(reads)} reads, none saw the write",
        "no read sees the write of an atomic batch that rolls back",
        "MB-PROC-15",
    )
    # Once the batch is answered its rollback is done. MB-PROC-8: "MUST undo the effects of
    # every part that ran"; MB-PROC-15: no other request may observe "any effect of an atomic
    # batch that does not commit". A write still seen after the answer breaks both; the read is
    # made alone (n = 0), as the first read during the batch was.
    later = read(0)
    judge.expect_true(
        f"{what}: a read after the answer",
        not seen(later),
        f"{later[0]}: {later[1]}, the write is still there"
        if seen(later)
        else f"{later[0]}: {later[1]}, the write undone",
        "the write undone once the batch that rolled back is answered",
        "MB-PROC-8",
    )


@checker(
    "atomic-rollback-never-seen",
    ("MB-PROC-15",),
    "While an atomic batch writes a member (PUT, DELETE, POST), waits, then fails and rolls back, no standalone GET, GET in another batch or listing of the sandbox sees the write, during the batch or after its answer.",
    profile="atomic",
    state=State.WRITES_IN_SANDBOX,
    tier="standard",
)
def rollback_never_seen(ctx: Context, judge: Judge) -> None:
    coll, wait, fail = held_rollback(ctx, judge, DELAY_MS)
    old = f"mb-suite-old-{secrets.token_hex(6)}"
    new = f"mb-suite-new-{secrets.token_hex(6)}"
    rewritten, deleted, before = member_pair(ctx, judge, coll, old)
    tag = before.get("ETag")
    if ctx.target.sandbox_reads_back or tag is not None:

        def sees_new(r: Read) -> bool:
            if r[1] != 200:
                return False
            if ctx.target.sandbox_reads_back:
                return new.encode() in r[3]
            return r[2] != tag

        put = SubRequest("PUT", rewritten, JSON_FIELDS, marked_member(ctx, judge, new))
        resp, reads = _reads_during(
            ctx, judge, _alternating(ctx, judge, rewritten), [put, wait, fail]
        )
        _judge_rolled_back(
            ctx,
            judge,
            f"PUT {rewritten}",
            resp,
            reads,
            sees_new,
            _alternating(ctx, judge, rewritten),
        )
    else:
        judge.note("the sandbox neither reads back nor gives ETags: the PUT batch is not sent")
    resp, reads = _reads_during(
        ctx, judge, _alternating(ctx, judge, deleted), [SubRequest("DELETE", deleted), wait, fail]
    )
    # MB-TEST-3: "a `DELETE` of an existing member ... after which a `GET` of it answers 404
    # or 410": a read that answers so has seen the delete.
    _judge_rolled_back(
        ctx,
        judge,
        f"DELETE {deleted}",
        resp,
        reads,
        lambda r: r[1] in (404, 410),
        _alternating(ctx, judge, deleted),
    )
    listing = ctx.send(judge, ctx.raw_request("GET", coll, LISTING))
    retrieved = listing.status == 204 or (
        listing.status == 200 and listing.media_type == "multipart/mixed"
    )
    if not retrieved:
        judge.note(f"GET {coll} is no collection retrieval: the POST batch is not sent")
        return
    created = f"mb-suite-created-{secrets.token_hex(6)}"
    post = SubRequest("POST", coll, JSON_FIELDS, marked_member(ctx, judge, created))
    resp, reads = _reads_during(
        ctx, judge, lambda _: _listing(ctx, judge, coll), [post, wait, fail]
    )
    # A listing whose parts carry the members (MB-METHOD-4) shows the new member's document.
    _judge_rolled_back(
        ctx,
        judge,
        f"POST {coll}",
        resp,
        reads,
        lambda r: r[1] == 200 and created.encode() in r[3],
        lambda _: _listing(ctx, judge, coll),
    )
