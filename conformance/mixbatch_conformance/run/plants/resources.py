"""Planted violations of the test resources a target declares (spec 14.4).

Covers MB-TEST-*: an ok resource that fails, an echo without the method or without the
`Content-*` fields it takes for framing, a sandbox that keeps
a deleted member or reads back stale values, a random body of the wrong length, a status or
delay resource that does not answer as declared, a collection answered in JSON, and resources
that negotiate (406) on an Accept that admits none of their media type, alone or in parts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from mixbatch_conformance.core.target import REFERENCE_DELAY_MAX_MS
from mixbatch_conformance.run.mutations import FieldList, Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    boundary_of,
    field_of,
    is_batch,
    parts_of,
    problem,
    set_field,
    set_request_field,
    without_field,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]


def _echo(fn: Callable[[dict[str, object]], None]) -> Callable[[RelayRequest, RelayResponse], None]:
    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        if req.target.startswith("/echo") and resp.status == 200:
            doc = json.loads(resp.body)
            fn(doc)
            resp.body = json.dumps(doc).encode()

    return edit


def _drop_method(doc: dict[str, object]) -> None:
    doc.pop("method", None)


def _drop_content_fields(doc: dict[str, object]) -> None:
    """An echo that takes every `Content-*` field for framing, as it rightly takes
    Content-Length, and leaves them all out of its list."""
    headers = doc.get("headers")
    if isinstance(headers, list):
        doc["headers"] = [
            h
            for h in headers
            if not (isinstance(h, list) and str(h[0]).lower().startswith("content-"))
        ]


#: The methods of RFC 9110 §9 and PATCH: the methods a router registers one by one.
_REGISTERED = frozenset({"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"})


def _echo_registered_only(req: RelayRequest, resp: RelayResponse) -> None:
    """An echo routed for the registered methods only: an extension method is 405."""
    if req.target.startswith("/echo") and req.method not in _REGISTERED:
        problem(resp, 405, "MB-TEST-2")
        resp.headers.append(("Allow", ", ".join(sorted(_REGISTERED))))


def _absolute_target_echoed(req: RelayRequest, resp: RelayResponse) -> None:
    """An echo that reports the request target as received, absolute-form included."""
    if "://" in req.target and "/echo" in req.target and resp.status == 200:
        doc = json.loads(resp.body)
        doc["target"] = req.target
        resp.body = json.dumps(doc).encode()


def _absolute_target_by_lower_scheme(req: RelayRequest, resp: RelayResponse) -> None:
    """An echo that finds the absolute-form by a lower-case `http://` or `https://` prefix, so
    a target whose scheme is written in another case is reported as received."""
    absolute = "://" in req.target and not req.target.startswith(("http://", "https://"))
    if absolute and "/echo" in req.target and resp.status == 200:
        doc = json.loads(resp.body)
        doc["target"] = req.target
        resp.body = json.dumps(doc).encode()


def _delete_as_get(req: RelayRequest) -> None:
    """A sandbox DELETE that reports success and deletes nothing."""
    if req.method == "DELETE" and req.target.startswith("/books/"):
        req.method = "GET"
        req.headers.append(("X-Plant-Was-Delete", "1"))


def _deleted(req: RelayRequest, resp: RelayResponse) -> None:
    if req.get("X-Plant-Was-Delete") and resp.status == 200:
        resp.status, resp.body = 204, b""
        resp.set("Content-Type", None)


def _stale_member(req: RelayRequest, resp: RelayResponse) -> None:
    """A sandbox that answers GET of a member it created with a document it never stored."""
    created = re.fullmatch(r"/books/[0-9]+", req.target) and req.target not in _SEEDED
    if req.method == "GET" and created and resp.status == 200:
        doc = json.loads(resp.body)
        if isinstance(doc, dict):
            doc["title"] = "planted stale title"
            resp.body = json.dumps(doc).encode()


_SEEDED = ("/books/1", "/books/2", "/books/3")


def _negotiates(
    path: str, refused: str, *, alone: bool, parts: bool
) -> Callable[[RelayRequest, RelayResponse], None]:
    """A resource at `path` (or under it, by query) that answers a GET whose Accept names
    `refused` with 406, as one doing proactive negotiation on its media type would: alone,
    in the parts of a multipart batch, or both."""

    def hit(target: str, fields: FieldList, method: str) -> bool:
        accept = (field_of(fields, "Accept") or "").lower()
        return method == "GET" and target.split("?")[0] == path and refused in accept

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        if not is_batch(req):
            if alone and resp.status == 200 and hit(req.target, req.headers, req.method):
                problem(resp, 406, "MB-TEST-1")
            return
        rb, sb = boundary_of(req), boundary_of(resp)
        sent = parts_of(req.body, rb) if parts and rb else None
        answered = parts_of(resp.body, sb) if sb else None
        if sent is None or answered is None or sb is None or len(sent) != len(answered):
            return
        out = []
        for (qf, _), (af, ab) in zip(sent, answered, strict=True):
            cid = (field_of(qf, "Content-Id") or "").strip().strip("<>")
            if hit(cid, qf, (field_of(qf, "Http-Method") or "GET").upper()):
                ab = b"not acceptable\n"
                for name in ("ETag", "Last-Modified", "Content-Type", "Content-Length"):
                    af = without_field(af, name)
                af = set_field(af, "Http-Status-Code", "406")
                af = [*af, ("Content-Type", "text/plain"), ("Content-Length", str(len(ab)))]
            out.append((af, ab))
        resp.body = write_parts(out, sb)

    return edit


def _etag_withheld_from_http10(req: RelayRequest, resp: RelayResponse) -> None:
    """The etag_resource answering a GET over HTTP/1.0 without its ETag, entity tags taken to
    have come with HTTP/1.1."""
    if req.version == "1.0" and req.method == "GET" and req.target == "/books/1":
        resp.headers = [(n, v) for n, v in resp.headers if n.lower() != "etag"]


def _listing_for_http10(req: RelayRequest) -> None:
    """The collection answering an HTTP/1.0 GET with Accept: multipart/mixed with its JSON
    listing, the retrieval being streamed with the chunked coding HTTP/1.0 lacks."""
    if req.version == "1.0" and req.method == "GET" and req.target == "/books":
        req.headers = [(n, v) for n, v in req.headers if n.lower() != "accept"]
        req.headers.append(("Accept", "application/json"))


_DELAY = re.compile(r"^(/delay/)([0-9]+)$")


def _uncapped(target: str) -> str:
    """A delay past the largest taken as one the resource serves: answered (here at once)."""
    m = _DELAY.match(target)
    return f"{m.group(1)}0" if m and int(m.group(2)) > REFERENCE_DELAY_MAX_MS else target


def _delay_largest_refused(req: RelayRequest) -> None:
    """A delay bound written `>=` for `>`: the declared largest ms itself refused (at once:
    the server behind the relay is asked for one more, which it refuses)."""
    m = _DELAY.match(req.target)
    if m and int(m.group(2)) == REFERENCE_DELAY_MAX_MS:
        req.target = f"{m.group(1)}{REFERENCE_DELAY_MAX_MS + 1}"


def _delay_cap_unchecked_alone(req: RelayRequest) -> None:
    req.target = _uncapped(req.target)


def _delay_cap_unchecked_parts(
    parts: list[tuple[FieldList, bytes]],
) -> list[tuple[FieldList, bytes]]:
    out = []
    for fields, body in parts:
        cid = field_of(fields, "Content-Id") or ""
        if cid.startswith("<") and cid.endswith(">"):
            fields = set_field(fields, "Content-Id", f"<{_uncapped(cid[1:-1])}>")
        out.append((fields, body))
    return out


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    P(
        "collection-listing-for-http10",
        "MB-TEST-8 the collection answering an HTTP/1.0 GET with Accept: multipart/mixed with "
        "its JSON listing",
        ("test-resources-any-http-version",),
        on_request=_listing_for_http10,
    ),
    P(
        "etag-withheld-from-http10",
        "MB-TEST-1 the etag_resource answering a GET over HTTP/1.0 without its ETag",
        ("test-resources-any-http-version",),
        on_response=_etag_withheld_from_http10,
    ),
    # MB-TEST-*: the declared test resources answer as declared.
    P(
        "ok-resource-negotiates-html-alone",
        "MB-TEST-1 the ok and etag_resource answering a GET alone with Accept: text/html 406",
        ("test-resources-ignore-negotiation",),
        on_response=_negotiates("/books/1", "text/html", alone=True, parts=False),
    ),
    P(
        "ok-resource-negotiates-html-in-parts",
        "MB-TEST-1 the ok and etag_resource answering a GET part with Accept: text/html 406",
        ("test-resources-ignore-negotiation",),
        on_response=_negotiates("/books/1", "text/html", alone=False, parts=True),
    ),
    P(
        "echo-negotiates-xml",
        "MB-TEST-2 the echo answering a GET with Accept: application/xml 406",
        ("test-resources-ignore-negotiation",),
        on_response=_negotiates("/echo", "application/xml", alone=True, parts=True),
    ),
    P(
        "ok-resource-500",
        "MB-TEST-1",
        ("test-resources-ok-not-found-etag",),
        on_response=lambda q, r: (
            setattr(r, "status", 500) if q.method == "GET" and q.target == "/books/1" else None
        ),
    ),
    P(
        "echo-method-missing",
        "MB-TEST-2",
        ("test-resource-echo",),
        on_response=_echo(_drop_method),
    ),
    P(
        "echo-content-fields-dropped",
        "MB-TEST-2 the echo leaving out Content-Type, Content-Language and every Content-* field",
        ("test-resource-echo",),
        on_response=_echo(_drop_content_fields),
    ),
    P(
        "echo-extension-methods-refused",
        "MB-TEST-2 the echo routed for RFC 9110's methods and PATCH only, PROPFIND answered 405",
        ("test-resource-echo",),
        on_response=_echo_registered_only,
    ),
    P(
        "echo-absolute-form-target-as-received",
        "MB-TEST-2 the echo reporting an absolute-form request's target as the absolute URI",
        ("test-resource-echo-absolute-form",),
        on_response=_absolute_target_echoed,
    ),
    P(
        "echo-absolute-form-found-by-lower-case-scheme",
        "MB-TEST-2 the echo finding the absolute-form by a lower-case scheme, so HTTP://host/path "
        "is reported as received",
        ("test-resource-echo-absolute-form",),
        on_response=_absolute_target_by_lower_scheme,
    ),
    P(
        "sandbox-delete-kept-member",
        "MB-TEST-3",
        ("property-sandbox-state-machine",),
        on_request=_delete_as_get,
        on_response=_deleted,
    ),
    P(
        "sandbox-reads-back-stale",
        "MB-TEST-4",
        ("property-sandbox-state-machine",),
        on_response=_stale_member,
    ),
    P(
        "random-one-octet-long",
        "MB-TEST-5",
        ("test-resource-random",),
        on_response=lambda q, r: (
            setattr(r, "body", r.body + b"x") if q.target.startswith("/random/") else None
        ),
    ),
    P(
        "random-count-clamped",
        "MB-TEST-5 a count above the largest clamped to it",
        ("test-resource-random",),
        on_request=lambda q: (
            setattr(q, "target", "/random/65536")
            if re.fullmatch(r"/random/[0-9]{7,}", q.target)
            else None
        ),
    ),
    P(
        "status-resource-always-200",
        "MB-TEST-6",
        ("test-resource-status",),
        on_response=lambda q, r: (
            setattr(r, "status", 200)
            if q.target.startswith("/status/") and r.status != 204
            else None
        ),
    ),
    P(
        "delay-cap-unchecked",
        "MB-TEST-7 a delay past the declared delay_max_ms served, not refused",
        ("delay-past-declared-largest",),
        on_request=_delay_cap_unchecked_alone,
        on_request_parts=_delay_cap_unchecked_parts,
    ),
    P(
        "delay-largest-refused",
        "MB-TEST-7 the declared delay_max_ms itself refused, as a bound written >= for > refuses it",
        ("delay-past-declared-largest",),
        on_request=_delay_largest_refused,
    ),
    P(
        "delay-resource-answers-early",
        "MB-TEST-7",
        ("test-resource-delay",),
        on_request=lambda r: (
            setattr(r, "target", "/delay/0") if r.target.startswith("/delay/") else None
        ),
    ),
    P(
        "collection-answered-json",
        "MB-TEST-8",
        ("collection-get",),
        on_request=set_request_field(
            "Accept", "application/json", lambda r: r.method == "GET" and r.target == "/books"
        ),
    ),
)
