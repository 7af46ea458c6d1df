"""The status of each sandbox write MB-TEST-3 names, on both sides of "exists" (spec 14.4).

Theory of operation: MB-TEST-3 fixes a declared sandbox's answer to each write by whether the
member it names exists: "a `PUT` to an existing member with 200 or 204; a `PUT` to a member that
does not exist with 201 (it created the member) or with 404 or 405 (it refused); a `DELETE` of an
existing member with 200 or 204, after which a `GET` of it answers 404 or 410; and a `DELETE` of
a member that does not exist with 404 or 410". A sandbox that applies one side's answer to the
other (a DELETE answered 204 whether or not the member was there, as an idempotent store does; a
PUT answered 201 though it replaced a member; a write answered 202, or a PUT that creates
answered 200) breaks it at the step next to the boundary. The other checks meet these writes
only on the way to something else, or as a random state machine draws them.

`sandbox-write-answers` walks one member across the boundary and back, alone and then as the
parts of one batch (MB-TEST-3: "a check accepts both, in a batch and alone alike"): a member
created by POST, replaced by PUT, read, deleted, read again and deleted again; then a PUT and a
DELETE naming ids no member has had (1 to 64 characters of `A-Z a-z 0-9 - _`, which MB-TEST-3
lets a check choose). Each answer is held to the statuses MB-TEST-3 names for its side. Every
member the check creates is deleted before it ends.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

from mixbatch_conformance.checks._shared.collections import created_path
from mixbatch_conformance.checks._shared.sandbox_documents import json_write, tagged
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

#: MB-TEST-3: "a `PUT` to an existing member with 200 or 204".
REPLACED = frozenset({200, 204})
#: MB-TEST-3: "a `PUT` to a member that does not exist with 201 (it created the member) or with
#: 404 or 405 (it refused)".
PUT_ABSENT = frozenset({201, 404, 405})
#: MB-TEST-3: "a `DELETE` of an existing member with 200 or 204".
DELETED = frozenset({200, 204})
#: MB-TEST-3: "a `GET` of a member with 200".
READ = frozenset({200})
#: MB-TEST-3: "after which a `GET` of it answers 404 or 410"; "a `DELETE` of a member that does
#: not exist with 404 or 410".
GONE = frozenset({404, 410})


def _fresh(coll: str) -> str:
    """A member path no member has had: an id of 29 letters, digits and `-` (MB-TEST-3: "1 to 64
    characters of `A-Z a-z 0-9 - _`"), drawn at random so that no other client's is met."""
    return f"{coll.rstrip('/')}/mb-suite-never-{secrets.token_hex(7)}"


def _create(ctx: Context, judge: Judge, coll: str, doc: dict[str, Any]) -> str:
    """POST `doc` alone; the member its 201 names (MB-TEST-3: "by creating a new member and
    answering 201 with a `Location` field naming it")."""
    made = ctx.alone(judge, json_write("POST", coll, doc))
    judge.require("POST of sandbox.member alone", made.status, {201}, "MB-TEST-3")
    loc = created_path(ctx, coll, made.get("Location"))
    judge.require_true(
        "Location of the POST's 201",
        loc is not None,
        repr(made.get("Location")),
        "a Location naming the member created",
        "MB-TEST-3",
    )
    assert loc is not None
    return loc


def _sequence(coll: str, loc: str, member: dict[str, Any], tag: str) -> list[SubRequest]:
    """The writes and reads across the boundary: `loc` exists when the first one is sent."""
    return [
        json_write("PUT", loc, tagged(member, f"{tag} replaced")),
        SubRequest("GET", loc),
        SubRequest("DELETE", loc),
        SubRequest("GET", loc),
        SubRequest("DELETE", loc),
        json_write("PUT", _fresh(coll), tagged(member, f"{tag} put to an absent id")),
        SubRequest("DELETE", _fresh(coll)),
    ]


#: What each request of `_sequence` is, and the statuses MB-TEST-3 gives it.
ANSWERS: tuple[tuple[str, frozenset[int]], ...] = (
    ("PUT to the existing member", REPLACED),
    ("GET of the replaced member", READ),
    ("DELETE of the existing member", DELETED),
    ("GET of the deleted member", GONE),
    ("DELETE of the deleted member", GONE),
    ("PUT to an id no member has had", PUT_ABSENT),
    ("DELETE of an id no member has had", GONE),
)


@checker(
    "sandbox-write-answers",
    ("MB-TEST-3",),
    "Alone and as the parts of one batch, a sandbox member created by POST is replaced by PUT with 200 or 204, read with 200, deleted with 200 or 204, then read and deleted again with 404 or 410; a PUT naming an id no member has had is 201, 404 or 405, and a DELETE of one is 404 or 410.",
    state=State.WRITES_IN_SANDBOX,
)
def sandbox_write_answers(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    member = ctx.target.sandbox_member
    if member is None:
        judge.not_applicable("the target declares no sandbox.member document to write")
    created: list[str] = []
    try:
        loc = _create(ctx, judge, coll, tagged(member, "answers alone"))
        created.append(loc)
        alone = [
            (sub, ctx.alone(judge, sub).status) for sub in _sequence(coll, loc, member, "alone")
        ]
        _judge(judge, "alone", alone, created)
        loc = _create(ctx, judge, coll, tagged(member, "answers in a batch"))
        created.append(loc)
        subs = _sequence(coll, loc, member, "in a batch")
        env = expect_processed(ctx, judge, ctx.batch(judge, subs), [s.content_id for s in subs])
        _judge(judge, "in a batch", [(s, part_status(env, i)) for i, s in enumerate(subs)], created)
    finally:
        for path in created:
            ctx.alone(judge, SubRequest("DELETE", path))


def _judge(
    judge: Judge,
    where: str,
    answers: Sequence[tuple[SubRequest, int | None]],
    created: list[str],
) -> None:
    """Each answer against the statuses MB-TEST-3 names; `created` keeps the members left."""
    for (what, allowed), (sub, status) in zip(ANSWERS, answers, strict=True):
        # MB-TEST-3, for the side of "exists" the member is on when the request runs (the
        # batch's parts in order, MB-PROC-2).
        judge.expect(f"{what} ({sub.method} {sub.target}) {where}", status, allowed, "MB-TEST-3")
        if sub.method == "PUT" and status == 201:
            created.append(sub.target)
        if sub.method == "DELETE" and status in DELETED and sub.target in created:
            created.remove(sub.target)
