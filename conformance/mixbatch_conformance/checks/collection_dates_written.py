"""The aggregate Last-Modified of the sandbox collection once the suite wrote a member (spec 4.2).

Theory of operation: MB-METHOD-5 (SHOULD) asks for "an aggregate `Last-Modified` on a
collection retrieval equal to the latest `Last-Modified` among the members, when every member
has one". `collection-last-modified` judges the declared collection as it stands, whose members
may all carry one date. Here the check writes a member of its own into the sandbox collection,
so that members of different days are present (today's and any older ones), and holds the
aggregate to the latest of the dates the retrieved parts carry, compared as dates (RFC 9110
§5.6.7 HTTP-date), never as text: a weekday name sorts differently from the day it names. The
member is written in a later second than the members there before it, and deleted again. N/A when the sandbox collection is not retrieved as a collection with
an aggregate Last-Modified, when the target declares no member document to write, or when some
member part carries no date.
"""

from __future__ import annotations

import json
import time

from mixbatch_conformance.checks._shared.collections import created_path
from mixbatch_conformance.checks._shared.validators import http_date_seconds
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.validator import read_multipart
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

JSON_TYPE = (("Content-Type", "application/json"),)
ACCEPT = (("Accept", "multipart/mixed"),)
#: Seconds to wait before writing when a member already carries the server's current second:
#: HTTP-dates have whole seconds (RFC 9110 §5.6.7), and the member written must be the latest.
NEXT_SECOND_S = 1.0


def _retrieved(ctx: Context, judge: Judge, coll: str) -> Response:
    resp = ctx.send(judge, ctx.raw_request("GET", coll, list(ACCEPT)))
    if resp.status != 200 or resp.media_type != "multipart/mixed" or not resp.get("Last-Modified"):
        judge.not_applicable(
            f"GET {coll} answered {resp.status} {resp.media_type} without an aggregate "
            "Last-Modified: the sandbox collection is not retrieved as a collection with one"
        )
    return resp


@checker(
    "collection-last-modified-after-write",
    ("MB-METHOD-5",),
    "Once the suite wrote a member into the sandbox collection, its retrieval carries an aggregate Last-Modified equal to the latest of the members' dates, compared as dates.",
    profile="collection-get",
    state=State.WRITES_IN_SANDBOX,
)
def collection_last_modified_after_write(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    member = ctx.target.sandbox_member
    if member is None:
        judge.not_applicable("the target declares no sandbox.member document to write")
    first = _retrieved(ctx, judge, coll)
    _, params = judge.media_type("response Content-Type", first.get("Content-Type"), "MB-WIRE-3")
    older = [
        http_date_seconds(p.get("Last-Modified"))
        for p in read_multipart(first.body, params.get("boundary", "")).parts
    ]
    now = http_date_seconds(first.get("Date"))
    if now is not None and any(d is not None and d >= now for d in older):
        time.sleep(NEXT_SECOND_S)
    made = ctx.alone(judge, SubRequest("POST", coll, JSON_TYPE, json.dumps(member).encode()))
    loc = created_path(ctx, coll, made.get("Location"))
    if made.status != 201 or not loc:
        judge.not_applicable(f"a POST of sandbox.member alone answered {made.status}")
    try:
        resp = _retrieved(ctx, judge, coll)
        _, params = judge.media_type("response Content-Type", resp.get("Content-Type"), "MB-WIRE-3")
        env = read_multipart(resp.body, params.get("boundary", ""))
        dates = [http_date_seconds(p.get("Last-Modified")) for p in env.parts]
        if not dates or any(d is None for d in dates):
            judge.not_applicable("not every member part carries a Last-Modified field")
        latest = max(d for d in dates if d is not None)
        aggregate = resp.get("Last-Modified")
        # MB-METHOD-5: "an aggregate `Last-Modified` on a collection retrieval equal to the
        # latest `Last-Modified` among the members, when every member has one" - latest as a
        # date (RFC 9110 §5.6.7), over the parts this retrieval carries.
        judge.expect_true(
            "aggregate Last-Modified after a member was written",
            http_date_seconds(aggregate) == latest,
            f"{aggregate!r}, member dates {sorted({p.get('Last-Modified') or '' for p in env.parts})!r}",
            "the latest member Last-Modified, as a date (SHOULD)",
            "MB-METHOD-5",
        )
    finally:
        ctx.alone(judge, SubRequest("DELETE", loc))
