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
POST (two GETs of the sandbox collection with that `Accept` alone, whose tags must agree: a
listing whose octets change from one request to the next has a strong tag that changes with
them, RFC 9110 §8.8.1, and names no tag a later request can match), since every POST adds a
member and changes the tags. Where the collection shows fewer than two representations with
distinct strong tags the pairs below are not judged. How a POST with each `Accept` is answered
without a condition is learnt first, in a part of its own: RFC 9110 §13.2.1 has a server "ignore
all received preconditions if its response to the same request without those conditions ...
would have been a status code other than a 2xx ... or 412", so an `Accept` whose POST is not
answered 2xx (a 406 from a handler that writes one media type) is not judged. For each ordered
pair of representations, a POST part with the first one's `Accept` and:

- `If-Match` naming the first one's tag creates a member, answered as the POST without it: the
  condition is true;
- `If-Match` naming the second one's tag is 412: no current tag of the selected representation
  matches (RFC 9110 §13.1.1);
- `If-None-Match` naming the first one's tag is 412 (RFC 9110 §13.1.2: false when it matches);
- `If-None-Match` naming the second one's tag creates a member, answered as the POST without
  it.

First, and whatever representations the collection shows, each `Accept` (no `Accept` among
them, which leaves the choice to the server) is judged on its own: a POST part naming the tag a
GET with that `Accept` shows just before is answered as without a condition under `If-Match`
(where the tag is strong: §13.1.1 compares strongly) and 412 under `If-None-Match` (weak or
strong: §13.1.2 compares weakly). A collection that shows no steady tag is not applicable.

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

#: The POST's own field a GET learning its selected representation carries too.
JSON = (("Content-Type", "application/json"),)
#: The Accept values whose selections are compared: the collection retrieval and a listing.
ACCEPTS = ("multipart/mixed", "application/json")


def _selected(
    ctx: Context,
    judge: Judge,
    coll: str,
    accept: str | None,
    *,
    weak: bool = False,
    also: tuple[tuple[str, str], ...] = (),
) -> tuple[str, str] | None:
    """(media type, ETag) two GETs of `coll` with `accept` (no Accept when None) and the fields
    `also` answer alike; None when either answers other than 200 with a strong tag (or, with
    `weak`, any tag) or the two differ."""
    seen = set()
    fields = [("Accept", accept), *also] if accept is not None else list(also)
    for _ in range(2):
        resp = ctx.send(judge, ctx.raw_request("GET", coll, fields))
        tag = (resp.get("ETag") or "").strip(" \t")
        if resp.status != 200 or not tag.startswith('"' if not weak else ('"', 'W/"')):
            return None
        seen.add((resp.media_type, tag))
    return seen.pop() if len(seen) == 1 else None


def _post_part(
    ctx: Context, judge: Judge, coll: str, fields: tuple[tuple[str, str], ...]
) -> int | None:
    """The status of a marked POST of sandbox.member to `coll` with `fields`, sent as the one
    part of a multipart batch (whose answer names the member for the runner to delete)."""
    _, post = marked_post(ctx, judge, coll)
    sub = SubRequest("POST", coll, (*post.headers, *fields), post.body)
    env = expect_processed(ctx, judge, ctx.batch(judge, [sub]), [sub.content_id])
    return part_status(env, 0)


def _own_tags(ctx: Context, judge: Judge, coll: str) -> int:
    """For each Accept (none among them), a POST part naming the tag a GET with that Accept
    shows just before: If-Match with a strong one leaves it answered as without a condition,
    If-None-Match with any is 412. Returns the cases judged."""
    judged = 0
    for accept in (*ACCEPTS, None):
        shown = "no Accept" if accept is None else f"Accept: {accept}"
        head = (("Accept", accept),) if accept is not None else ()
        plain = _post_part(ctx, judge, coll, head)
        if plain is None or not 200 <= plain < 300:
            judge.note(f"a POST part with {shown} answered {plain}: not judged")
            continue
        for field, want in (("If-Match", plain), ("If-None-Match", 412)):
            # RFC 9110 §3.2: the representation "selected ... if the same request had used the
            # method GET and excluded any conditional header fields": the POST's Content-Type
            # goes with it, since a server may let it decide where Accept leaves the choice.
            now = _selected(ctx, judge, coll, accept, weak=field == "If-None-Match", also=JSON)
            if now is None:
                judge.note(f"GET {coll} with {shown}: no steady tag for {field}")
                continue
            status = _post_part(ctx, judge, coll, (*head, (field, now[1])))
            # MB-PROC-9 with RFC 9110 §3.2 and §13.1.1/§13.1.2: the tag a GET with the same
            # fields shows is the selected representation's current one; If-Match naming it
            # (strongly) is true and leaves the POST as without it, If-None-Match naming it
            # (weakly) is false: 412.
            judge.expect(
                f"POST part with {shown} and {field} naming the tag a GET with it shows, {now[1]}",
                status,
                {want},
                "MB-PROC-9",
            )
            judged += 1
    return judged


@checker(
    "conditional-post-compares-selected-representation",
    ("MB-PROC-9",),
    "A POST part to the sandbox collection, with each Accept and with none, compares If-Match and If-None-Match with the tag a GET with the same Accept shows (If-Match naming it answered as without it, If-None-Match 412), and with two representations, with the tag of the representation its Accept selects (the collection retrieval's aggregate tag under multipart/mixed, the listing's under application/json), learnt from a GET with the same Accept just before: the selected tag in If-Match leaves the POST answered as without a condition and the other's is 412, and the other way round for If-None-Match.",
    profile="conditional",
    tier="standard",
    state=State.WRITES_IN_SANDBOX,
)
def conditional_post_compares_selected(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    new_member(ctx, judge)
    judged = _own_tags(ctx, judge, coll)
    shown = {a: _selected(ctx, judge, coll, a) for a in ACCEPTS}
    tagged = [a for a, s in shown.items() if s is not None]
    medias = {s[0] for s in shown.values() if s is not None}
    if len(tagged) < 2 or len(medias) < 2:
        judge.note(f"GET {coll} shows fewer than two representations with strong tags: {shown}")
        tagged = []
    for accept in tagged:
        plain = _post_part(ctx, judge, coll, (("Accept", accept),))
        if plain is None or not 200 <= plain < 300:
            judge.note(f"a POST part with Accept: {accept} answered {plain}: not judged")
            continue
        for other in tagged:
            if other == accept:
                continue
            for field, which, want in (
                ("If-Match", "selected", plain),
                ("If-Match", "other", 412),
                ("If-None-Match", "selected", 412),
                ("If-None-Match", "other", plain),
            ):
                mine, theirs = (_selected(ctx, judge, coll, a) for a in (accept, other))
                if mine is None or theirs is None or mine[1] == theirs[1] or mine[0] == theirs[0]:
                    judge.note(f"{accept} and {other}: no two distinct steady tags now")
                    continue
                tag = mine[1] if which == "selected" else theirs[1]
                status = _post_part(ctx, judge, coll, (("Accept", accept), (field, tag)))
                # MB-PROC-9 with RFC 9110 §3.2: the selected representation is the one a GET
                # with the same fields selects; §13.1.1 (If-Match: true when a tag matches it,
                # strongly) and §13.1.2 (If-None-Match: false when one does). A true condition
                # leaves the POST answered as without it.
                judge.expect(
                    f"POST part with Accept: {accept} ({mine[0]} selected) and {field} naming "
                    f"the {which} representation's tag {tag}",
                    status,
                    {want},
                    "MB-PROC-9",
                )
                judged += 1
    if not judged:
        judge.not_applicable("the collection showed no steady tag when a POST was sent")
