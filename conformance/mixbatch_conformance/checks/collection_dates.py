"""The aggregate validators of a collection retrieval (spec 4.2, MB-METHOD-5, MB-METHOD-7).

Theory of operation: MB-METHOD-5 (SHOULD) asks for "an aggregate `Last-Modified` on a
collection retrieval equal to the latest `Last-Modified` among the members, when every member
has one". The members' own dates are in their parts (each part carries the member's header
fields), so the check reads them there and compares the aggregate with the latest, as dates
(RFC 9110 §5.6.7), not as strings. When some member has no date the check is N/A.

`aggregate-etag-follows-members` writes in the sandbox collection when the target retrieves it
as a collection: spec 4.2 says "the aggregate tag must change whenever a member is added,
removed, reordered or changed", and a strong tag promises the same octets (MB-METHOD-7), so a
member created, then replaced with new values, then deleted gives a new tag at each step, and
If-None-Match with a tag from before a step is not answered 304.
"""

from __future__ import annotations

import json
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.validator import parse_media_type, read_multipart

__all__: list[str] = []


def _date(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None


@checker(
    "collection-last-modified",
    ("MB-METHOD-5",),
    "A collection retrieval whose members all carry Last-Modified carries an aggregate Last-Modified equal to the latest of them.",
    profile="collection-get",
    state=State.READ_ONLY,
)
def collection_last_modified(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "collection"))
    resp = ctx.send(judge, ctx.raw_request("GET", coll, [("Accept", "multipart/mixed")]))
    if resp.status != 200:
        judge.setup_error(f"GET {coll} answered {resp.status}; collection-get judges that")
    try:
        _, params = parse_media_type(resp.get("Content-Type") or "")
    except ValueError:
        judge.setup_error("the collection retrieval is not multipart; collection-get judges that")
    env = read_multipart(resp.body, params.get("boundary", ""))
    dates = [_date(p.get("Last-Modified")) for p in env.parts]
    if not dates or any(d is None for d in dates):
        judge.not_applicable("not every member part carries a Last-Modified field")
    latest = max(d for d in dates if d is not None)
    aggregate = resp.get("Last-Modified")
    judge.expect_true(
        "aggregate Last-Modified",
        _date(aggregate) == latest,
        repr(aggregate),
        "the latest member Last-Modified (SHOULD)",
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
        etag = (resp.get("ETag") or "").strip()
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
    loc = urlsplit(made.get("Location") or "").path
    if made.status != 201 or not loc:
        judge.not_applicable(f"a POST of sandbox.member alone answered {made.status}")
    try:
        now = after("added", before)
        put = ctx.alone(judge, SubRequest("PUT", loc, json_type, _member(member, "changed")))
        if put.status not in (200, 204):
            judge.setup_error(f"PUT {loc} of a member just created answered {put.status}")
        now = after("changed", now)
    finally:
        ctx.alone(judge, SubRequest("DELETE", loc))
    after("removed", now)
