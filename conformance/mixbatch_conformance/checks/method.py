"""Top-level method checks (spec 4): POST only for batches, GET for collection retrieval.

Theory of operation: other methods on the batch endpoint are answered 405 with Allow naming
POST (MB-METHOD-2); GET on a declared collection with Accept multipart/mixed gives one part
per member with an aggregate ETag and Vary: Accept, 304 on that ETag, 404 for a missing
collection (MB-METHOD-4, MB-STATUS-7), 400 when the GET has content (MB-METHOD-3) and 204
for a declared empty collection (MB-STATUS-11).
"""

from __future__ import annotations

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.validator import parse_media_type, read_multipart


@checker(
    "method-not-allowed",
    ("MB-METHOD-2",),
    "PUT and DELETE on the batch endpoint are answered 405 with an Allow field naming POST.",
    state=State.READ_ONLY,
)
def method_not_allowed(ctx: Context, judge: Judge) -> None:
    # MB-METHOD-2: "405 (Method Not Allowed) and an `Allow` field listing the methods it does
    # support (at least `POST` ...)".
    for method in ("PUT", "DELETE"):
        resp = ctx.send(judge, ctx.raw_request(method, ctx.batch_path, body=b""))
        judge.expect(f"{method} status", resp.status, {405})
        allow = ",".join(resp.get_all("Allow")).upper()
        judge.expect_true(
            f"{method} Allow",
            "POST" in [a.strip() for a in allow.split(",")],
            repr(allow),
            "names POST",
        )


@checker(
    "collection-get",
    ("MB-METHOD-4", "MB-STATUS-7", "MB-METHOD-6", "MB-METHOD-7", "MB-TEST-8"),
    "GET on a collection with Accept multipart/mixed gives one part per member, an ETag, Vary: Accept, and 304 on that ETag.",
    profile="collection-get",
    state=State.READ_ONLY,
)
def collection_get(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "collection"))
    resp = ctx.send(judge, ctx.raw_request("GET", coll, [("Accept", "multipart/mixed")]))
    # MB-TEST-8: a declared `collection` answers "a `GET` of that resource with `Accept:
    # multipart/mixed` as a collection retrieval"; MB-STATUS-7: "200 with the members as parts".
    judge.require("status", resp.status, {200}, "MB-STATUS-7")
    try:
        media, params = parse_media_type(resp.get("Content-Type") or "")
    except ValueError:
        media, params = "", {}
    judge.require("media type", media, {"multipart/mixed"}, "MB-METHOD-4")
    env = read_multipart(resp.body, params.get("boundary", ""))
    # MB-METHOD-4: "one part per member of the collection"; MB-METHOD-6: "an `Http-Status-Code`
    # field and a `Content-Id` field whose value is `"<" URI-reference ">"` naming the member".
    judge.expect("framing", [f.message for f in env.fatal], [[]], "MB-METHOD-4")
    for part in env.parts:
        status = part.get("Http-Status-Code") or ""
        cid = part.get("Content-Id") or ""
        judge.expect_true(
            f"member part {part.index}",
            len(status) == 3 and status.isdigit() and cid.startswith("<") and cid.endswith(">"),
            f"Http-Status-Code {status!r}, Content-Id {cid!r}",
            "Http-Status-Code and a Content-Id naming the member",
            "MB-METHOD-6",
        )
    # MB-METHOD-4: "with an aggregate `ETag` and a `Vary: Accept` field in the response".
    etag = resp.get("ETag")
    judge.require_true("aggregate ETag", bool(etag), repr(etag), "an ETag field", "MB-METHOD-4")
    vary = [v.strip().lower() for v in ",".join(resp.get_all("Vary")).split(",")]
    judge.expect_true("Vary", "accept" in vary, repr(vary), "Vary naming Accept", "MB-METHOD-4")
    again = ctx.send(
        judge,
        ctx.raw_request(
            "GET", coll, [("Accept", "multipart/mixed"), ("If-None-Match", etag or "")]
        ),
    )
    # MB-STATUS-7: "304 (Not Modified) when a conditional request's validator matches".
    judge.expect("conditional status", again.status, {304}, "MB-STATUS-7")
    # MB-METHOD-7: "a weak validator (`W/"..."`) unless every octet of the representation,
    # boundary included, is a function of the collection's state".
    if etag and not etag.startswith("W/"):
        third = ctx.send(judge, ctx.raw_request("GET", coll, [("Accept", "multipart/mixed")]))
        judge.expect_true(
            "strong ETag means identical octets",
            third.get("ETag") != etag or third.body == resp.body,
            "same strong ETag, different octets" if third.body != resp.body else "identical",
            "a strong ETag only when the octets, boundary included, repeat",
            "MB-METHOD-7",
        )
    nf = ctx.path(ctx.resource(judge, "not_found"))
    # MB-STATUS-7: "404 (Not Found) when the collection does not exist".
    missing = ctx.send(judge, ctx.raw_request("GET", nf, [("Accept", "multipart/mixed")]))
    judge.expect("missing collection status", missing.status, {404}, "MB-STATUS-7")


@checker(
    "collection-get-with-content",
    ("MB-METHOD-3",),
    "A GET collection retrieval that has content is rejected with 400.",
    profile="collection-get",
    state=State.READ_ONLY,
)
def collection_get_content(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "collection"))
    req = ctx.raw_request("GET", coll, [("Accept", "multipart/mixed")], b"content")
    resp = ctx.send(judge, req)
    # MB-METHOD-3: "answer 400 to a `GET` request for a collection retrieval ... that has
    # content".
    judge.expect("status", resp.status, {400})


@checker(
    "collection-get-empty",
    ("MB-STATUS-11", "MB-TEST-8"),
    "GET collection retrieval of an existing collection with no members answers 204 with no content.",
    profile="collection-get",
    state=State.READ_ONLY,
)
def collection_get_empty(ctx: Context, judge: Judge) -> None:
    # The suite never empties a collection itself (the sandbox contract lets it delete only
    # what it created), so the target must declare one that is empty.
    coll = ctx.path(ctx.resource(judge, "empty_collection"))
    resp = ctx.send(judge, ctx.raw_request("GET", coll, [("Accept", "multipart/mixed")]))
    # MB-TEST-8: "for `empty_collection`, with 204"; MB-STATUS-11: "204 (No Content)".
    judge.expect("status", resp.status, {204}, "MB-STATUS-11")
    judge.expect("content length", len(resp.body), {0}, "MB-STATUS-11")
