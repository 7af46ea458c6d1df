"""A collection retrieval is answered as the collection as a whole, whatever Range asks
(spec 5.2, MB-STATUS-7).

Theory of operation: MB-STATUS-7 fixes the status of a `GET` collection retrieval: "200 with
the members as parts, 304 (Not Modified) when a conditional request's validator matches the
aggregate one, 404 (Not Found) when the collection does not exist" (with 412 for a failing
precondition and 204 for an empty collection, 5.2 and MB-STATUS-11). Generic serving code
answers otherwise where a request carries Range (RFC 9110 §14.2): 206 with the octets asked for,
or 416 for a range past the end. Neither is a status of the collection as a whole, so a
retrieval ignores Range, as RFC 9110 §14.2 lets any server ("A server MAY ignore the Range
header field").

The check asks the declared collection with `Accept: multipart/mixed` and one range (first
ten octets, the last five, from the start to the end), two ranges, a range past any end, a
range in another unit, a Range under an If-Range holding the aggregate ETag or the aggregate
Last-Modified, and a Range beside `Accept-Encoding: gzip`: each is 200 with the members the
retrieval without Range carries (compared by Content-Id and Http-Status-Code, since a server
may draw a fresh boundary for each retrieval). A Range beside an If-None-Match holding the
aggregate ETag is 304 (RFC 9110 §13.2.2 evaluates preconditions before Range). HEAD with each
field is answered the status the GET gets (5.2: "A `HEAD` with the same fields gets the status
the `GET` would"). A declared empty collection with Range is 204 (MB-STATUS-11). A collection
retrieval sent as a part ("A part may still retrieve a collection", 8.4) is a `GET` collection
retrieval too, so a GET or HEAD part with Range, or with If-Range and Range, gets 200 in every
declared form.
"""

from __future__ import annotations

from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import answers_in_every_form
from mixbatch_conformance.core.validator import parse_media_type, read_multipart
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

RETRIEVAL = ("Accept", "multipart/mixed")
#: A range no collection retrieval reaches the start of.
PAST_THE_END = "bytes=1000000000-"
#: Ranges a generic server serves with 206 (or, for `PAST_THE_END`, refuses with 416).
RANGES = (
    ("Range: bytes=0-9", (("Range", "bytes=0-9"),)),
    ("Range: bytes=-5", (("Range", "bytes=-5"),)),
    ("Range: bytes=0-", (("Range", "bytes=0-"),)),
    ("Range: bytes=0-0,5-9", (("Range", "bytes=0-0,5-9"),)),
    (f"Range: {PAST_THE_END}", (("Range", PAST_THE_END),)),
    ("Range: items=0-1", (("Range", "items=0-1"),)),
    ("Range beside Accept-Encoding: gzip", (("Range", "bytes=0-9"), ("Accept-Encoding", "gzip"))),
)


def _members(resp: Response) -> list[tuple[str | None, str | None]] | None:
    """(Content-Id, Http-Status-Code) of each member part of a multipart answer; None when
    the answer is not a readable multipart body."""
    try:
        media, params = parse_media_type(resp.get("Content-Type") or "")
    except ValueError:
        return None
    if media != "multipart/mixed" or not params.get("boundary"):
        return None
    env = read_multipart(resp.body, params["boundary"])
    if env.fatal:
        return None
    return [(p.get("Content-Id"), p.get("Http-Status-Code")) for p in env.parts]


@checker(
    "collection-retrieval-ignores-range",
    ("MB-STATUS-7", "MB-STATUS-11"),
    "A collection retrieval with Range (one range, a suffix, an open range, two ranges, a range past the end, another unit), with If-Range holding the aggregate ETag or Last-Modified, or beside Accept-Encoding, is answered 200 with every member on GET and HEAD, alone and as a part in every form; with a matching If-None-Match it is 304, and an empty collection is 204.",
    profile="collection-get",
    state=State.READ_ONLY,
)
def collection_retrieval_ignores_range(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "collection"))
    whole = ctx.send(judge, ctx.raw_request("GET", coll, (RETRIEVAL,)))
    members = _members(whole)
    if whole.status != 200 or not members:
        judge.setup_error(f"GET {coll} answered {whole.status} without readable members")
    etag = whole.get("ETag")
    modified = whole.get("Last-Modified")
    cases: list[tuple[str, tuple[tuple[str, str], ...], int]] = [
        (what, fields, 200) for what, fields in RANGES
    ]
    if etag:
        cases.append((f"If-Range: {etag} and a Range", (("If-Range", etag), *RANGES[0][1]), 200))
        # RFC 9110 §13.2.2: If-None-Match (step 3) is evaluated before Range (step 5), and
        # MB-STATUS-7 gives "304 (Not Modified) when a conditional request's validator matches
        # the aggregate one".
        cases.append(
            (f"If-None-Match: {etag} and a Range", (("If-None-Match", etag), *RANGES[0][1]), 304)
        )
    if modified:
        cases.append(
            (f"If-Range: {modified} and a Range", (("If-Range", modified), *RANGES[0][1]), 200)
        )
    for method in ("GET", "HEAD"):
        for what, fields, want in cases:
            resp = ctx.send(judge, ctx.raw_request(method, coll, (RETRIEVAL, *fields)))
            # MB-STATUS-7: a `GET` collection retrieval is answered "with the status of the
            # collection as a whole": 200, 304 or 404, never the 206 or 416 a Range gets from
            # a server that serves ranges; spec 5.2: "A `HEAD` with the same fields gets the
            # status the `GET` would".
            judge.expect(f"{method} with {what}: status", resp.status, {want}, "MB-STATUS-7")
            if method == "GET" and resp.status == 200:
                # MB-STATUS-7: "200 with the members as parts": every member, not a range of
                # the octets.
                judge.expect(f"GET with {what}: members", _members(resp), [members], "MB-STATUS-7")
    empty = ctx.target.resource("empty_collection")
    if empty:
        for method in ("GET", "HEAD"):
            resp = ctx.send(
                judge, ctx.raw_request(method, ctx.path(empty), (RETRIEVAL, *RANGES[2][1]))
            )
            # MB-STATUS-11: "answer a `GET` collection retrieval of a collection that exists
            # but has no members with 204 (No Content)".
            judge.expect(
                f"empty collection, {method} with {RANGES[2][0]}: status",
                resp.status,
                {204},
                "MB-STATUS-11",
            )
    subs = [
        SubRequest("GET", coll, (RETRIEVAL, *RANGES[0][1])),
        SubRequest("HEAD", coll, (RETRIEVAL, *RANGES[0][1])),
        SubRequest("GET", coll, (RETRIEVAL, *RANGES[4][1])),
    ]
    if etag:
        subs.append(SubRequest("GET", coll, (RETRIEVAL, ("If-Range", etag), *RANGES[0][1])))
    for media, _, entries in answers_in_every_form(ctx, judge, subs):
        for i, (sub, entry) in enumerate(zip(subs, entries, strict=True)):
            # MB-STATUS-7 binds a `GET` collection retrieval wherever it is sent; spec 8.4: "A
            # part may still retrieve a collection with `Accept: multipart/mixed`".
            judge.expect(
                f"{media}: part {i} ({sub.method} {dict(sub.headers)}): status",
                entry.status,
                {200},
                "MB-STATUS-7",
            )
