"""Planted violations of collection retrievals, the top-level method and the test resources
(spec 4, 5.2, 14.4).

Each plant is a mistake a competent implementer makes where a server answers outside a batch:
a collection retrieval that ignores If-Modified-Since, writes an epilogue or parts without
Content-Length, sorts its members, misreads Accept or leaves the 204 untagged; one that drops
its aggregate ETag or Last-Modified, a member's Http-Status-Code or Content-Id, or keeps a
strong ETag over a fresh boundary or over parts dated with the response's time (MB-METHOD-4 to
MB-METHOD-7); a conditional retrieval or a
missing or empty collection answered with the wrong status (MB-STATUS-7, MB-STATUS-11); a 405
without Allow and a GET with content misjudged (MB-METHOD-2, MB-METHOD-3); a connection ended
after a refused GET with content or a retrieval without content (MB-PIPE-1); entity tags
written bare; and test resources that sort or decode what they echo, read `0200` as a code,
clamp a delay or come up one octet short (MB-TEST-*).
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Callable
from email.utils import formatdate
from urllib.parse import unquote

from mixbatch_conformance.run.mutations import Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    Part,
    boundary_of,
    field_of,
    map_parts,
    parts_of,
    without_field,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

RespFn = Callable[[RelayRequest, RelayResponse], None]
P = Mutation


def _parts_dated(req: RelayRequest, resp: RelayResponse) -> None:
    """A collection retrieval whose every part carries a Date of the response's time, as an
    HTTP response would, while its aggregate ETag stays strong."""
    b = boundary_of(resp)
    if req.method != "GET" or not b or resp.status != 200:
        return
    parts = parts_of(resp.body, b)
    if parts is not None:
        dated = [([*f, ("Date", formatdate(usegmt=True))], body) for f, body in parts]
        resp.body = write_parts(dated, b)


def _if_modified_since_dropped(req: RelayRequest) -> None:
    """A collection that validates by its aggregate ETag only: If-Modified-Since never reaches
    it, so a date equal to its Last-Modified gets 200 instead of 304."""
    if req.method in ("GET", "HEAD"):
        req.headers = [(n, v) for n, v in req.headers if n.lower() != "if-modified-since"]


def _retrieval_epilogue(req: RelayRequest, resp: RelayResponse) -> None:
    """A collection retrieval written with an epilogue after its close delimiter."""
    if req.method == "GET" and boundary_of(resp) and resp.status == 200:
        resp.body = resp.body + b"written after the close delimiter\r\n"


def _members_by_id_descending(parts: list[Part]) -> list[Part]:
    """A collection retrieval that writes its members sorted by Content-Id, last id first,
    whatever the collection's order."""
    return sorted(parts, key=lambda p: field_of(p[0], "Content-Id") or "", reverse=True)


def _accept_matched_as_written(req: RelayRequest) -> None:
    """A collection that looks for the octets `multipart/mixed` in Accept: other case and the
    `multipart/*` range get its JSON representation."""
    accept = req.get("Accept") or ""
    if req.method == "GET" and "multipart" in accept.lower() and "multipart/mixed" not in accept:
        req.headers = [(n, v) for n, v in req.headers if n.lower() != "accept"]
        req.headers.append(("Accept", "application/json"))


def _empty_retrieval_untagged(req: RelayRequest, resp: RelayResponse) -> None:
    """An empty collection's 204 written without the validators its 200 would carry."""
    if req.method == "GET" and resp.status == 204:
        resp.set("ETag", None)


def _close_after_get_with_content(req: RelayRequest, resp: RelayResponse) -> None:
    """A server that refuses a GET with content and ends the connection instead of reading
    the content, losing what was pipelined behind it."""
    if req.method == "GET" and req.body:
        resp.close = True


def _close_after_retrieval_without_content(req: RelayRequest, resp: RelayResponse) -> None:
    """A server that ends the connection after a collection retrieval answered 304 or 204."""
    if req.method == "GET" and resp.status in (204, 304):
        resp.close = True


def _status_code_read_as_number(req: RelayRequest) -> None:
    """A status resource that reads its code with a number parser: `0200` is taken as 200."""
    req.target = re.sub(r"^(/status/)0+(\d{3})$", r"\g<1>\g<2>", req.target)


def _delay_clamped(req: RelayRequest) -> None:
    """A delay resource that clamps a delay above its largest to a short one instead of
    refusing it."""
    found = re.fullmatch(r"/delay/(\d+)", req.target)
    if found and int(found.group(1)) > 60_000:
        req.target = "/delay/1"


def _random_short_past_pool(req: RelayRequest, resp: RelayResponse) -> None:
    """A random resource that draws past 64 KiB in blocks and drops the last octet."""
    found = re.fullmatch(r"/random/(\d+)", req.target)
    if found and int(found.group(1)) > 65536 and resp.status == 200:
        resp.body = resp.body[:-1]
        resp.set("Content-Length", str(len(resp.body)))


def _etag_unquoted(multipart: bool) -> RespFn:
    """A server that writes its entity tags bare, without the double quotes of RFC 9110's
    opaque-tag: on collection retrievals (`multipart`) or on other GET answers."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        etag = resp.get("ETag")
        if req.method == "GET" and etag and bool(boundary_of(resp)) == multipart:
            resp.set("ETag", etag.removeprefix("W/").strip('"'))

    return edit


def _last_modified_in_utc(req: RelayRequest, resp: RelayResponse) -> None:
    """A server that writes Last-Modified with its zone as `UTC`, not the literal `GMT`."""
    modified = resp.get("Last-Modified")
    if req.method == "GET" and modified and not boundary_of(resp):
        resp.set("Last-Modified", modified.replace("GMT", "UTC"))


def _options_answered_by_router(req: RelayRequest, resp: RelayResponse) -> None:
    """A router that answers OPTIONS itself (204 with Allow) before the echo sees it."""
    if req.method == "OPTIONS" and req.target.startswith("/echo"):
        resp.status = 204
        resp.headers = [("Allow", "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS")]
        resp.body = b""


def _echo_target_decoded(req: RelayRequest, resp: RelayResponse) -> None:
    """An echo that reports the target after percent-decoding it, not as received."""
    try:
        doc = json.loads(resp.body)
    except ValueError:
        return
    if isinstance(doc, dict) and isinstance(doc.get("target"), str) and "%" in doc["target"]:
        doc["target"] = unquote(doc["target"])
        resp.body = json.dumps(doc).encode()
        resp.set("Content-Length", str(len(resp.body)))


def _echo_part_target_absolute(parts: list[Part]) -> list[Part]:
    """An echo that reports a sub-request's target as the absolute URI the batch built for it
    (scheme and authority before the path), not as the origin-form target."""
    out = []
    for fields, body in parts:
        try:
            doc = json.loads(body)
        except ValueError:
            doc = None
        if isinstance(doc, dict) and str(doc.get("target", "")).startswith("/"):
            doc["target"] = f"http://{doc.get('authority') or 'localhost'}{doc['target']}"
            body = json.dumps(doc).encode()
            fields = [
                (n, str(len(body)) if n.lower() == "content-length" else v) for n, v in fields
            ]
        out.append((fields, body))
    return out


def _echo_headers_sorted(req: RelayRequest, resp: RelayResponse) -> None:
    """An echo that reports header fields from a map: sorted by name, repeats merged."""
    try:
        doc = json.loads(resp.body)
    except ValueError:
        return
    if not (isinstance(doc, dict) and isinstance(doc.get("headers"), list)):
        return
    merged: dict[str, list[str]] = {}
    for name, value in doc["headers"]:
        merged.setdefault(name.title(), []).append(value)
    doc["headers"] = [[n, ", ".join(vs)] for n, vs in sorted(merged.items())]
    resp.body = json.dumps(doc).encode()
    resp.set("Content-Length", str(len(resp.body)))


def _is_collection_get(req: RelayRequest) -> bool:
    return req.method == "GET" and "multipart/mixed" in (req.get("Accept") or "")


def _collection_parts(
    fn: Callable[[list[Part]], list[Part]],
) -> Callable[[RelayRequest, RelayResponse], None]:
    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        b = boundary_of(resp)
        parts = parts_of(resp.body, b) if b and _is_collection_get(req) else None
        if parts is not None and b is not None:
            resp.body = write_parts(fn(parts), b)

    return edit


def _fresh_boundary(req: RelayRequest, resp: RelayResponse) -> None:
    """A collection written with a random boundary each time, under the same strong ETag."""
    b = boundary_of(resp)
    parts = parts_of(resp.body, b) if b and _is_collection_get(req) else None
    if parts is None:
        return
    new = "plant-" + secrets.token_hex(12)
    resp.set("Content-Type", f"multipart/mixed; boundary={new}")
    resp.body = write_parts(parts, new)


def _get(
    pred: Callable[[RelayRequest], bool], fn: Callable[[RelayResponse], None]
) -> Callable[[RelayRequest, RelayResponse], None]:
    return lambda req, resp: fn(resp) if pred(req) else None


def _empty_collection_200(resp: RelayResponse) -> None:
    if resp.status == 204:
        resp.status = 200
        resp.set("Content-Type", "multipart/mixed; boundary=plant-empty")
        resp.body = b"--plant-empty--"


def _missing_as_empty(resp: RelayResponse) -> None:
    if resp.status == 404:
        resp.status, resp.body = 204, b""
        resp.set("Content-Type", None)


def _if_none_match_lines(req: RelayRequest) -> list[str]:
    return [v for n, v in req.headers if n.lower() == "if-none-match"]


def _inm_exact_only(req: RelayRequest) -> None:
    """Match If-None-Match only as one tag in one field line: a list never matches."""
    lines = _if_none_match_lines(req)
    if _is_collection_get_or_head(req) and (len(lines) > 1 or any("," in v for v in lines)):
        req.headers = [
            (n, '"plant-never"' if n.lower() == "if-none-match" else v) for n, v in req.headers
        ]


def _inm_strong_compare(req: RelayRequest) -> None:
    """Compare If-None-Match strongly: a weak tag never matches."""
    if _is_collection_get_or_head(req) and any(
        v.strip().startswith("W/") for v in _if_none_match_lines(req)
    ):
        req.headers = [
            (n, '"plant-never"' if n.lower() == "if-none-match" else v) for n, v in req.headers
        ]


def _ims_beside_inm(req: RelayRequest) -> None:
    """Let If-Modified-Since decide beside If-None-Match: a later date than the collection's
    Last-Modified is answered 304 whatever If-None-Match lists."""
    if (
        _is_collection_get_or_head(req)
        and req.get("If-Modified-Since")
        and _if_none_match_lines(req)
    ):
        req.headers = [(n, "*" if n.lower() == "if-none-match" else v) for n, v in req.headers]


def _is_collection_get_or_head(req: RelayRequest) -> bool:
    return req.method in ("GET", "HEAD") and "multipart/mixed" in (req.get("Accept") or "")


def _content_without_type_dropped(req: RelayRequest) -> None:
    """A GET counts as carrying content only when it names a Content-Type."""
    if req.method == "GET" and req.body and not req.get("Content-Type"):
        req.body = b""


def _zero_length_as_content(req: RelayRequest) -> None:
    """A GET with Content-Length: 0 taken to carry content."""
    if _is_collection_get_or_head(req) and req.get("Content-Length") == "0" and not req.body:
        req.body = b"x"


def _get_content_405_allowing_get(req: RelayRequest, resp: RelayResponse) -> None:
    """A GET with content to the batch endpoint answered 405 with an Allow that lists GET."""
    if req.method == "GET" and req.body and "multipart/mixed" not in (req.get("Accept") or ""):
        resp.status = 405
        resp.set("Allow", "GET, POST, OPTIONS")


PLANTS: tuple[Mutation, ...] = (
    # MB-STATUS-7: 304 when a conditional request's validator matches the aggregate one,
    # If-Modified-Since against the aggregate Last-Modified as much as If-None-Match.
    P(
        "collection-ignores-if-modified-since",
        "MB-STATUS-7 If-Modified-Since",
        ("collection-get-conditional",),
        on_request=_if_modified_since_dropped,
    ),
    # MB-WIRE-10: a collection retrieval is a multipart a server sends, without an epilogue.
    P(
        "collection-retrieval-epilogue",
        "MB-WIRE-10 collection retrieval",
        ("collection-get",),
        caught_by=("WARN",),
        on_response=_retrieval_epilogue,
    ),
    # MB-METHOD-4: "one part per member of the collection, in the collection's order".
    P(
        "collection-parts-sorted-by-id",
        "MB-METHOD-4 member order",
        ("aggregate-etag-follows-members",),
        on_response=map_parts(_members_by_id_descending, lambda req: req.method == "GET"),
    ),
    # MB-METHOD-4: a GET whose Accept admits multipart/mixed is a collection retrieval, and
    # every successful one carries the aggregate ETag.
    P(
        "retrieval-accept-matched-as-written",
        "MB-METHOD-4 Accept case",
        ("collection-get",),
        on_request=_accept_matched_as_written,
    ),
    P(
        "empty-retrieval-without-etag",
        "MB-METHOD-4 204 ETag",
        ("collection-get-empty",),
        on_response=_empty_retrieval_untagged,
    ),
    # MB-TEST-2: "every request to that resource whose method a sub-request may carry, other
    # than `HEAD`", OPTIONS among them.
    P(
        "echo-options-answered-by-router",
        "MB-TEST-2 OPTIONS",
        ("test-resource-echo",),
        on_response=_options_answered_by_router,
    ),
    # MB-TEST-2: "`target`, the origin-form request target (path and query) as received".
    P(
        "echo-target-decoded",
        "MB-TEST-2 target decoded",
        ("test-resource-echo",),
        on_response=_echo_target_decoded,
    ),
    P(
        "echo-part-target-absolute",
        "MB-TEST-2 target of a sub-request",
        ("test-resource-echo",),
        on_response=map_parts(_echo_part_target_absolute),
    ),
    # MB-PIPE-1: requests pipelined behind a refused GET with content, or behind a retrieval
    # answered without content, are answered in order, not dropped with the connection.
    P(
        "closes-after-get-with-content",
        "MB-PIPE-1 closed after a GET with content",
        ("pipelining-behind-every-answer",),
        on_response=_close_after_get_with_content,
    ),
    P(
        "closes-after-retrieval-without-content",
        "MB-PIPE-1 closed after a 304 or 204 retrieval",
        ("pipelining-behind-every-answer",),
        on_response=_close_after_retrieval_without_content,
    ),
    # MB-TEST-5: "exactly *n* octets of content, for every *n* up to the largest it accepts".
    P(
        "random-short-past-64k",
        "MB-TEST-5 one octet short",
        ("test-resource-random",),
        on_response=_random_short_past_pool,
    ),
    # MB-METHOD-4 and MB-TEST-1: an ETag field holds an entity-tag (RFC 9110 §8.8.3).
    P(
        "aggregate-etag-unquoted",
        "MB-METHOD-4 ETag syntax",
        ("collection-get",),
        on_response=_etag_unquoted(multipart=True),
    ),
    P(
        "etag-resource-unquoted",
        "MB-TEST-1 ETag syntax",
        ("test-resources-ok-not-found-etag",),
        on_response=_etag_unquoted(multipart=False),
    ),
    # MB-TEST-1 and RFC 9110 §5.6.7: Last-Modified is an HTTP-date, whose zone is "GMT".
    P(
        "etag-resource-last-modified-utc",
        "MB-TEST-1 Last-Modified syntax",
        ("test-resources-ok-not-found-etag",),
        on_response=_last_modified_in_utc,
    ),
    # MB-WIRE-15 (SHOULD): each part of any multipart a server sends carries Content-Length.
    P(
        "retrieval-parts-unframed",
        "MB-WIRE-15 collection retrieval",
        ("collection-get",),
        caught_by=("WARN",),
        on_response=map_parts(
            lambda parts: [(without_field(f, "Content-Length"), b) for f, b in parts],
            lambda req: req.method == "GET",
        ),
    ),
    # MB-TEST-6: "any other code (... a value that is not three digits) with 400 or 404".
    P(
        "status-code-read-as-number",
        "MB-TEST-6 leading zero",
        ("test-resource-status",),
        on_request=_status_code_read_as_number,
    ),
    # MB-TEST-7: "a 4xx status for any larger *ms*".
    P(
        "delay-clamped-to-largest",
        "MB-TEST-7 clamped",
        ("test-resource-delay",),
        on_request=_delay_clamped,
    ),
    # MB-TEST-2: the echo lists header fields "in the order received".
    P(
        "echo-headers-sorted",
        "MB-TEST-2 header order",
        ("test-resource-echo",),
        on_response=_echo_headers_sorted,
    ),
    # MB-METHOD-2: 405 with Allow.
    P(
        "allow-dropped-on-405",
        "MB-METHOD-2 Allow",
        ("method-not-allowed",),
        on_response=lambda q, r: r.set("Allow", None) if r.status == 405 else None,
    ),
    P(
        "other-method-answered-404",
        "MB-METHOD-2 status",
        ("method-not-allowed",),
        on_response=lambda q, r: setattr(r, "status", 404) if r.status == 405 else None,
    ),
    # MB-METHOD-3: a GET retrieval with content is 400.
    P(
        "get-content-discarded",
        "MB-METHOD-3",
        ("collection-get-with-content",),
        on_request=lambda r: setattr(r, "body", b"") if r.method == "GET" else None,
    ),
    # MB-METHOD-4: one part per member, aggregate ETag, Vary: Accept.
    P(
        "collection-etag-dropped",
        "MB-METHOD-4 ETag",
        ("collection-get",),
        on_response=_get(_is_collection_get, lambda r: r.set("ETag", None)),
    ),
    # MB-METHOD-5: aggregate Last-Modified, the latest member's.
    P(
        "collection-last-modified-dropped",
        "MB-METHOD-5 absent",
        ("collection-last-modified",),
        caught_by=("WARN", "FAIL"),
        on_response=_get(_is_collection_get, lambda r: r.set("Last-Modified", None)),
    ),
    P(
        "collection-last-modified-stale",
        "MB-METHOD-5 not the latest",
        ("collection-last-modified",),
        caught_by=("WARN", "FAIL"),
        on_response=_get(
            _is_collection_get,
            lambda r: (
                r.set("Last-Modified", "Thu, 01 Jan 1970 00:00:00 GMT")
                if r.get("Last-Modified")
                else None
            ),
        ),
    ),
    # MB-METHOD-6: Http-Status-Code and Content-Id on each member part.
    P(
        "member-content-id-dropped",
        "MB-METHOD-6 Content-Id",
        ("collection-get",),
        on_response=_collection_parts(
            lambda p: [(without_field(f, "Content-Id"), b) for f, b in p]
        ),
    ),
    P(
        "member-status-dropped",
        "MB-METHOD-6 status",
        ("collection-get",),
        on_response=_collection_parts(
            lambda p: [(without_field(f, "Http-Status-Code"), b) for f, b in p]
        ),
    ),
    # MB-METHOD-7: a strong ETag only when every octet repeats.
    P(
        "strong-etag-random-boundary",
        "MB-METHOD-7",
        ("collection-get",),
        on_response=_fresh_boundary,
    ),
    # MB-STATUS-7: 200, 304 or 404 for the collection as a whole.
    P(
        "collection-if-none-match-ignored",
        "MB-STATUS-7 304",
        ("collection-get",),
        on_request=lambda r: (
            setattr(r, "headers", [(n, v) for n, v in r.headers if n.lower() != "if-none-match"])
            if _is_collection_get(r)
            else None
        ),
    ),
    P(
        "missing-collection-answered-200",
        "MB-STATUS-7 404",
        ("collection-get",),
        on_response=_get(_is_collection_get, _missing_as_empty),
    ),
    # MB-STATUS-11: an empty collection is 204.
    P(
        "empty-collection-answered-200",
        "MB-STATUS-11",
        ("collection-get-empty",),
        on_response=_get(_is_collection_get, _empty_collection_200),
    ),
    # MB-STATUS-7: 304 exactly when If-None-Match matches by the weak comparison.
    P(
        "collection-inm-list-never-matches",
        "MB-STATUS-7 If-None-Match list",
        ("collection-get-conditional",),
        on_request=_inm_exact_only,
    ),
    P(
        "collection-inm-strong-comparison",
        "MB-STATUS-7 If-None-Match weak comparison",
        ("collection-get-conditional",),
        on_request=_inm_strong_compare,
    ),
    P(
        "collection-304-without-etag",
        "MB-METHOD-4 ETag on 304",
        ("collection-get-conditional",),
        on_response=lambda q, r: (
            r.set("ETag", None) if _is_collection_get_or_head(q) and r.status == 304 else None
        ),
    ),
    P(
        "collection-ims-beside-inm",
        "MB-STATUS-7 If-Modified-Since beside If-None-Match",
        ("collection-get-conditional",),
        on_request=_ims_beside_inm,
    ),
    # MB-METHOD-3: content is content with or without a Content-Type; none is none.
    # MB-METHOD-7: a strong aggregate tag over octets that follow the clock.
    P(
        "collection-parts-dated",
        "MB-METHOD-7 a Date in each part under a strong aggregate ETag",
        ("collection-strong-etag-same-octets",),
        on_response=_parts_dated,
    ),
    P(
        "get-content-without-type-ignored",
        "MB-METHOD-3 without Content-Type",
        ("collection-get-with-content",),
        on_request=_content_without_type_dropped,
    ),
    P(
        "get-content-405-allowing-get",
        "MB-METHOD-2 Allow of a 405 to GET with content",
        ("batch-endpoint-get-with-content",),
        on_response=_get_content_405_allowing_get,
    ),
    P(
        "get-zero-length-refused",
        "MB-METHOD-4 a retrieval with Content-Length 0",
        ("collection-get-with-content",),
        on_request=_zero_length_as_content,
    ),
)
