"""Conditional POST parts compare with the representation their Accept selects (spec 7.6).

Theory of operation: MB-PROC-9 holds a part's conditional fields to "the evaluation ... RFC 9110
§13 defines", which compares a condition with the selected representation's validators, and
RFC 9110 §3.2 defines that representation for every method: "the current representation ...
that would have been selected in a successful response if the same request had used the method
GET and excluded any conditional header fields". A collection with several representations (its
collection retrieval under `Accept: multipart/mixed`, a listing otherwise) has one tag for each,
and spec 7.6 says so of a POST to it: the part's `Accept` decides which tag its `If-Match` or
`If-None-Match` compares with.

What each `Accept` selects, and the tag of each, is learnt from the same server just before each
POST (a GET of the sandbox collection with that `Accept` alone), since every POST adds a member
and changes the tags. Where the collection shows fewer than two representations with distinct
strong tags the check is not applicable. For each ordered pair of representations, a POST part
with the first one's `Accept` and:

- `If-Match` naming the first one's tag creates a member (201): the condition is true;
- `If-Match` naming the second one's tag is 412: no current tag of the selected representation
  matches (RFC 9110 §13.1.1);
- `If-None-Match` naming the first one's tag is 412 (RFC 9110 §13.1.2: false when it matches);
- `If-None-Match` naming the second one's tag creates a member (201).

Each POST goes in a batch of its own, in multipart, whose answer's Location names the member
for the runner to delete (MB-TEST-3).
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.requests import new_member
from mixbatch_conformance.checks._shared.sandbox_marks import marked_post
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

#: The Accept values whose selections are compared: the collection retrieval and a listing.
ACCEPTS = ("multipart/mixed", "application/json")


def _selected(ctx: Context, judge: Judge, coll: str, accept: str) -> tuple[str, str] | None:
    """(media type, strong ETag) a GET of `coll` with `accept` answers, None when it answers
    other than 200 with a strong tag."""
    resp = ctx.send(judge, ctx.raw_request("GET", coll, [("Accept", accept)]))
    tag = (resp.get("ETag") or "").strip(" \t")
    if resp.status != 200 or not tag.startswith('"'):
        return None
    return resp.media_type, tag


@checker(
    "conditional-post-compares-selected-representation",
    ("MB-PROC-9",),
    "A POST part to the sandbox collection compares If-Match and If-None-Match with the tag of the representation its Accept selects (the collection retrieval's aggregate tag under multipart/mixed, the listing's under application/json), learnt from a GET with the same Accept just before: the selected tag in If-Match creates a member and the other's is 412, and the other way round for If-None-Match.",
    profile="conditional",
    tier="standard",
    state=State.WRITES_IN_SANDBOX,
)
def conditional_post_compares_selected(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    new_member(ctx, judge)
    shown = {a: _selected(ctx, judge, coll, a) for a in ACCEPTS}
    tagged = [a for a, s in shown.items() if s is not None]
    medias = {s[0] for s in shown.values() if s is not None}
    if len(tagged) < 2 or len(medias) < 2:
        judge.not_applicable(
            f"GET {coll} shows fewer than two representations with strong tags: {shown}"
        )
    judged = 0
    for accept in tagged:
        for other in tagged:
            if other == accept:
                continue
            for field, which, want in (
                ("If-Match", "selected", 201),
                ("If-Match", "other", 412),
                ("If-None-Match", "selected", 412),
                ("If-None-Match", "other", 201),
            ):
                mine, theirs = (_selected(ctx, judge, coll, a) for a in (accept, other))
                if mine is None or theirs is None or mine[1] == theirs[1] or mine[0] == theirs[0]:
                    judge.note(f"{accept} and {other}: no two distinct tags now; not judged")
                    continue
                tag = mine[1] if which == "selected" else theirs[1]
                _, post = marked_post(ctx, judge, coll)
                sub = SubRequest(
                    "POST", coll, (*post.headers, ("Accept", accept), (field, tag)), post.body
                )
                env = expect_processed(ctx, judge, ctx.batch(judge, [sub]), [sub.content_id])
                # MB-PROC-9 with RFC 9110 §3.2: the selected representation is the one a GET
                # with the same fields selects, here {mine[0]}; §13.1.1 (If-Match: true when a
                # tag matches it, strongly) and §13.1.2 (If-None-Match: false when one does).
                judge.expect(
                    f"POST part with Accept: {accept} ({mine[0]} selected) and {field} naming "
                    f"the {which} representation's tag {tag}",
                    part_status(env, 0),
                    {want},
                    "MB-PROC-9",
                )
                judged += 1
    if not judged:
        judge.not_applicable("the collection's tags never differed when a POST was sent")
