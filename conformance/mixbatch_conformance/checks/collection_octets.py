"""A strong aggregate ETag promises the same octets at every retrieval (spec 4.2, MB-METHOD-7).

Theory of operation: MB-METHOD-7 makes the aggregate `ETag` of a collection retrieval weak
"unless every octet of the representation, boundary included, is a function of the collection's
state". Anything in the representation that follows the clock (a `Date` or an `Age` in each
part, a boundary drawn from the time) changes its octets while the collection stays the same;
two retrievals taken within one second do not show that, so the check takes the second one
after the next whole second of the suite's clock, and a third with each other spelling of the
Accept that asks for the same representation (spec 4.2: a retrieval is asked for with any
Accept that admits `multipart/mixed`). Whenever two answers carry the same strong tag, their
content must be the same octets (RFC 9110 §8.8.1: a strong validator changes "whenever the
representation data changes"). A weak or absent tag, or a tag that changed because another
client wrote to the collection in between, is not judged; the collection is only read.

`sandbox-collection-strong-etag-same-octets` judges the same promise across a write that
leaves the content as it was: where the target declares a sandbox whose multipart GET is
answered as a collection retrieval with a strong tag, the check creates its own member,
retrieves the collection, waits past the next whole second, rewrites its member with the
same document (a PUT of the same octets) and retrieves it again. A server that hashes its tag
from the members' contents alone while each part carries the member's `Last-Modified` keeps
the tag and changes the octets. Other clients may write to the sandbox between the two
retrievals, so a changed tag is never a fault; the check touches only the member it created
(spec 14.4, MB-TEST-3) and deletes it at the end.

`sandbox-collection-strong-etag-across-rollback` judges it across an atomic rollback, which
must "undo the effects of every part that ran" (MB-PROC-8): an atomic batch POSTs the target's
sandbox member document, retrieves the sandbox collection in a part (the state with the new
member), then fails on `not_found`. Retrievals before the batch, after it and once more must
each, where two carry the same strong tag, carry the same octets, and so must the rolled-back
part's retrieval beside each of them. A server that keeps its aggregate validator up to date on
every write and restores the members but not the validator on rollback answers the collection,
back as it was, under the tag of the state the rollback undid.

The wait for the next second costs the first two checks half a second on average, a second at
most, so they run in the standard tier.
"""

from __future__ import annotations

import itertools
import json
import time

from mixbatch_conformance.checks._shared.requests import new_member
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.validator import Part
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

#: Accept values that ask for the multipart retrieval (spec 4.2), the plain one first.
RETRIEVAL_ACCEPTS = ("multipart/mixed", "Multipart/Mixed", "multipart/*", "multipart/mixed;q=0.7")
#: Seconds past the next whole second of the suite's clock before the later retrievals go, so
#: that a timestamp of one-second resolution taken by the server has moved on.
PAST_THE_SECOND_S = 0.05


def _retrieve(ctx: Context, judge: Judge, coll: str, accept: str) -> Response:
    return ctx.send(judge, ctx.raw_request("GET", coll, [("Accept", accept)]))


@checker(
    "collection-strong-etag-same-octets",
    ("MB-METHOD-7",),
    "Retrievals of an unchanged collection a second apart, and under each Accept that asks for multipart/mixed, that carry the same strong aggregate ETag carry the same octets, boundary included.",
    profile="collection-get",
    state=State.READ_ONLY,
    tier="standard",
)
def strong_etag_same_octets(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "collection"))
    first = _retrieve(ctx, judge, coll, RETRIEVAL_ACCEPTS[0])
    etag = (first.get("ETag") or "").strip(" \t")
    if first.status != 200 or first.media_type != "multipart/mixed":
        judge.setup_error(f"GET {coll} answered {first.status} {first.media_type}")
    if not etag or etag.startswith("W/"):
        judge.not_applicable(f"the aggregate ETag {etag!r} is not strong: it promises no octets")
    _wait_past_the_second()
    for accept in RETRIEVAL_ACCEPTS:
        later = _retrieve(ctx, judge, coll, accept)
        if later.media_type != "multipart/mixed" or (later.get("ETag") or "").strip(" \t") != etag:
            judge.note(f"Accept: {accept}: {later.status} {later.media_type}, not the same tag")
            continue
        # MB-METHOD-7: "a weak validator (`W/"..."`) unless every octet of the representation,
        # boundary included, is a function of the collection's state".
        judge.expect_true(
            f"Accept: {accept}, a second later, under the strong tag {etag}",
            later.body == first.body,
            "the same octets"
            if later.body == first.body
            else f"different octets from offset {_first_difference(first.body, later.body)}",
            "the same octets as the first retrieval, boundary included",
            "MB-METHOD-7",
        )


def _wait_past_the_second() -> None:
    now = time.time()
    time.sleep(int(now) + 1 - now + PAST_THE_SECOND_S)


def _strong_tag(resp: Response) -> str | None:
    """The strong ETag of a 200 multipart/mixed answer, else None."""
    etag = (resp.get("ETag") or "").strip(" \t")
    if resp.status != 200 or resp.media_type != "multipart/mixed":
        return None
    return etag if etag and not etag.startswith("W/") else None


@checker(
    "sandbox-collection-strong-etag-same-octets",
    ("MB-METHOD-7",),
    "Two retrievals of the sandbox collection around a same-document rewrite, a second later, of a member the suite created, that carry the same strong aggregate ETag carry the same octets.",
    profile="collection-get",
    state=State.WRITES_IN_SANDBOX,
    tier="standard",
)
def sandbox_strong_etag_same_octets(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    path, doc = new_member(ctx, judge)
    try:
        first = _retrieve(ctx, judge, coll, RETRIEVAL_ACCEPTS[0])
        etag = _strong_tag(first)
        if etag is None:
            judge.not_applicable(
                f"GET {coll} with Accept: multipart/mixed answered {first.status} "
                f"{first.media_type!r} with ETag {first.get('ETag')!r}: no collection "
                "retrieval under a strong tag"
            )
        _wait_past_the_second()
        put = ctx.alone(
            judge, SubRequest("PUT", path, (("Content-Type", "application/json"),), doc)
        )
        if put.status not in (200, 204):
            judge.setup_error(f"PUT {path} of the same document alone answered {put.status}")
        later = _retrieve(ctx, judge, coll, RETRIEVAL_ACCEPTS[0])
        again = _retrieve(ctx, judge, coll, RETRIEVAL_ACCEPTS[0])
        answers = (("before the rewrite", first), ("after it", later), ("once more", again))
        for (was, one), (now, other) in itertools.combinations(answers, 2):
            _judge_same_tag_same_octets(judge, f"{was} and {now}", one, other)
    finally:
        ctx.alone(judge, SubRequest("DELETE", path))


def _judge_same_tag_same_octets(judge: Judge, what: str, one: Response, other: Response) -> None:
    """Two answers under the same strong tag carry the same octets; a changed tag (the rewrite,
    or another client's write to the sandbox) promises nothing and is never a fault."""
    tag = _strong_tag(one)
    same_tag = tag is not None and _strong_tag(other) == tag
    same = one.body == other.body
    if not same_tag:
        judge.note(f"{what}: tags {one.get('ETag')!r} and {other.get('ETag')!r}, not compared")
    # MB-METHOD-7: "a weak validator (`W/"..."`) unless every octet of the representation,
    # boundary included, is a function of the collection's state".
    judge.expect_true(
        f"retrievals {what}, under the strong tags {tag} and {_strong_tag(other)}",
        not same_tag or same,
        "the same octets"
        if same
        else f"different octets from offset {_first_difference(one.body, other.body)}"
        if same_tag
        else "a different tag: nothing promised",
        "the same octets whenever the strong tag is the same, boundary included",
        "MB-METHOD-7",
    )


@checker(
    "sandbox-collection-strong-etag-across-rollback",
    ("MB-METHOD-7",),
    "Retrievals of the sandbox collection before and after an atomic batch that POSTs a member, retrieves the collection in a part and fails, and that part's retrieval, carry the same octets wherever two carry the same strong aggregate ETag.",
    profile="atomic",
    state=State.WRITES_IN_SANDBOX,
)
def sandbox_strong_etag_across_rollback(ctx: Context, judge: Judge) -> None:
    if not ctx.target.claims("collection-get"):
        judge.not_applicable("the target does not declare the collection-get profile")
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    nf = ctx.path(ctx.resource(judge, "not_found"))
    member = ctx.target.sandbox_member
    if member is None:
        judge.not_applicable("the target declares no sandbox.member document to write")
    doc = json.dumps(member).encode()
    before = _retrieve(ctx, judge, coll, RETRIEVAL_ACCEPTS[0])
    if _strong_tag(before) is None:
        judge.not_applicable(
            f"GET {coll} with Accept: multipart/mixed answered {before.status} "
            f"{before.media_type!r} with ETag {before.get('ETag')!r}: no collection "
            "retrieval under a strong tag"
        )
    subs = [
        SubRequest("POST", coll, (("Content-Type", "application/json"),), doc),
        SubRequest("GET", coll, (("Accept", "multipart/mixed"),)),
        SubRequest("GET", nf),
    ]
    resp = ctx.batch(judge, subs, headers=(("Batch-Mode", "atomic"),))
    env = expect_processed(ctx, judge, resp, [s.content_id for s in subs])
    if part_status(env, 2) != 404 or part_status(env, 0) != 201:
        judge.setup_error(
            f"the atomic batch's parts answered {[part_status(env, i) for i in range(3)]}, "
            "not a 201 for the POST and a 404 for not_found"
        )
    after = _retrieve(ctx, judge, coll, RETRIEVAL_ACCEPTS[0])
    again = _retrieve(ctx, judge, coll, RETRIEVAL_ACCEPTS[0])
    inside = _retrieval_of(env.parts[1]) if part_status(env, 1) == 200 else None
    answers = [("before the batch", before), ("after it", after), ("once more", again)]
    for (was, one), (now, other) in itertools.combinations(answers, 2):
        _judge_same_tag_same_octets(judge, f"{was} and {now}", one, other)
    if inside is None:
        judge.note(f"the part retrieving {coll} answered {part_status(env, 1)}: not compared")
        return
    tag, body = inside
    for now, other in answers:
        same_tag = tag is not None and _strong_tag(other) == tag
        # MB-METHOD-7: "a weak validator (`W/"..."`) unless every octet of the representation,
        # boundary included, is a function of the collection's state"; MB-PROC-8 undoes the
        # member the batch created, so a tag it answered with names that state alone.
        judge.expect_true(
            f"the rolled-back part's retrieval and the one {now}, under the strong tags "
            f"{tag} and {_strong_tag(other)}",
            not same_tag or body == other.body,
            "the same octets"
            if body == other.body
            else f"different octets from offset {_first_difference(body, other.body)}"
            if same_tag
            else "a different tag: nothing promised",
            "the same octets whenever the strong tag is the same, boundary included",
            "MB-METHOD-7",
        )


def _retrieval_of(part: Part) -> tuple[str | None, bytes]:
    """The strong ETag (None unless a multipart/mixed retrieval's) and content of a part that
    answered a collection retrieval."""
    etag = (part.get("ETag") or "").strip(" \t")
    media = (part.get("Content-Type") or "").split(";")[0].strip(" \t").lower()
    strong = etag if etag and not etag.startswith("W/") and media == "multipart/mixed" else None
    return strong, part.body


def _first_difference(a: bytes, b: bytes) -> int:
    return next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )
