"""An atomic rollback undoes every kind of write (spec 7.5, MB-PROC-8), judged after the answer.

Theory of operation: MB-PROC-8 says that in an atomic batch with a failing part the server
"MUST undo the effects of every part that ran". A server that undoes a rollback by keeping
copies of what it will change can copy some kinds of change and not others: it restores a
member a part created but not one a part rewrote in place, or a deleted member but not a
rewritten one. The check sends one atomic batch that makes every kind of sandbox write, then
fails, and afterwards reads each member alone:

- a PUT that rewrites a member created before the batch (it must read as before);
- a POST that creates a member (its Location, if named, must answer 404 or 410);
- a DELETE of a member created before the batch (it must still be there, as before);
- two PUTs to one member, then a PUT and a GET of another (each must read as before);
- a PUT to a member that did not exist, last, just before the failing GET of `not_found`: a
  sandbox that refuses it (MB-TEST-3 allows 404 or 405) makes it the failing part, and the
  member is absent either way.

Whatever the parts were answered, the batch fails (its last part is the `not_found` resource,
MB-TEST-1), so every part that ran is undone and every later one skipped: the sandbox must be
as it was. A sandbox that does not read back is judged by status only (there or not). Every
member the check created is deleted at the end (MB-TEST-3).
"""

from __future__ import annotations

import secrets

from mixbatch_conformance.checks._shared.collections import created_path
from mixbatch_conformance.checks._shared.sandbox_marks import created_member, marked_member
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

ATOMIC = (("Batch-Mode", "atomic"),)
JSON_FIELDS = (("Content-Type", "application/json"),)
#: Statuses of a member that is not there (MB-TEST-3: "after which a `GET` of it answers 404 or
#: 410").
GONE = {404, 410}


@checker(
    "atomic-rollback-every-write-kind",
    ("MB-PROC-8",),
    "After an atomic batch that rewrites an existing member, creates one by POST and one by PUT, deletes one, writes one member twice and writes then reads another fails, each member reads as it did before the batch.",
    profile="atomic",
    state=State.WRITES_IN_SANDBOX,
)
def rollback_every_write_kind(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    fail = SubRequest("GET", ctx.path(ctx.resource(judge, "not_found")))
    nonce = secrets.token_hex(6)
    old, new = f"mb-suite-old-{nonce}", f"mb-suite-new-{nonce}"
    made: list[str] = []
    try:
        # Members that exist before the batch, each created alone.
        for _ in range(4):
            made.append(created_member(ctx, judge, coll, old))
        rewritten, deleted, twice, then_read = made
        absent = f"{coll.rstrip('/')}/mb-suite-absent-{nonce}"
        if ctx.alone(judge, SubRequest("GET", absent)).status not in GONE:
            judge.setup_error(f"GET {absent} alone found a member the check did not create")

        def put(path: str, mark: str) -> SubRequest:
            return SubRequest("PUT", path, JSON_FIELDS, marked_member(ctx, judge, mark))

        created_mark = f"mb-suite-created-{nonce}"
        subs = [
            put(rewritten, new),
            SubRequest("POST", coll, JSON_FIELDS, marked_member(ctx, judge, created_mark)),
            SubRequest("DELETE", deleted),
            put(twice, f"{new}-1"),
            put(twice, f"{new}-2"),
            put(then_read, new),
            SubRequest("GET", then_read),
            put(absent, new),
            fail,
        ]
        env = ctx.read_batch(judge, ctx.batch(judge, subs, headers=ATOMIC))
        post = env.parts[1] if len(env.parts) > 1 else None
        location = post.get("Location") if post is not None else None
        # MB-RESP-7 (RFC 9110 §10.2.2): resolved against the POST part's target.
        created = created_path(ctx, coll, location)
        if created:
            made.append(created)
        made.append(absent)
        # MB-PROC-8: "MUST undo the effects of every part that ran, the failing part included":
        # the batch fails whatever its parts were answered, so the sandbox is as it was.
        was = [
            ("rewritten by a PUT", rewritten, True),
            ("deleted", deleted, True),
            ("written twice", twice, True),
            ("written then read", then_read, True),
            ("created by a PUT", absent, False),
        ]
        if created:
            was.append(("created by a POST", created, False))
        for what, path, existed in was:
            after = ctx.alone(judge, SubRequest("GET", path))
            judge.expect(
                f"GET {path} ({what} in the rolled-back batch) after the answer",
                after.status,
                {200} if existed else GONE,
                "MB-PROC-8",
            )
            if existed and after.status == 200 and ctx.target.sandbox_reads_back:
                # MB-TEST-4: a sandbox that reads back answers "what was last written to it",
                # and after the rollback that is the document written before the batch.
                judge.expect_true(
                    f"{path} ({what} in the rolled-back batch) reads as before",
                    old.encode() in after.body and new.encode() not in after.body,
                    repr(after.body[:160]),
                    f"the document marked {old} written before the batch",
                    "MB-PROC-8",
                )
    finally:
        for path in dict.fromkeys(made):
            ctx.alone(judge, SubRequest("DELETE", path))
