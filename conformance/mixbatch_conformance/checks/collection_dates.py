"""The aggregate validators and member order of a collection retrieval (spec 4.2).

Theory of operation: MB-METHOD-5 (SHOULD) asks for "an aggregate `Last-Modified` on a
collection retrieval equal to the latest `Last-Modified` among the members, when every member
has one". The members' own dates are in their parts (each part carries the member's header
fields), so the check reads them there and compares the aggregate with the latest, as dates
(RFC 9110 §5.6.7), not as strings. It retrieves the declared collection and the sandbox
collection, whatever their member counts (a sandbox often holds one member, where a rule written
for "several" first differs); when no member set has a date throughout, the check is N/A.

`aggregate-etag-follows-members` writes in the sandbox collection when the target retrieves it
as a collection: spec 4.2 says "the aggregate tag must change whenever a member is added,
removed, reordered or changed", and a strong tag promises the same octets (MB-METHOD-7), so a
member created, then replaced with new values, then deleted gives a new tag at each step, and
If-None-Match with a tag from before a step is not answered 304. With two members of its own
added, it also holds the retrieval's part order to the order the same server's JSON listing of
the collection gives (MB-METHOD-4: "in the collection's order", an order the spec leaves to the
server), where that listing names the members.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urljoin, urlsplit

from mixbatch_conformance.checks._shared.collections import created_path
from mixbatch_conformance.checks._shared.framing import judge_sender_findings
from mixbatch_conformance.checks._shared.validators import http_date_seconds
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.validator import parse_media_type, read_multipart

__all__: list[str] = []


@checker(
    "collection-last-modified",
    ("MB-METHOD-5",),
    "A retrieval of the declared or the sandbox collection whose members, one or more, all carry Last-Modified carries an aggregate Last-Modified equal to the latest of them.",
    profile="collection-get",
    state=State.READ_ONLY,
)
def collection_last_modified(ctx: Context, judge: Judge) -> None:
    judged = 0
    for role in ("collection", "sandbox_collection"):
        coll = ctx.target.resource(role)
        if coll and _judge_aggregate_date(ctx, judge, ctx.path(coll)):
            judged += 1
    if not judged:
        judge.not_applicable("no collection retrieval whose every member carries Last-Modified")


def _judge_aggregate_date(ctx: Context, judge: Judge, coll: str) -> bool:
    """Judge one retrieval of `coll`, whatever its member count; False when it has no
    multipart representation or a member without a date."""
    resp = ctx.send(judge, ctx.raw_request("GET", coll, [("Accept", "multipart/mixed")]))
    try:
        _, params = parse_media_type(resp.get("Content-Type") or "")
    except ValueError:
        params = {}
    if resp.status != 200 or "boundary" not in params:
        judge.note(f"GET {coll} answered {resp.status}; collection-get judges that")
        return False
    env = read_multipart(resp.body, params["boundary"])
    dates = [http_date_seconds(p.get("Last-Modified")) for p in env.parts]
    if not dates or any(d is None for d in dates):
        judge.note(f"GET {coll}: not every member part carries a Last-Modified field")
        return False
    latest = max(d for d in dates if d is not None)
    aggregate = resp.get("Last-Modified")
    # MB-METHOD-5: "equal to the latest `Last-Modified` among the members, when every member
    # has one", for one member as for many.
    judge.expect_true(
        f"aggregate Last-Modified of {coll} ({len(dates)} members)",
        http_date_seconds(aggregate) == latest,
        repr(aggregate),
        "the latest member Last-Modified (SHOULD)",
    )
    return True


def _scalars(doc: object) -> list[str]:
    """The strings and numbers of a JSON document, in document order, as strings."""
    if isinstance(doc, dict):
        return [s for v in doc.values() for s in _scalars(v)]
    if isinstance(doc, list):
        return [s for v in doc for s in _scalars(v)]
    if isinstance(doc, str):
        return [doc]
    if isinstance(doc, int | float) and not isinstance(doc, bool):
        return [str(doc)]
    return []


def _names(base: str, cid: str) -> set[str]:
    """What a JSON listing may call the member a part's Content-Id names: the reference, its
    resolution against the collection's URI, that URI's path, and its last segment."""
    ref = cid.strip()[1:-1]
    url = urljoin(base, ref)
    path = urlsplit(url).path
    return {n for n in (ref, url, path, path.rstrip("/").rsplit("/", 1)[-1]) if n}


def judge_listing_order(ctx: Context, judge: Judge, coll: str) -> None:
    """The parts of a collection retrieval come in the order the same server lists the
    collection's members in, where it also gives a JSON listing that names them.

    MB-METHOD-4 fixes "one part per member of the collection, in the collection's order";
    the spec does not say what that order is, so it is learnt from the same server: its JSON
    representation of the same collection, read at the same state, lists the members in the
    collection's order too. A member the listing names in no place, or in a place that names
    another member as well, is left out; with fewer than two left the order is not judged.
    """
    accept = [("Accept", "multipart/mixed")]
    retrieval = ctx.send(judge, ctx.raw_request("GET", coll, accept))
    listing = ctx.send(judge, ctx.raw_request("GET", coll, [("Accept", "application/json")]))
    try:
        _, params = parse_media_type(retrieval.get("Content-Type") or "")
        doc = json.loads(listing.body)
    except ValueError:
        judge.note(f"GET {coll}: no multipart retrieval and JSON listing to compare the order of")
        return
    if (
        retrieval.status != 200
        or listing.status != 200
        or listing.media_type == retrieval.media_type
    ):
        judge.note(f"GET {coll}: no multipart retrieval and JSON listing to compare the order of")
        return
    env = read_multipart(retrieval.body, params.get("boundary", ""))
    judge_sender_findings(judge, "collection retrieval after members were added", env)
    parts = env.parts
    scalars = _scalars(doc)
    base = f"{ctx.scheme}://{ctx.authority}{coll}"
    places = [
        {i for i, v in enumerate(scalars) if v in _names(base, p.get("Content-Id") or "<>")}
        for p in parts
    ]
    known = [
        (min(mine), n)
        for n, mine in enumerate(places)
        if mine and not any(mine & other for m, other in enumerate(places) if m != n)
    ]
    if len(known) < 2:
        judge.note(f"GET {coll}: the JSON listing names fewer than two members apart")
        return
    listed = [parts[n].get("Content-Id") for _, n in sorted(known)]
    written = [parts[n].get("Content-Id") for _, n in known]
    # MB-METHOD-4: "one part per member of the collection, in the collection's order".
    judge.expect_true(
        "member parts in the collection's order",
        listed == written,
        f"parts {written!r}",
        f"the order of the server's JSON listing {listed!r}",
        "MB-METHOD-4",
    )


def _member(doc: dict[str, Any], tag: str) -> bytes:
    """`doc` with every string member's value replaced by `tag` (MB-TEST-3: "a check may change
    the values of its string members"), as JSON."""
    return json.dumps({k: tag if isinstance(v, str) else v for k, v in doc.items()}).encode()


@checker(
    "aggregate-etag-follows-members",
    ("MB-METHOD-7", "MB-STATUS-7"),
    "The sandbox collection's aggregate ETag changes when a member is added, changed or removed, and a tag from before the change is not answered 304.",
    profile="collection-get",
    state=State.WRITES_IN_SANDBOX,
)
def aggregate_etag_follows_members(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    member = ctx.target.sandbox_member
    if member is None:
        judge.not_applicable("the target declares no sandbox.member document to write")
    accept = [("Accept", "multipart/mixed")]

    def tag() -> str:
        resp = ctx.send(judge, ctx.raw_request("GET", coll, accept))
        etag = (resp.get("ETag") or "").strip(" \t")
        if resp.status not in (200, 204) or not etag:
            judge.not_applicable(
                f"GET {coll} answered {resp.status} without an aggregate ETag: the sandbox "
                "collection is not retrieved as a collection"
            )
        return etag

    def after(what: str, old: str) -> str:
        """The tag now, judged against `old`, the tag from before a member was `what`."""
        new = tag()
        # Spec 4.2 under MB-METHOD-7: "The aggregate tag must change whenever a member is
        # added, removed, reordered or changed".
        judge.expect_true(
            f"aggregate ETag after a member was {what}",
            new != old,
            f"{old} before, {new} after",
            "a different tag",
            "MB-METHOD-7",
        )
        # MB-STATUS-7: "304 (Not Modified) when a conditional request's validator matches the
        # aggregate one": the tag from before the change no longer does.
        got = ctx.send(judge, ctx.raw_request("GET", coll, [*accept, ("If-None-Match", old)]))
        judge.expect(
            f"GET with the tag from before a member was {what}",
            got.status,
            {200, 204},
            "MB-STATUS-7",
        )
        return new

    json_type = (("Content-Type", "application/json"),)
    before = tag()
    made = ctx.alone(judge, SubRequest("POST", coll, json_type, _member(member, "first")))
    loc = created_path(ctx, coll, made.get("Location"))
    if made.status != 201 or not loc:
        judge.not_applicable(f"a POST of sandbox.member alone answered {made.status}")
    second: str | None = None
    try:
        now = after("added", before)
        made = ctx.alone(judge, SubRequest("POST", coll, json_type, _member(member, "second")))
        second = created_path(ctx, coll, made.get("Location")) if made.status == 201 else None
        judge_listing_order(ctx, judge, coll)
        if second:
            now = tag()
        put = ctx.alone(judge, SubRequest("PUT", loc, json_type, _member(member, "changed")))
        if put.status not in (200, 204):
            judge.setup_error(f"PUT {loc} of a member just created answered {put.status}")
        now = after("changed", now)
    finally:
        ctx.alone(judge, SubRequest("DELETE", loc))
        if second:
            ctx.alone(judge, SubRequest("DELETE", second))
    after("removed", now)
