"""Semantic checks: behaviour that needs more than one exchange or a claimed profile.

Theory of operation: each function below is one check, registered with its stable id, the
requirements it verifies and its profile. They compare a batch with the same requests sent
alone (MB-SUB-1, MB-RESP-4), observe side effects through the sandbox (MB-PROC-1, -8),
exercise negotiation (MB-MULTI-*), discovery (MB-LIMIT-2), policies (MB-PROC-5..7),
conditional parts (MB-PROC-9/10), collection retrieval (MB-METHOD-4) and pipelining
(MB-PIPE-1). The representation readers for the XML and JSON forms live in
_representations.
"""

from __future__ import annotations

import json
import secrets

from mixbatch_conformance._context import Context, SubRequest, compose_batch
from mixbatch_conformance._judge import Judge
from mixbatch_conformance._outcomes import expect_processed, expect_rejected, part_status
from mixbatch_conformance._registry import checker
from mixbatch_conformance._representations import (
    comparable_fields,
    entries_from_json,
    entries_from_multipart,
    entries_from_xml,
)
from mixbatch_conformance._validator import parse_media_type, read_multipart

BOUNDARY = "mb-sem-5d0c6f1e2b9a8374"


def _ok_nf(ctx: Context, judge: Judge) -> tuple[SubRequest, SubRequest]:
    ok = ctx.path(ctx.resource(judge, "ok"))
    nf = ctx.path(ctx.resource(judge, "not_found"))
    return SubRequest("GET", ok), SubRequest("GET", nf)


def _require_alone(ctx: Context, judge: Judge, sub: SubRequest, statuses: set[int]) -> None:
    resp = ctx.alone(judge, sub)
    if resp.status not in statuses:
        judge.setup_error(f"{sub.method} {sub.target} alone answered {resp.status}, not {statuses}")


@checker(
    "options-capabilities",
    ("MB-LIMIT-2", "MB-LIMIT-1"),
    "OPTIONS on the batch endpoint answers 200 with the capabilities document and Accept-Post.",
    profile="limits",
)
def options_capabilities(ctx: Context, judge: Judge) -> None:
    resp = ctx.send(judge, ctx.raw_request("OPTIONS", ctx.batch_path))
    judge.require("status", resp.status, {200})
    judge.expect("media type", resp.media_type, {"application/vnd.mixbatch.capabilities+json"})
    accept_post = ",".join(resp.get_all("Accept-Post")).lower()
    judge.expect_true(
        "Accept-Post", "multipart/mixed" in accept_post, repr(accept_post), "names multipart/mixed"
    )
    try:
        doc = json.loads(resp.body)
    except ValueError:
        doc = None
    judge.require_true("JSON document", isinstance(doc, dict), repr(resp.body[:80]), "an object")
    assert isinstance(doc, dict)
    limits = doc.get("limits")
    names = ("max_parts", "max_batch_bytes", "max_part_bytes", "max_part_header_bytes")
    judge.expect_true(
        "published limits",
        isinstance(limits, dict) and all(isinstance(limits.get(n), int) for n in names),
        repr(limits),
        f"integers for {', '.join(names)}",
        "MB-LIMIT-1",
    )
    from mixbatch_conformance._schemas import validate_against

    problem = validate_against("capabilities.schema.json", doc)
    judge.expect("capabilities schema", problem, {None}, allowed_text="valid (no error)")


@checker(
    "method-not-allowed",
    ("MB-METHOD-2",),
    "PUT and DELETE on the batch endpoint are answered 405 with an Allow field naming POST.",
)
def method_not_allowed(ctx: Context, judge: Judge) -> None:
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
    "response-framing-strict",
    (
        "MB-WIRE-7",
        "MB-WIRE-12",
        "MB-WIRE-16",
        "MB-RESP-2",
        "MB-RESP-3",
        "MB-WIRE-10",
        "MB-WIRE-15",
        "MB-RESP-9",
        "MB-SEC-3",
    ),
    "A processed batch response is framed exactly by the ABNF, with valid part header fields.",
)
def response_framing_strict(ctx: Context, judge: Judge) -> None:
    ok, nf = _ok_nf(ctx, judge)
    resp = ctx.batch(judge, [ok, nf, ok])
    env = expect_processed(ctx, judge, resp, [ok.content_id, nf.content_id, ok.content_id])
    for part in env.parts:
        judge.expect_true(
            f"part {part.index} Content-Length",
            part.get("Content-Length") is not None,
            "absent" if part.get("Content-Length") is None else "present",
            "present (SHOULD)",
            "MB-WIRE-15",
        )


@checker(
    "batch-equals-alone",
    ("MB-SUB-1", "MB-RESP-4", "MB-PART-8"),
    "Each part's status, fields and body equal those of the same request sent alone.",
)
def batch_equals_alone(ctx: Context, judge: Judge) -> None:
    ok, nf = _ok_nf(ctx, judge)
    subs = [ok, nf]
    echo = ctx.target.resource("echo")
    if echo:
        binary = bytes(range(256)) + b"\r\n--not-a-boundary\r\n"
        subs += [
            SubRequest("PUT", ctx.path(echo), (("Content-Type", "text/plain"),), b"put body"),
            SubRequest(
                "POST", ctx.path(echo), (("Content-Type", "application/octet-stream"),), binary
            ),
            SubRequest("DELETE", ctx.path(echo)),
        ]
    alone = [ctx.alone(judge, s) for s in subs]
    resp = ctx.batch(judge, subs)
    env = expect_processed(ctx, judge, resp, [s.content_id for s in subs])
    for i, (part, single) in enumerate(zip(env.parts, alone, strict=True)):
        judge.expect(f"part {i} status", part_status(env, i), {single.status}, "MB-SUB-1")
        judge.expect(
            f"part {i} fields",
            comparable_fields(part.fields, ctx.target.volatile_headers),
            {comparable_fields(single.headers, ctx.target.volatile_headers)},
            "MB-RESP-4",
        )
        judge.expect(f"part {i} body", part.body, {single.body}, "MB-RESP-4")


@checker(
    "content-id-forms-echoed",
    ("MB-PART-5", "MB-PART-6", "MB-RESP-3"),
    "Relative, absolute-path, dot-segment and absolute-URI targets resolve to one resource and are echoed octet for octet.",
)
def content_id_forms(ctx: Context, judge: Judge) -> None:
    path = ctx.resource(judge, "ok")
    refs = [
        ctx.ref(path, "relative"),
        ctx.ref(path, "absolute-path"),
        ctx.ref(path, "absolute-uri"),
        "./" + ctx.ref(path, "relative"),
    ]
    subs = [SubRequest("GET", r) for r in refs]
    _require_alone(ctx, judge, SubRequest("GET", ctx.path(path)), set(range(200, 300)))
    env = expect_processed(ctx, judge, ctx.batch(judge, subs), [s.content_id for s in subs])
    for i in range(len(subs)):
        judge.expect(f"part {i} status", part_status(env, i), set(range(200, 300)), "MB-PART-5")


@checker(
    "accept-not-acceptable",
    ("MB-STATUS-9",),
    "A batch whose Accept admits none of the offered representations is answered 406.",
)
def accept_not_acceptable(ctx: Context, judge: Judge) -> None:
    ok, _ = _ok_nf(ctx, judge)
    resp = ctx.batch(judge, [ok], headers=(("Accept", "image/png"),))
    expect_rejected(judge, resp, {406}, "MB-STATUS-9", problem=False)


@checker(
    "accept-default-multipart",
    ("MB-MULTI-1",),
    "Without Accept, and with Accept */*, the batch response is multipart/mixed with status 200.",
)
def accept_default(ctx: Context, judge: Judge) -> None:
    ok, _ = _ok_nf(ctx, judge)
    for headers in ((), (("Accept", "*/*"),)):
        resp = ctx.batch(judge, [ok], headers=headers)
        judge.expect(f"status with {headers!r}", resp.status, {200})
        judge.expect(f"media type with {headers!r}", resp.media_type, {"multipart/mixed"})


def _representation(ctx: Context, judge: Judge, accept: str) -> tuple[list[SubRequest], bytes, str]:
    ok, nf = _ok_nf(ctx, judge)
    subs = [ok, nf]
    resp = ctx.batch(judge, subs, headers=(("Accept", accept),))
    judge.require(
        "status", resp.status, {207}, "MB-MULTI-2" if accept != "multipart/mixed" else None
    )
    judge.expect_true(
        "207 does not carry multipart",
        not resp.media_type.startswith("multipart/"),
        resp.media_type,
        "a non-multipart media type",
        "MB-MULTI-2",
    )
    return subs, resp.body, resp.media_type


@checker(
    "multistatus-xml",
    ("MB-MULTI-3", "MB-MULTI-2", "MB-MULTI-6"),
    "Accept application/xml gives 207 with one multistatus response per part, in order, with indexes.",
    profile="xml",
)
def multistatus_xml(ctx: Context, judge: Judge) -> None:
    subs, body, media = _representation(ctx, judge, "application/xml")
    judge.expect("media type", media, {"application/xml", "text/xml"}, "MB-MULTI-3")
    entries, problem = entries_from_xml(body)
    judge.require(
        "XML document", problem, {None}, "MB-MULTI-3", allowed_text="well-formed multistatus"
    )
    judge.require("response count", len(entries), {len(subs)}, "MB-MULTI-3")
    for i, entry in enumerate(entries):
        judge.expect(f"response {i} index", entry.index, {i}, "MB-MULTI-3")
        judge.expect(
            f"response {i} mb:content-id", entry.content_id, {subs[i].target}, "MB-MULTI-6"
        )
        judge.expect(f"response {i} DAV:status", entry.status, {200, 404}, "MB-MULTI-6")
        judge.expect_true(
            f"response {i} mb:header fields",
            any(n.lower() == "content-type" for n, _ in entry.fields),
            repr(entry.fields[:3]),
            "mb:header elements including Content-Type",
            "MB-MULTI-6",
        )
        judge.expect_true(
            f"response {i} mb:body",
            bool(entry.body),
            f"{len(entry.body)} octets",
            "the body",
            "MB-MULTI-6",
        )


@checker(
    "multistatus-json",
    ("MB-MULTI-4", "MB-MULTI-2", "MB-MULTI-7"),
    "Accept application/vnd.mixbatch.multistatus+json gives 207 with a valid document, one entry per part in order.",
    profile="json",
)
def multistatus_json(ctx: Context, judge: Judge) -> None:
    subs, body, media = _representation(ctx, judge, "application/vnd.mixbatch.multistatus+json")
    judge.expect("media type", media, {"application/vnd.mixbatch.multistatus+json"}, "MB-MULTI-4")
    entries, problem = entries_from_json(body)
    judge.require("JSON document", problem, {None}, "MB-MULTI-4", allowed_text="valid by schema")
    judge.require("entry count", len(entries), {len(subs)}, "MB-MULTI-4")
    for i, entry in enumerate(entries):
        judge.expect(f"entry {i} index", entry.index, {i}, "MB-MULTI-4")
    doc = json.loads(body)
    for i, item in enumerate(doc["responses"]):
        try:
            entries[i].body.decode("utf-8")
            want = "body"
        except UnicodeDecodeError:
            want = "body_base64"
        have = [k for k in ("body", "body_base64") if k in item]
        judge.expect(f"entry {i} body member", have, [[want]], "MB-MULTI-7")


@checker(
    "representations-equivalent",
    ("MB-MULTI-5",),
    "The multipart, XML and JSON forms of one batch carry the same statuses, fields and bodies.",
)
def representations_equivalent(ctx: Context, judge: Judge) -> None:
    ok, nf = _ok_nf(ctx, judge)
    subs = [ok, nf]
    resp = ctx.batch(judge, subs)
    env = expect_processed(ctx, judge, resp, [s.content_id for s in subs])
    base = entries_from_multipart(env, ctx.target.volatile_headers)
    forms = []
    if ctx.target.claims("xml"):
        forms.append(("application/xml", entries_from_xml))
    if ctx.target.claims("json"):
        forms.append(("application/vnd.mixbatch.multistatus+json", entries_from_json))
    if not forms:
        judge.not_applicable("the target claims neither the xml nor the json profile")
    for accept, reader in forms:
        other = ctx.batch(judge, subs, headers=(("Accept", accept),))
        entries, problem = reader(other.body)
        judge.require(f"{accept} readable", problem, {None}, allowed_text="readable")
        got = [e.comparable(ctx.target.volatile_headers) for e in entries]
        want = [e.comparable(ctx.target.volatile_headers) for e in base]
        for i, (g, w) in enumerate(zip(got, want, strict=False)):
            judge.expect(f"{accept} part {i}", g, {w})
        judge.expect(f"{accept} entry count", len(got), {len(want)})


def _sandbox_member(ctx: Context, judge: Judge) -> str:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    return f"{coll}/mb-suite-{secrets.token_hex(6)}"


@checker(
    "malformed-batch-runs-nothing",
    ("MB-PROC-1", "MB-STATUS-2"),
    "A batch rejected for a malformed later part has not run its earlier well-formed write.",
)
def malformed_runs_nothing(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    before = ctx.send(judge, ctx.raw_request("GET", coll, [("Accept", "application/json")]))
    if before.status != 200:
        judge.setup_error(f"GET {coll} answered {before.status}")
    doc = json.dumps({"title": "mb-suite must not exist", "author": "suite", "year": 1}).encode()
    body = compose_batch(
        [SubRequest("POST", coll, (("Content-Type", "application/json"),), doc)], BOUNDARY
    )
    body = (
        body[: -len(f"\r\n--{BOUNDARY}--")]
        + (f"\r\n--{BOUNDARY}\r\nContent-Id: <{echo}>\r\n\r\n\r\n--{BOUNDARY}--").encode()
    )
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body))
    expect_rejected(judge, resp, {400}, "MB-STATUS-2")
    after = ctx.send(judge, ctx.raw_request("GET", coll, [("Accept", "application/json")]))
    judge.expect_true(
        "collection unchanged",
        b"mb-suite must not exist" not in after.body,
        "the POST part ran" if b"mb-suite must not exist" in after.body else "not created",
        "the earlier POST part did not run",
        "MB-PROC-1",
    )


@checker(
    "atomic-unsupported",
    ("MB-PROC-7",),
    "A server without the atomic profile answers Batch-Mode: atomic with 501 before any part runs.",
)
def atomic_unsupported(ctx: Context, judge: Judge) -> None:
    if ctx.target.claims("atomic"):
        judge.not_applicable("the target claims the atomic profile")
    ok, _ = _ok_nf(ctx, judge)
    resp = ctx.batch(judge, [ok], headers=(("Batch-Mode", "atomic"),))
    judge.expect("status", resp.status, {501})


@checker(
    "error-policy-stop",
    ("MB-PROC-6", "MB-RESP-5"),
    "With Prefer batch-on-error=stop, parts after the first failing one are skipped without a status.",
    profile="error-policy",
)
def error_policy_stop(ctx: Context, judge: Judge) -> None:
    ok, nf = _ok_nf(ctx, judge)
    subs = [ok, nf, ok, ok]
    resp = ctx.batch(judge, subs, headers=(("Prefer", "batch-on-error=stop"),))
    env = expect_processed(ctx, judge, resp, [s.content_id for s in subs])
    applied = ",".join(resp.get_all("Preference-Applied")).replace(" ", "").lower()
    judge.expect_true(
        "Preference-Applied", "batch-on-error=stop" in applied, repr(applied), "batch-on-error=stop"
    )
    judge.expect("part 0 status", part_status(env, 0), {200}, "MB-PROC-6")
    judge.expect("part 1 status", part_status(env, 1), {404}, "MB-PROC-6")
    for i in (2, 3):
        judge.expect(
            f"part {i} outcome", env.parts[i].get("Batch-Outcome"), {"skipped"}, "MB-PROC-6"
        )
        judge.expect(f"part {i} status", part_status(env, i), {None}, "MB-RESP-5")


@checker(
    "error-policy-default-continue",
    ("MB-PROC-5",),
    "Without a preference every part runs, whatever the earlier parts returned.",
)
def error_policy_default(ctx: Context, judge: Judge) -> None:
    ok, nf = _ok_nf(ctx, judge)
    subs = [nf, ok, nf, ok]
    env = expect_processed(ctx, judge, ctx.batch(judge, subs), [s.content_id for s in subs])
    for i, want in enumerate((404, 200, 404, 200)):
        judge.expect(f"part {i} status", part_status(env, i), {want})
        judge.expect(f"part {i} outcome", env.parts[i].get("Batch-Outcome"), {None})


def _etag(ctx: Context, judge: Judge) -> tuple[str, str]:
    path = ctx.path(ctx.resource(judge, "etag_resource"))
    alone = ctx.alone(judge, SubRequest("GET", path))
    etag = alone.get("ETag")
    if alone.status != 200 or not etag:
        judge.setup_error(f"GET {path} alone answered {alone.status} with ETag {etag!r}")
    return path, etag


@checker(
    "conditional-parts",
    ("MB-PROC-9", "MB-PROC-10"),
    "If-None-Match and If-Match in parts give 304 and 412 exactly as alone, with ETag passed through.",
    profile="conditional",
)
def conditional_parts(ctx: Context, judge: Judge) -> None:
    path, etag = _etag(ctx, judge)
    subs = [
        SubRequest("GET", path, (("If-None-Match", etag),)),
        SubRequest("GET", path, (("If-Match", '"mb-suite-no-such-etag"'),)),
        SubRequest("GET", path, (("If-None-Match", '"mb-suite-no-such-etag"'),)),
    ]
    alone = [ctx.alone(judge, s) for s in subs]
    judge.require("standalone statuses", [a.status for a in alone], [[304, 412, 200]], "MB-PROC-9")
    env = expect_processed(ctx, judge, ctx.batch(judge, subs), [s.content_id for s in subs])
    for i, want in enumerate((304, 412, 200)):
        judge.expect(f"part {i} status", part_status(env, i), {want}, "MB-PROC-9")
    for i in (0, 2):
        judge.expect(f"part {i} ETag", env.parts[i].get("ETag"), {etag}, "MB-PROC-10")


@checker(
    "outer-fields-not-inherited",
    ("MB-SUB-6",),
    "A conditional field on the batch request is not applied to its parts.",
)
def outer_fields(ctx: Context, judge: Judge) -> None:
    path, etag = _etag(ctx, judge)
    sub = SubRequest("GET", path)
    resp = ctx.batch(judge, [sub], headers=(("If-None-Match", etag),))
    env = expect_processed(ctx, judge, resp, [sub.content_id])
    judge.expect("part 0 status", part_status(env, 0), {200}, "MB-SUB-6")


@checker(
    "collection-get",
    ("MB-METHOD-4", "MB-STATUS-7", "MB-METHOD-6", "MB-METHOD-7"),
    "GET on a collection with Accept multipart/mixed gives one part per member, an ETag, Vary: Accept, and 304 on that ETag.",
    profile="collection-get",
)
def collection_get(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "collection"))
    resp = ctx.send(judge, ctx.raw_request("GET", coll, [("Accept", "multipart/mixed")]))
    judge.require("status", resp.status, {200}, "MB-STATUS-7")
    try:
        media, params = parse_media_type(resp.get("Content-Type") or "")
    except ValueError:
        media, params = "", {}
    judge.require("media type", media, {"multipart/mixed"}, "MB-METHOD-4")
    env = read_multipart(resp.body, params.get("boundary", ""))
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
    judge.expect("conditional status", again.status, {304}, "MB-STATUS-7")
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
    missing = ctx.send(judge, ctx.raw_request("GET", nf, [("Accept", "multipart/mixed")]))
    judge.expect("missing collection status", missing.status, {404}, "MB-STATUS-7")


@checker(
    "collection-get-with-content",
    ("MB-METHOD-3",),
    "A GET collection retrieval that has content is rejected with 400.",
    profile="collection-get",
)
def collection_get_content(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "collection"))
    req = ctx.raw_request("GET", coll, [("Accept", "multipart/mixed")], b"content")
    resp = ctx.send(judge, req)
    judge.expect("status", resp.status, {400})


@checker(
    "created-location",
    ("MB-RESP-7", "MB-RESP-3"),
    "A part that creates a resource gives its URI in Location and echoes the request's Content-Id.",
)
def created_location(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    doc = json.dumps({"title": "mb-suite created", "author": "suite", "year": 2000}).encode()
    sub = SubRequest("POST", coll, (("Content-Type", "application/json"),), doc)
    env = expect_processed(ctx, judge, ctx.batch(judge, [sub]), [sub.content_id])
    status = part_status(env, 0)
    if status != 201:
        judge.not_applicable(f"the sandbox POST answered {status}, not 201 Created")
    location = env.parts[0].get("Location")
    judge.expect_true("Location", bool(location), repr(location), "a Location field", "MB-RESP-7")


@checker(
    "pipelining-in-order",
    ("MB-PIPE-1",),
    "Pipelined plain and batch requests on one connection are answered in the order sent.",
    profile="pipelining",
)
def pipelining(ctx: Context, judge: Judge) -> None:
    ok, nf = _ok_nf(ctx, judge)
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    batch_a = ctx.raw_request("POST", ctx.batch_path, head, compose_batch([nf, ok], BOUNDARY))
    batch_b = ctx.raw_request("POST", ctx.batch_path, head, compose_batch([ok], BOUNDARY))
    requests = [
        ctx.raw_request("GET", ok.target),
        batch_a,
        ctx.raw_request("GET", nf.target),
        batch_b,
        ctx.raw_request("GET", ok.target),
    ]
    exchanges = ctx.send_many(judge, requests)
    statuses = [ex.response.status if ex.response else None for ex in exchanges]
    judge.require("statuses in order", statuses, [[200, 200, 404, 200, 200]])
    counts = []
    for ex in (exchanges[1], exchanges[3]):
        assert ex.response is not None
        _, params = parse_media_type(ex.response.get("Content-Type") or "x/y")
        counts.append(len(read_multipart(ex.response.body, params.get("boundary", "")).parts))
    judge.expect("batch part counts in order", counts, [[2, 1]])


@checker(
    "collection-get-empty",
    ("MB-STATUS-11",),
    "GET collection retrieval of an existing collection with no members answers 204 with no content.",
    profile="collection-get",
)
def collection_get_empty(ctx: Context, judge: Judge) -> None:
    # The suite never empties a collection itself (the sandbox contract lets it delete only
    # what it created), so the target must declare one that is empty.
    coll = ctx.path(ctx.resource(judge, "empty_collection"))
    resp = ctx.send(judge, ctx.raw_request("GET", coll, [("Accept", "multipart/mixed")]))
    judge.expect("status", resp.status, {204}, "MB-STATUS-11")
    judge.expect("content length", len(resp.body), {0}, "MB-STATUS-11")
