"""Servers that do what the spec allows differently from the reference server pass the suite.

Each test builds one allowed variant, either as a relay rewrite in front of the reference server
(like the planted bugs of run.mutations, but spec-allowed) or as a reference server started in
process with one resource behaving differently, and runs the checks whose expectations used to
come from the reference server's own answers. Each must PASS: the spec is the judge.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import replace
from email.utils import formatdate, parsedate_to_datetime
from typing import Any
from urllib.parse import unquote_to_bytes, urlsplit

import pytest

from mixbatch.codec import Limits
from mixbatch.server import Request, Response, Server, ServerConfig, build_app
from mixbatch_conformance.checks import all_checks
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge, Verdict
from mixbatch_conformance.core.settings import RunSettings
from mixbatch_conformance.core.target import Target, reference_target
from mixbatch_conformance.core.validator import parse_media_type, read_multipart
from mixbatch_conformance.run.mutations import write_parts
from mixbatch_conformance.run.plants.part_content_fields import in_place, lists_content_length
from mixbatch_conformance.run.runner import run_check
from mixbatch_conformance.run.targets import with_published_profiles
from mixbatch_conformance.transport.relay import (
    Behaviour,
    MutationLike,
    Relay,
    RelayRequest,
    RelayResponse,
)

CHECKS = {c.id: c for c in all_checks()}


def _verdicts(ctx: Context, ids: list[str]) -> dict[str, str]:
    """The checks that did not pass, with their messages."""
    out = {}
    for cid in ids:
        result = run_check(CHECKS[cid], ctx)
        if result.verdict is not Verdict.PASS:
            out[cid] = f"{result.verdict.value}: {result.message}"
    return out


def _boundary(headers: list[tuple[str, str]]) -> str | None:
    for name, value in headers:
        if name.lower() == "content-type":
            try:
                media, params = parse_media_type(value)
            except ValueError:
                return None
            return params.get("boundary") if media == "multipart/mixed" else None
    return None


def _fixed(fields: list[tuple[str, str]], body: bytes) -> list[tuple[str, str]]:
    return [(n, str(len(body)) if n.lower() == "content-length" else v) for n, v in fields]


# -- relay variants ----------------------------------------------------------------------------
class Variant(MutationLike):
    """A relay rewrite of batch responses that keeps the server within the spec."""

    def __init__(self, parts: Callable[[RelayRequest, list[Any]], list[Any]]) -> None:
        self.parts = parts

    def request(self, req: RelayRequest) -> None:
        return None

    def response(self, req: RelayRequest, resp: RelayResponse) -> None:
        boundary = _boundary(resp.headers)
        if not boundary or req.method != "POST":
            return
        env = read_multipart(resp.body, boundary)
        if env.fatal:
            return
        parts = [(list(p.fields), p.body) for p in env.parts]
        resp.body = write_parts(self.parts(req, parts), boundary)


def _bare_sub_requests(req: RelayRequest, parts: list[Any]) -> list[Any]:
    """Echo descriptions of sub-requests as a server that adds no framing fields to them, and
    writes field names in lower case, would give (spec 3.2.4, MB-PART-13, MB-TEST-2)."""
    out = []
    for fields, body in parts:
        try:
            doc = json.loads(body)
        except ValueError:
            doc = None
        if isinstance(doc, dict) and isinstance(doc.get("headers"), list):
            doc["headers"] = [
                [n.lower(), v]
                for n, v in doc["headers"]
                if n.lower() not in ("host", "content-length")
            ]
            body = json.dumps(doc).encode()
            fields = _fixed(fields, body)
        out.append((fields, body))
    return out


def _finish_running_part(origin: str) -> Callable[[RelayRequest, list[Any]], list[Any]]:
    """An abort that finishes the part running when the budget ran out: parts 0 to k, then the
    abort part with part_index k+1 (spec 5.4, MB-STATUS-14). Part k carries what its
    sub-request answers, asked of the server at `origin` once the budget has run out, so it
    arrives no sooner than that sub-request could have finished."""

    def finish(req: RelayRequest, parts: list[Any]) -> list[Any]:
        if not parts or ("Batch-Outcome", "aborted") not in parts[-1][0]:
            return parts
        k = len(parts) - 1
        request = read_multipart(req.body, _boundary(req.headers) or "")
        cid = request.parts[k].get("Content-Id") or ""
        with urllib.request.urlopen(origin + cid.strip().strip("<>"), timeout=60) as alone:
            status, content = alone.status, alone.read()
            media = alone.headers.get("Content-Type")
        head = [("Http-Status-Code", str(status)), ("Content-Id", cid)]
        if media:
            head.append(("Content-Type", media))
        answered = ([*head, ("Content-Length", str(len(content)))], content)
        fields, body = parts[-1]
        problem = json.loads(body)
        problem["part_index"] = k + 1
        body = json.dumps(problem).encode()
        return [*parts[:-1], answered, (_fixed(fields, body), body)]

    return finish


@pytest.fixture
def variant_relay(reference_url: str) -> Iterator[Relay]:
    relay = Relay(reference_url)
    relay.start()
    yield relay
    relay.stop()


def test_sub_requests_without_framing_fields_pass(variant_relay: Relay, reference: Target) -> None:
    variant_relay.mutation = Variant(_bare_sub_requests)  # type: ignore[assignment]
    ctx = Context(reference.with_base_url(variant_relay.url), RunSettings(tier="standard", seed=3))
    assert _verdicts(ctx, ["batch-equals-alone", "property-batch-equals-alone"]) == {}


def test_echo_listing_every_received_content_length_passes(
    variant_relay: Relay, reference: Target
) -> None:
    """An echo that lists the Content-Length a request carried where it was received, alone and
    for a part's sub-request alike (MB-TEST-2 lets it "list or leave out" the framing fields),
    and so shows the part's own Content-Length among the sub-request's fields (MB-PART-8)."""
    listing = lists_content_length(in_place)
    variant_relay.mutation = _TopLevelRewrite(listing)  # type: ignore[assignment]
    ctx = Context(reference.with_base_url(variant_relay.url), RunSettings(tier="standard", seed=3))
    checks = [
        "part-field-kinds-reach-resource",
        "batch-equals-alone",
        "part-field-forms-reach-resource",
        "parts-with-content-on-any-method-as-alone",
        "forbidden-method-neighbours-run",
    ]
    assert _verdicts(ctx, checks) == {}


def test_abort_after_finishing_the_running_part_passes(
    variant_relay: Relay, reference: Target
) -> None:
    finish = _finish_running_part(reference.base_url.rstrip("/"))
    variant_relay.mutation = Variant(finish)  # type: ignore[assignment]
    # The relay runs each edit on its event loop, so the batches the check sends at once get
    # their running part finished one after another, each waiting out its delay: the last
    # answer comes long after a server finishing them side by side would send it.
    settings = RunSettings(tier="standard", timeout_s=30.0)
    ctx = Context(reference.with_base_url(variant_relay.url), settings)
    assert _verdicts(ctx, ["batch-abort-after-timeout"]) == {}


# -- in-process variants of the reference server -----------------------------------------------
@pytest.fixture
def start_variant() -> Iterator[Callable[..., str]]:
    """Start a reference server in process, changed by `patch`; yield a starter."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    servers: list[Server] = []

    def start(patch: Callable[[Any], None], **config: Any) -> str:
        cfg = ServerConfig(host="127.0.0.1", port=0, **config)
        app = build_app(cfg)
        patch(app)
        server = Server(app, cfg)
        asyncio.run_coroutine_threadsafe(server.start(), loop).result(10)
        servers.append(server)
        return server.url

    yield start
    for server in servers:
        asyncio.run_coroutine_threadsafe(server.shutdown(1.0), loop).result(10)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(5)
    loop.close()


MEMBER = re.compile(r"/books/([0-9]+)")
JSON_TYPE = (("Content-Type", "application/json"),)


def _put_creates_and_stores_another_document(app: Any) -> None:
    """PUT to an absent member creates it (201, MB-TEST-3); a member reads back as a document
    of the server's own, not the one written (a sandbox that does not read back, MB-TEST-4)."""
    respond = app.router.respond

    async def variant(request: Request) -> Response:
        m = MEMBER.fullmatch(request.path)
        if m and request.method == "PUT" and app.store.get(int(m.group(1))) is None:
            doc = json.loads(await request.body.read(1 << 20))
            book = app.store.replace(int(m.group(1)), doc)
            return Response(201, [("Location", request.path)], book.body)
        answer = respond(request)
        response = answer if isinstance(answer, Response) else await answer
        if m and request.method == "GET" and response.status == 200:
            body = json.dumps({"stored": True, "member": int(m.group(1))}).encode()
            headers = [(n, v) for n, v in response.headers if n.lower() != "etag"]
            return Response(200, headers, body)
        return response

    app.router.respond = variant


def test_sandbox_that_creates_on_put_and_does_not_read_back_passes(
    start_variant: Callable[..., str],
) -> None:
    url = start_variant(_put_creates_and_stores_another_document)
    target = replace(with_published_profiles(reference_target(url)), sandbox_reads_back=False)
    ctx = Context(target, RunSettings(tier="standard", seed=5))
    assert _verdicts(ctx, ["property-sandbox-state-machine", "created-location"]) == {}


def test_a_batch_endpoint_elsewhere_still_rejects_every_nested_spelling(
    start_variant: Callable[..., str],
) -> None:
    url = start_variant(lambda app: None, batch_path="/bulk")
    target = replace(with_published_profiles(reference_target(url)), batch_endpoint="/bulk")
    ctx = Context(target)
    nested = sorted(c for c in CHECKS if c.startswith("vector-nested-batch"))
    assert len(nested) >= 4
    assert _verdicts(ctx, nested) == {}


def _relative_locations(app: Any) -> None:
    """Every `Location` a resource answers given as a relative reference to the request's own
    target: `books/7` for a POST to `/books`, `7` for a PUT to `/books/7` (RFC 9110 §10.2.2,
    which MB-RESP-7 cites: a relative reference is resolved against the target URI)."""
    respond = app.router.respond

    async def variant(request: Request) -> Response:
        answer = respond(request)
        response = answer if isinstance(answer, Response) else await answer
        base = request.path.rsplit("/", 1)[0] + "/"
        headers = [
            (n, v[len(base) :] if n.lower() == "location" and v.startswith(base) else v)
            for n, v in response.headers
        ]
        return replace(response, headers=headers)

    app.router.respond = variant


def test_sandbox_giving_relative_locations_passes(start_variant: Callable[..., str]) -> None:
    url = start_variant(_relative_locations)
    ctx = Context(with_published_profiles(reference_target(url)), RunSettings(tier="standard"))
    coll = ctx.target.resource("sandbox_collection")
    assert coll is not None
    doc = json.dumps(ctx.target.sandbox_member).encode()
    judge = Judge("MB-RESP-7")
    created = ctx.send(
        judge, ctx.raw_request("POST", coll, [("Content-Type", "application/json")], doc)
    )
    # The variant is what it claims to be: the Location is a relative reference.
    location = created.get("Location") or "/"
    assert created.status == 201
    assert not location.startswith("/"), location
    ctx.send(judge, ctx.raw_request("DELETE", f"{coll}/{location.rsplit('/', 1)[-1]}"))
    assert (
        _verdicts(
            ctx,
            [
                "sandbox-collection-write-sequences",
                "property-sandbox-state-machine",
                "created-location",
                "aggregate-etag-follows-members",
                "collection-last-modified-after-write",
                "sandbox-writes-any-framing",
                "sandbox-json-values-read-back",
                "atomic-rollback-every-write-kind",
                "continue-write-after-every-failing-status",
            ],
        )
        == {}
    )


def test_a_lower_published_max_parts_splits_the_batches(start_variant: Callable[..., str]) -> None:
    url = start_variant(lambda app: None, limits=Limits(max_parts=8))
    target = with_published_profiles(reference_target(url))
    ctx = Context(target, RunSettings(tier="standard"))
    assert ctx.limit("max_parts") == 8
    assert (
        _verdicts(
            ctx,
            [
                "forbidden-method-neighbours-run",
                "unforbidden-part-fields-reach-resource",
                "sandbox-collection-write-sequences",
            ],
        )
        == {}
    )


class _TopLevelRewrite(MutationLike):
    """A relay rewrite of answers, to requests sent on their own unless the rewrite edits
    batch answers too."""

    def __init__(self, rewrite: Callable[[RelayRequest, RelayResponse], None]) -> None:
        self.rewrite = rewrite

    def request(self, req: RelayRequest) -> None:
        return None

    def response(self, req: RelayRequest, resp: RelayResponse) -> None:
        self.rewrite(req, resp)


def _answer(resp: RelayResponse, status: int, title: str, media_type: str) -> None:
    """Replace the relayed answer with a small problem-like JSON document of `status`."""
    body = json.dumps({"title": title, "status": status}).encode()
    resp.status = status
    resp.headers = [("Content-Type", media_type), ("Content-Length", str(len(body)))]
    resp.body = body


#: The methods an HTTP parser in front of the resources knows (RFC 9110 §9 and PATCH).
KNOWN_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"})


def _parser_refuses_unknown_methods(req: RelayRequest, resp: RelayResponse) -> None:
    """A server whose HTTP parser refuses a method it does not know with 400 before any
    resource sees it, while a batch, dispatched in process, runs the same method in its part
    (spec 3.2.1: an unknown method "is answered in its part"; MB-TEST-2)."""
    if req.method not in KNOWN_METHODS:
        _answer(resp, 400, "Bad Request", "application/problem+json")


def _not_found_with_a_trace_id(not_found: str | None = None) -> Callable[[Any], None]:
    """404s whose content carries a trace id of their own each time, alone and in a part, as
    framework error pages do: those of `not_found` (spec 14.4: a suite relies on nothing about
    a declared resource beyond MB-TEST-1's statuses), or every 404 whatever the path with
    `None` (spec 3.2.4 compares a part with the same request alone, and no rule makes an
    undeclared resource answer the same octets twice)."""
    count = iter(range(1 << 30))

    def patch(app: Any) -> None:
        respond = app.router.respond

        async def variant(request: Request) -> Response:
            answer = respond(request)
            response = answer if isinstance(answer, Response) else await answer
            if response.status != 404 or not_found not in (None, request.path):
                return response
            body = json.dumps({"status": 404, "trace": next(count)}).encode()
            return replace(response, body=body)

        app.router.respond = variant

    return patch


def test_parser_refusing_unknown_methods_alone_passes(
    variant_relay: Relay, reference: Target
) -> None:
    variant_relay.mutation = _TopLevelRewrite(_parser_refuses_unknown_methods)  # type: ignore[assignment]
    ctx = Context(reference.with_base_url(variant_relay.url), RunSettings(tier="standard"))
    assert _verdicts(ctx, ["forbidden-method-neighbours-run"]) == {}


def test_not_found_content_of_its_own_each_time_passes(
    start_variant: Callable[..., str],
) -> None:
    not_found = reference_target("http://127.0.0.1").resource("not_found")
    assert not_found is not None
    url = start_variant(_not_found_with_a_trace_id(not_found))
    ctx = Context(with_published_profiles(reference_target(url)), RunSettings(tier="standard"))
    judge = Judge("MB-TEST-1")
    bodies = {ctx.alone(judge, SubRequest("GET", not_found)).body for _ in range(2)}
    # The variant is what it claims to be: the same request answers other content each time.
    assert len(bodies) == 2
    checks = ["kept-connection-requests-answered-apart", "pipelined-requests-answered-apart"]
    assert _verdicts(ctx, checks) == {}


def _refuses_identity_coding(req: RelayRequest, resp: RelayResponse) -> None:
    """A server that decodes no content coding and so refuses `Content-Encoding: identity`,
    in any spelling, with 415 and an Accept-Encoding field (MB-INTER-6; RFC 9110 §8.4.1
    reserves identity as a synonym for no coding, which the spec does not make a server take
    in Content-Encoding)."""
    lines = [v for n, v in req.headers if n.lower() == "content-encoding"]
    if req.method != "POST" or not lines:
        return
    members = {m.strip(" \t").lower() for line in lines for m in line.split(",")} - {""}
    if members == {"identity"}:
        body = json.dumps(
            {
                "type": "urn:example:unsupported-coding",
                "title": "Unsupported Media Type",
                "status": 415,
                "requirement": "MB-INTER-6",
            }
        ).encode()
        resp.status = 415
        resp.headers = [
            ("Content-Type", "application/problem+json"),
            ("Accept-Encoding", "identity;q=0"),
            ("Content-Length", str(len(body))),
        ]
        resp.body = body


def test_server_refusing_identity_as_a_coding_passes(
    variant_relay: Relay, reference: Target
) -> None:
    variant_relay.mutation = _TopLevelRewrite(_refuses_identity_coding)  # type: ignore[assignment]
    ctx = Context(reference.with_base_url(variant_relay.url), RunSettings(tier="standard"))
    judge = Judge("MB-INTER-6")
    head = [("Content-Type", "multipart/mixed; boundary=b"), ("Content-Encoding", "Identity")]
    body = b"--b\r\nHttp-Method: GET\r\nContent-Id: </ok>\r\n\r\n--b--\r\n"
    # The variant is what it claims to be: identity in any spelling is refused.
    assert ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body)).status == 415
    assert (
        _verdicts(ctx, ["content-coding-names-any-case", "content-coding-list-members-refused"])
        == {}
    )


def _http10_refused(req: RelayRequest, resp: RelayResponse) -> None:
    """A server whose stack speaks HTTP/1.1 only and answers an HTTP/1.0 request 505 (RFC 9110
    §15.6.6); the spec does not make a server take HTTP/1.0."""
    if req.version == "1.0":
        _answer(resp, 505, "HTTP Version Not Supported", "application/json")


def test_server_refusing_http10_passes_the_version_check(
    variant_relay: Relay, reference: Target
) -> None:
    variant_relay.mutation = _TopLevelRewrite(_http10_refused)  # type: ignore[assignment]
    ctx = Context(reference.with_base_url(variant_relay.url), RunSettings(tier="standard"))
    assert _verdicts(ctx, ["test-resources-any-http-version"]) == {}


def test_unknown_paths_answered_with_changing_404s_pass(
    start_variant: Callable[..., str],
) -> None:
    url = start_variant(_not_found_with_a_trace_id())
    ctx = Context(with_published_profiles(reference_target(url)), RunSettings(tier="standard"))
    checks = ["reference-syntax-plain-without-mode", "reference-syntax-plain-in-other-modes"]
    assert _verdicts(ctx, checks) == {}


def _zero_padded_length_refused(req: RelayRequest, resp: RelayResponse) -> None:
    """A server whose HTTP parser refuses `Content-Length: 00` with 400 on every resource, as
    some proxies' parsers do, before any batch rule is met."""
    length = next((v for n, v in req.headers if n.lower() == "content-length"), None)
    if length is not None and length.strip() != "0" and set(length.strip()) == {"0"}:
        _answer(resp, 400, "Bad Request", "application/problem+json")


def test_parser_refusing_zero_padded_lengths_passes(
    variant_relay: Relay, reference: Target
) -> None:
    variant_relay.mutation = _TopLevelRewrite(_zero_padded_length_refused)  # type: ignore[assignment]
    ctx = Context(reference.with_base_url(variant_relay.url), RunSettings(tier="standard"))
    checks = ["batch-endpoint-get-with-content", "collection-get-with-content"]
    assert _verdicts(ctx, checks) == {}


def _collection_without_retrieval(req: RelayRequest, resp: RelayResponse) -> None:
    """A server without the collection-get profile whose declared collection answers a GET
    with Accept: multipart/mixed 406 (spec 4.2: it "answers with another representation or
    406 as usual")."""
    if req.method == "GET" and req.target == "/books":
        _answer(resp, 406, "Not Acceptable", "application/problem+json")


def test_collection_without_the_retrieval_profile_passes_the_version_check(
    variant_relay: Relay, reference: Target
) -> None:
    variant_relay.mutation = _TopLevelRewrite(_collection_without_retrieval)  # type: ignore[assignment]
    target = replace(
        reference.with_base_url(variant_relay.url),
        profiles=reference.profiles - {"collection-get"},
    )
    assert (
        _verdicts(
            Context(target, RunSettings(tier="standard")), ["test-resources-any-http-version"]
        )
        == {}
    )


def _capabilities_in_an_unknown_coding(req: RelayRequest, resp: RelayResponse) -> None:
    """A server that sends its capabilities document in a content coding the client does not
    know to a request without Accept-Encoding (RFC 9110 §12.5.3: then "any content coding is
    considered acceptable")."""
    asked = any(n.lower() == "accept-encoding" for n, _ in req.headers)
    if req.method == "OPTIONS" and not asked and resp.status == 200:
        resp.headers = [(n, v) for n, v in resp.headers if n.lower() != "content-length"]
        resp.headers.append(("Content-Encoding", "x-mb-unknown"))
        resp.headers.append(("Content-Length", str(len(resp.body))))


def test_capabilities_in_an_unknown_coding_pass(variant_relay: Relay, reference: Target) -> None:
    variant_relay.mutation = _TopLevelRewrite(_capabilities_in_an_unknown_coding)  # type: ignore[assignment]
    ctx = Context(reference.with_base_url(variant_relay.url), RunSettings(tier="standard"))
    assert _verdicts(ctx, ["capabilities-whatever-request-fields"]) == {}


# -- the writes of a batch whose client left -------------------------------------------------
def _member_answered_the_same_whatever_was_written(app: Any) -> None:
    """A sandbox that stores only some of what it is sent (MB-TEST-4: it does not read back):
    a GET of a member answers a document of the server's own, under a strong ETag of that
    document, the same however the member was replaced (RFC 9110 §8.8.1 changes a strong tag
    only when the representation does)."""
    respond = app.router.respond

    async def variant(request: Request) -> Response:
        answer = respond(request)
        response = answer if isinstance(answer, Response) else await answer
        m = MEMBER.fullmatch(request.path)
        if m and request.method in ("GET", "HEAD") and response.status == 200:
            body = json.dumps({"stored": True, "member": int(m.group(1))}).encode()
            tag = f'"{hashlib.sha256(body).hexdigest()[:20]}"'
            headers = [(n, v) for n, v in response.headers if n.lower() != "etag"]
            return Response(200, [*headers, ("ETag", tag)], body)
        return response

    app.router.respond = variant


#: The checks that send targets holding every octet a URI reference allows.
TARGET_OCTET_CHECKS = [
    "target-path-octets-as-alone",
    "target-query-octets-reach-resource",
    "valid-reference-spellings-accepted",
]


@pytest.mark.parametrize(("parts", "header_bytes"), [(20, 512), (8, 256)])
def test_lower_published_part_limits_keep_the_target_batches_within_them(
    start_variant: Callable[..., str], parts: int, header_bytes: int
) -> None:
    limits = Limits(max_parts=parts, max_part_header_bytes=header_bytes)
    url = start_variant(lambda app: None, limits=limits)
    ctx = Context(with_published_profiles(reference_target(url)), RunSettings(tier="standard"))
    assert (ctx.limit("max_parts"), ctx.limit("max_part_header_bytes")) == (parts, header_bytes)
    judge = Judge("MB-STATUS-3")
    echo = ctx.path(ctx.target.resource("echo") or "/")
    # The variant is what it claims to be: one part over max_parts, or a part header section
    # one octet over its limit, is refused.
    over = [SubRequest("GET", f"{echo}?n={i}") for i in range(parts + 1)]
    assert ctx.batch(judge, over).status == 413
    long = f"{echo}?q={'q' * header_bytes}"
    assert ctx.batch(judge, [SubRequest("GET", long)]).status == 431
    assert _verdicts(ctx, TARGET_OCTET_CHECKS) == {}


@pytest.mark.parametrize("endpoint", ["/api/batch/", "/"])
def test_a_batch_endpoint_that_dot_references_resolve_to_passes(
    start_variant: Callable[..., str], endpoint: str
) -> None:
    url = start_variant(lambda app: None, batch_path=endpoint)
    target = replace(with_published_profiles(reference_target(url)), batch_endpoint=endpoint)
    ctx = Context(target, RunSettings(tier="standard"))
    judge = Judge("MB-SUB-4")
    # The variant is what it claims to be: `.` names the batch endpoint, and is refused.
    refused = ctx.batch(judge, [SubRequest("GET", ".")])
    assert refused.status == 400, refused.body
    assert _verdicts(ctx, TARGET_OCTET_CHECKS) == {}


def _query_refused(target: str) -> bool:
    """Whether a query's octets, percent-decoded, hold a control octet or are not UTF-8."""
    query = target.partition("?")[2]
    octets = unquote_to_bytes(query)
    try:
        octets.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return any(o < 0x20 or o == 0x7F for o in octets)


def _control_octets_in_queries_refused(app: Any) -> None:
    """An input check in front of every resource that refuses with 400 a query holding a
    percent-encoded control octet, or octets that are no UTF-8, alone and in a part alike, as
    web frameworks' request firewalls and parameter decoders do (MB-SUB-1: "the same ...
    input-validation ... checks as the same request sent on its own, and report a check's
    failure in the part")."""
    respond = app.router.respond

    def variant(request: Request) -> Response | Any:
        if _query_refused(request.target):
            body = json.dumps({"title": "Bad Request", "status": 400}).encode()
            return Response(400, [("Content-Type", "application/problem+json")], body)
        return respond(request)

    app.router.respond = variant


def test_sandbox_answering_a_member_the_same_after_a_replace_passes(
    start_variant: Callable[..., str],
) -> None:
    url = start_variant(_member_answered_the_same_whatever_was_written)
    target = replace(with_published_profiles(reference_target(url)), sandbox_reads_back=False)
    ctx = Context(target, RunSettings(tier="standard"))
    coll = target.resource("sandbox_collection")
    assert coll is not None
    judge = Judge("MB-TEST-4")
    doc = json.dumps(target.sandbox_member).encode()
    made = ctx.send(judge, ctx.raw_request("POST", coll, [*JSON_TYPE], doc))
    path = f"{coll}/{(made.get('Location') or '').rsplit('/', 1)[-1]}"
    before = ctx.alone(judge, SubRequest("GET", path)).get("ETag")
    member = target.sandbox_member or {}
    other = json.dumps({k: "other" if isinstance(v, str) else v for k, v in member.items()})
    assert ctx.alone(judge, SubRequest("PUT", path, JSON_TYPE, other.encode())).status in (200, 204)
    # The variant is what it claims to be: a replace leaves the member's strong ETag as it was.
    assert ctx.alone(judge, SubRequest("GET", path)).get("ETag") == before
    ctx.alone(judge, SubRequest("DELETE", path))
    checks = ["answered-writes-outlive-client-leaving", "atomic-commit-outlives-client-leaving"]
    assert _verdicts(ctx, checks) == {}


#: Seconds after a batch's client is noticed gone before its writes show to other requests.
COMMIT_LATE_S = 1.5
_LOCATION = re.compile(r"(?im)^location:[ \t]*(\S+)")


class _CommitsAfterTheClientLeft(MutationLike):
    """A server that runs a batch under the continue policy in one store transaction, committed
    a little after it notices the batch's client gone: until then a GET alone of a member the
    batch wrote answers as before the batch (spec 1.3: "isolation from concurrent clients is
    whatever the server's store gives"; MB-PROC-2 fixes the batch's effects, not when other
    requests see them). The writes are never undone."""

    def __init__(self) -> None:
        self.behaviour = Behaviour(
            client_left=self.left, hold=lambda req: req.method in ("GET", "HEAD")
        )
        self.lock = threading.Lock()
        #: A member path -> its answer before the batch (None: not there), while hidden.
        self.hidden: dict[str, Any] = {}
        self.until = 0.0
        #: How many answers were given as before the batch.
        self.answered_before = 0

    @property
    def edits_response(self) -> bool:
        return False

    def request(self, req: RelayRequest) -> None:
        if req.method != "POST" or req.upstream is None or req.get("Batch-Mode"):
            return
        boundary = _boundary(req.headers)
        if boundary is None:
            return
        journal: dict[str, Any] = {}
        for part in read_multipart(req.body, boundary).parts:
            path = (part.get("Content-Id") or "").strip().strip("<>")
            if (part.get("Http-Method") or "").upper() in ("PUT", "DELETE") and MEMBER.match(path):
                ask = f"GET {path} HTTP/1.1\r\nHost: relay\r\n\r\n".encode()
                journal[path] = req.upstream(ask)
        req.connection["journal"] = journal

    def left(self, req: RelayRequest, content: bytes, how: str) -> None:
        journal = req.connection.pop("journal", None)
        if not isinstance(journal, dict):
            return
        created = _LOCATION.findall(content.decode("latin-1"))
        with self.lock:
            self.hidden = {**journal, **{urlsplit(loc).path: None for loc in created}}
            self.until = time.monotonic() + COMMIT_LATE_S

    def response(self, req: RelayRequest, resp: RelayResponse) -> None:
        path = urlsplit(req.target).path
        with self.lock:
            if time.monotonic() >= self.until:
                self.hidden.clear()
            if req.method not in ("GET", "HEAD") or path not in self.hidden:
                return
            before = self.hidden[path]
            self.answered_before += 1
        if before is None:
            _answer(resp, 404, "Not Found", "application/problem+json")
        else:
            was = RelayResponse.from_upstream(before)
            resp.status, resp.headers, resp.body = was.status, was.headers, was.body


def test_writes_shown_a_little_after_the_client_left_pass(
    variant_relay: Relay, reference: Target
) -> None:
    late = _CommitsAfterTheClientLeft()
    variant_relay.mutation = late
    ctx = Context(reference.with_base_url(variant_relay.url), RunSettings(tier="standard"))
    assert _verdicts(ctx, ["answered-writes-outlive-client-leaving"]) == {}
    # The variant is what it claims to be: reads after the client left saw the state before.
    assert late.answered_before > 0


# -- a collection's aggregate validators -----------------------------------------------------
def _stamp(value: str | None) -> float:
    try:
        return parsedate_to_datetime(value or "").timestamp()
    except (TypeError, ValueError):
        return float("-inf")


def _retrieval(req: RelayRequest) -> bool:
    return req.method in ("GET", "HEAD") and "multipart" in (req.get("Accept") or "").lower()


class _CollectionRewrite(MutationLike):
    """A relay rewrite of what a server answers alone about its collections; `used` counts the
    answers it changed."""

    used = 0

    def request(self, req: RelayRequest) -> None:
        return None


class _DatedAtDeletion(_CollectionRewrite):
    """A collection whose aggregate Last-Modified is the latest of its members' dates and of
    the last deletion of a member (the DELETE answer's Date), If-Modified-Since evaluated
    against it: a date the collection has not changed since gives 304 (spec 5.2), and RFC 9110
    §8.8.2 dates a representation when it was last modified, which a deletion does."""

    def __init__(self) -> None:
        self.deleted: dict[str, str] = {}

    def request(self, req: RelayRequest) -> None:
        date = self.deleted.get(urlsplit(req.target).path)
        since = req.get("If-Modified-Since")
        if _retrieval(req) and date and since and _stamp(since) < _stamp(date):
            # Modified since: answered as without the field.
            req.headers = [(n, v) for n, v in req.headers if n.lower() != "if-modified-since"]

    def response(self, req: RelayRequest, resp: RelayResponse) -> None:
        path = urlsplit(req.target).path
        if req.method == "DELETE" and 200 <= resp.status < 300 and MEMBER.fullmatch(path):
            date = resp.get("Date") or formatdate(time.time(), usegmt=True)
            self.deleted[path.rsplit("/", 1)[0]] = date
            return
        date, own = self.deleted.get(path), resp.get("Last-Modified")
        if _retrieval(req) and resp.status == 200 and date and own and _stamp(date) > _stamp(own):
            resp.set("Last-Modified", date)
            self.used += 1


class _WeakTagOfMembers(_CollectionRewrite):
    """A weak aggregate ETag of the members' ids in order: it changes when a member is added,
    removed or moved, and stays when one is replaced, a change the server judges insignificant
    (RFC 9110 §8.8.1; MB-METHOD-7 makes a weak tag what it must be), If-None-Match compared
    weakly against it."""

    def __init__(self) -> None:
        #: The server's own tag of a retrieval -> the weak tag given for it.
        self.tags: dict[str, str] = {}
        self.last: dict[str, tuple[str, str]] = {}

    def response(self, req: RelayRequest, resp: RelayResponse) -> None:
        real = resp.get("ETag") or ""
        boundary = _boundary(resp.headers)
        if req.method != "GET" or not _retrieval(req) or resp.status != 200 or not boundary:
            if real in self.tags:
                resp.set("ETag", self.tags[real])
            return
        ids = [p.get("Content-Id") or "" for p in read_multipart(resp.body, boundary).parts]
        tag = f'W/"ids-{hashlib.sha256(" ".join(ids).encode()).hexdigest()[:20]}"'
        self.tags[real] = tag
        path = urlsplit(req.target).path
        was = self.last.get(path)
        if was is not None and was[1] == tag and was[0] != real:
            self.used += 1
        self.last[path] = (real, tag)
        resp.set("ETag", tag)
        asked = ",".join(v for n, v in req.headers if n.lower() == "if-none-match")
        if tag.removeprefix("W/") in {t.strip().removeprefix("W/") for t in asked.split(",")}:
            resp.status, resp.body = 304, b""
            resp.set("Content-Type", None)


class _HeadUndated(_CollectionRewrite):
    """A HEAD of a collection answered without Last-Modified, a field whose value the server
    determines only while generating the content (RFC 9110 §9.3.2 lets it omit such)."""

    def response(self, req: RelayRequest, resp: RelayResponse) -> None:
        if req.method == "HEAD" and _retrieval(req) and resp.get("Last-Modified"):
            resp.set("Last-Modified", None)
            self.used += 1


@pytest.mark.parametrize("variant", [_DatedAtDeletion, _WeakTagOfMembers, _HeadUndated])
def test_allowed_aggregate_validators_pass(
    variant_relay: Relay, reference: Target, variant: Callable[[], _CollectionRewrite]
) -> None:
    rewrite = variant()
    variant_relay.mutation = rewrite
    ctx = Context(reference.with_base_url(variant_relay.url), RunSettings(tier="standard"))
    assert _verdicts(ctx, ["aggregate-validators-follow-member-writes"]) == {}
    # The variant is what it claims to be: it changed answers the check judged.
    assert rewrite.used > 0


def test_control_octets_in_queries_refused_alone_and_in_parts_pass(
    start_variant: Callable[..., str],
) -> None:
    url = start_variant(_control_octets_in_queries_refused)
    ctx = Context(with_published_profiles(reference_target(url)), RunSettings(tier="standard"))
    judge = Judge("MB-SUB-1")
    echo = ctx.path(ctx.target.resource("echo") or "/")
    # The variant is what it claims to be: the same queries refused alone and in their parts.
    for query in ("n=%00", "n=%FF"):
        assert ctx.alone(judge, SubRequest("GET", f"{echo}?{query}")).status == 400
        resp = ctx.batch(judge, [SubRequest("GET", f"{echo}?{query}")])
        assert resp.status == 200
        assert b"Http-Status-Code: 400" in resp.body
    assert _verdicts(ctx, TARGET_OCTET_CHECKS) == {}


def _not_passed_or_na(ctx: Context, ids: list[str]) -> dict[str, str]:
    """The checks that neither passed nor found themselves not applicable."""
    out = {}
    for cid in ids:
        result = run_check(CHECKS[cid], ctx)
        if result.verdict not in (Verdict.PASS, Verdict.NA):
            out[cid] = f"{result.verdict.value}: {result.message}"
    return out


def _post_refused_406_under_multipart(app: Any) -> None:
    """A sandbox whose POST handler writes JSON only: a POST whose Accept admits no JSON is
    answered 406 (RFC 9110 §12.5.1 lets a server honour Accept so), with or without a
    condition (RFC 9110 §13.2.1: the preconditions of a request that would not be 2xx are
    ignored)."""
    respond = app.router.respond

    async def variant(request: Request) -> Response:
        accept = (request.headers.get("accept") or "").lower()
        if (
            request.method == "POST"
            and request.path == "/books"
            and "json" not in accept
            and accept
        ):
            body = json.dumps({"title": "Not Acceptable", "status": 406}).encode()
            return Response(406, [("Content-Type", "application/problem+json")], body)
        answer = respond(request)
        return answer if isinstance(answer, Response) else await answer

    app.router.respond = variant


def _listing_changing_every_request(app: Any) -> None:
    """A JSON listing of the sandbox that carries the time it was made, so its octets, and the
    strong tag that covers them (RFC 9110 §8.8.1), change from one request to the next."""
    respond = app.router.respond

    async def variant(request: Request) -> Response:
        answer = respond(request)
        response = answer if isinstance(answer, Response) else await answer
        accept = (request.headers.get("accept") or "").lower()
        if (
            request.method == "GET"
            and request.path == "/books"
            and "multipart" not in accept
            and response.status == 200
        ):
            body = json.dumps(
                {"made_ns": time.monotonic_ns(), "listing": json.loads(response.body)}
            ).encode()
            tag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
            headers = [(n, v) for n, v in response.headers if n.lower() != "etag"]
            return Response(200, [*headers, ("ETag", tag)], body)
        return response

    app.router.respond = variant


@pytest.mark.parametrize(
    "patch", [_post_refused_406_under_multipart, _listing_changing_every_request]
)
def test_conditional_posts_to_a_collection_judged_only_where_learnt(
    start_variant: Callable[..., str], patch: Callable[[Any], None]
) -> None:
    url = start_variant(patch)
    ctx = Context(with_published_profiles(reference_target(url)), RunSettings(tier="standard"))
    assert _not_passed_or_na(ctx, ["conditional-post-compares-selected-representation"]) == {}


# -- the problem document of a part a reference kept from running ----------------------------
def _unresolved_problem_other_spelling(req: RelayRequest, parts: list[Any]) -> list[Any]:
    """A server whose MB-PROC-20 problem documents carry 400, not the examples' 424 ("whose
    `status` is a 4xx code"), and that names, for a target refused after substitution, the
    reference the target holds (`$(0)`) rather than the whole Content-Id (`/$(0)`): spec 7.7
    lets `reference` be either."""
    out = []
    for fields, body in parts:
        if ("Batch-Outcome", "skipped") in fields and b"MB-PROC-20" in body:
            doc = json.loads(body)
            doc["status"] = 400
            reference = doc.get("reference")
            if isinstance(reference, str) and reference.startswith("/$("):
                doc["reference"] = reference[1:]
            body = json.dumps(doc).encode()
            fields = _fixed(fields, body)
        out.append((fields, body))
    return out


def test_unresolved_problems_of_another_4xx_and_reference_spelling_pass(
    variant_relay: Relay, reference: Target
) -> None:
    variant_relay.mutation = Variant(_unresolved_problem_other_spelling)  # type: ignore[assignment]
    ctx = Context(reference.with_base_url(variant_relay.url), RunSettings(tier="standard"))
    checks = [
        "references-unresolved-skipped",
        "references-missing-field-skipped",
        "references-target-refused-after-substitution",
        "references-part-fields-only",
        "references-atomic-unresolved",
        "references-to-failed-or-skipped-parts",
    ]
    assert _verdicts(ctx, checks) == {}


def _failed_parts_with_validators(req: RelayRequest, parts: list[Any]) -> list[Any]:
    """A server whose failing sub-responses carry an `ETag` and a `Location` (RFC 9110 lets a
    412 or a 404 carry either): a reference to such a part is still unresolved (MB-PROC-20),
    and the part naming it, `$(N)` in its Content-Id included, is judged skipped."""
    out = []
    for fields, body in parts:
        status = next((v for n, v in fields if n.lower() == "http-status-code"), "")
        if status.isdigit() and int(status) >= 400:
            fields = [*fields, ("ETag", '"mb-variant-failed"'), ("Location", "/books/1")]
        out.append((fields, body))
    return out


def test_references_to_failed_parts_carrying_validators_pass(
    variant_relay: Relay, reference: Target
) -> None:
    variant_relay.mutation = Variant(_failed_parts_with_validators)  # type: ignore[assignment]
    ctx = Context(reference.with_base_url(variant_relay.url), RunSettings(tier="standard"))
    assert _verdicts(ctx, ["references-to-failed-or-skipped-parts"]) == {}


# -- readings spec 3.1.1, 4.1, 5.3, 6.1 and 6.3 allow both ways ---------------------------------
def _is_post_without_content_type(req: RelayRequest) -> bool:
    return req.method == "POST" and not any(n.lower() == "content-type" for n, _ in req.headers)


def _content_type_lines(req: RelayRequest) -> int:
    return sum(1 for n, _ in req.headers if n.lower() == "content-type")


def _problem(resp: RelayResponse, status: int, **members: Any) -> None:
    """Replace the relayed answer with a problem document of `status` and `members`."""
    doc = {"type": "https://mixbatch.dev/problems/variant", "title": "Refused", "status": status}
    doc.update({k: v for k, v in members.items() if v is not None})
    body = json.dumps(doc).encode()
    resp.status = status
    resp.headers = [("Content-Type", "application/problem+json")]
    resp.headers.append(("Content-Length", str(len(body))))
    resp.body = body


def _missing_content_type_400(req: RelayRequest, resp: RelayResponse) -> None:
    """A batch without Content-Type refused 400 for its missing boundary (spec 3.1.1: "lets a
    server answer 400 under MB-WIRE-4 instead")."""
    if _is_post_without_content_type(req) and resp.status == 415:
        _problem(resp, 400, requirement="MB-WIRE-4")


def test_missing_content_type_answered_400_passes(variant_relay: Relay, reference: Target) -> None:
    variant_relay.mutation = _TopLevelRewrite(_missing_content_type_400)  # type: ignore[assignment]
    ctx = Context(reference.with_base_url(variant_relay.url), RunSettings(tier="standard", seed=3))
    checks = [
        "reject-media-type-absent",
        "non-batch-media-types-name-multipart-only",
        "envelope-refusal-names-broken-requirement",
    ]
    assert _verdicts(ctx, checks) == {}


def _repeated_content_type_415(req: RelayRequest, resp: RelayResponse) -> None:
    """Two Content-Type lines combined into one value that is no multipart/mixed media type
    (spec 3.1.1: "may answer 415 under MB-WIRE-2 instead")."""
    if req.method == "POST" and _content_type_lines(req) > 1 and resp.status == 400:
        _problem(resp, 415, requirement="MB-WIRE-2")
        resp.headers.append(("Accept-Post", "multipart/mixed"))


def test_repeated_content_type_answered_415_passes(variant_relay: Relay, reference: Target) -> None:
    variant_relay.mutation = _TopLevelRewrite(_repeated_content_type_415)  # type: ignore[assignment]
    ctx = Context(reference.with_base_url(variant_relay.url), RunSettings(tier="standard", seed=3))
    assert _verdicts(ctx, ["envelope-refusal-names-broken-requirement"]) == {}


def _no_delimiter_at_start(req: RelayRequest, resp: RelayResponse) -> None:
    """Content with no delimiter line placed at 0, where the first delimiter was looked for
    (spec 5.3: "the length of the content ... or 0")."""
    if req.method != "POST" or resp.status != 400 or b"--" in req.body:
        return
    doc = json.loads(resp.body)
    if doc.get("requirement") in {"MB-WIRE-18", "MB-WIRE-13"}:
        _problem(resp, 400, requirement="MB-WIRE-18", part_index=0, byte_offset=0)


def test_content_without_delimiter_placed_at_start_passes(
    variant_relay: Relay, reference: Target
) -> None:
    variant_relay.mutation = _TopLevelRewrite(_no_delimiter_at_start)  # type: ignore[assignment]
    ctx = Context(reference.with_base_url(variant_relay.url), RunSettings(tier="standard", seed=3))
    checks = ["reject-content-without-delimiter-line", "reject-empty-content"]
    assert _verdicts(ctx, checks) == {}


def _unrecognised_method_501(req: RelayRequest, resp: RelayResponse) -> None:
    """A method no specification defines answered 501 whose document names no requirement
    (spec 4.1: "names MB-METHOD-2 ... or leaves `requirement` out")."""
    if req.method.upper() not in KNOWN_METHODS | {"TRACE", "CONNECT"} and resp.status == 405:
        _problem(resp, 501)


def test_unrecognised_method_answered_501_unnamed_passes(
    variant_relay: Relay, reference: Target
) -> None:
    variant_relay.mutation = _TopLevelRewrite(_unrecognised_method_501)  # type: ignore[assignment]
    ctx = Context(reference.with_base_url(variant_relay.url), RunSettings(tier="standard", seed=3))
    assert _verdicts(ctx, ["method-refusal-names-requirement", "unknown-method-refused"]) == {}


#: A media range's type and subtype (RFC 9110 §12.5.1), parameters left off.
_MEDIA_RANGE = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+/[!#$%&'*+.^_`|~0-9A-Za-z-]+")


def _unparsed_accept_406(req: RelayRequest, resp: RelayResponse) -> None:
    """An Accept whose elements are none of them media ranges read by its valid elements alone,
    so admitting nothing (spec 6.1: "read its valid elements alone and answer 406")."""
    joined = ",".join(v for n, v in req.headers if n.lower() == "accept")
    members = [m.split(";")[0].strip() for m in joined.split(",") if m.strip()]
    ranges = [m for m in members if _MEDIA_RANGE.fullmatch(m)]
    if req.method == "POST" and members and not ranges:
        _problem(resp, 406, requirement="MB-STATUS-9")


def test_accept_without_media_range_answered_406_passes(
    variant_relay: Relay, reference: Target
) -> None:
    variant_relay.mutation = _TopLevelRewrite(_unparsed_accept_406)  # type: ignore[assignment]
    ctx = Context(reference.with_base_url(variant_relay.url), RunSettings(tier="standard", seed=3))
    assert _verdicts(ctx, ["accept-unparsed-member-beside-valid", "accept-default-multipart"]) == {}


def _xml_abort_empty_href(req: RelayRequest, resp: RelayResponse) -> None:
    """The XML abort report with an empty DAV:href, which keeps RFC 4918's content model (spec
    6.3: "either no `DAV:href` or an empty one")."""
    if resp.status == 207 and "xml" in (dict(resp.headers).get("Content-Type") or ""):
        resp.body = re.sub(
            rb"<D:response>(<mb:index>\d+</mb:index><mb:outcome>aborted)",
            rb"<D:response><D:href/>\1",
            resp.body,
        )


def test_xml_abort_report_with_empty_href_passes(variant_relay: Relay, reference: Target) -> None:
    variant_relay.mutation = _TopLevelRewrite(_xml_abort_empty_href)  # type: ignore[assignment]
    ctx = Context(reference.with_base_url(variant_relay.url), RunSettings(tier="standard", seed=3))
    assert _verdicts(ctx, ["batch-abort-in-every-form"]) == {}
