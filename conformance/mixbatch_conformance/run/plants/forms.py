"""Planted violations of the representation and GET requirements (MB-MULTI-*, MB-METHOD-*).

A form plant negotiates the wrong representation, writes a 207 document that disagrees with
the multipart answer of the same batch, or answers a collection retrieval wrongly. A closing
plant ends the connection after one kind of batch answer (a 207 form, skipped parts, an abort,
a refused batch, a HEAD of the endpoint), so a request pipelined behind it goes unanswered
(MB-PIPE-1).
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Callable
from typing import Any
from xml.sax.saxutils import escape

from mixbatch_conformance.run.mutations import Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    Part,
    RespEdit,
    boundary_of,
    field_of,
    is_batch,
    map_json,
    map_parts,
    map_response,
    map_xml,
    parts_of,
    set_field,
    without_field,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]


def _on_accept(fn: Callable[[str], str | None]) -> Callable[[RelayRequest], None]:
    """Rewrite the Accept field the server sees (None: remove it)."""

    def edit(req: RelayRequest) -> None:
        if not is_batch(req):
            return
        new = fn(req.get("Accept") or "")
        req.headers = [(n, v) for n, v in req.headers if n.lower() != "accept"]
        if new is not None:
            req.headers.append(("Accept", new))

    return edit


def _on_whole_accept(fn: Callable[[str], str | None]) -> Callable[[RelayRequest], None]:
    """Rewrite the Accept list the server sees, its field lines joined into one first."""

    def edit(req: RelayRequest) -> None:
        if not is_batch(req):
            return
        whole = ", ".join(v for n, v in req.headers if n.lower() == "accept")
        new = fn(whole)
        req.headers = [(n, v) for n, v in req.headers if n.lower() != "accept"]
        if new is not None:
            req.headers.append(("Accept", new))

    return edit


def _first_listed(accept: str) -> str | None:
    if ";" not in accept:
        return accept or None
    return accept.split(",")[0].split(";")[0].strip()


def _q_dropped(accept: str) -> str | None:
    return re.sub(r";\s*q=[0-9.]+", "", accept) or None


def _suffix_matched(accept: str) -> str | None:
    """application/json read as admitting the JSON form (a structured suffix taken as a match)."""
    json_form = "application/vnd.mixbatch.multistatus+json"
    return re.sub(r"application/json(?=\s*(;|,|$))", json_form, accept) or None


def _wildcard_zero_excludes_all(accept: str) -> str | None:
    """A range refused with q=0 taken to refuse every type it covers, however specific a
    range elsewhere in the list gives one of them a quality."""
    members = [m.strip() for m in accept.split(",")]
    refused = [m.split(";")[0].strip().lower() for m in members if re.search(r";\s*q=0(\.0*)?$", m)]
    if not any(r.endswith("/*") for r in refused):
        return accept or None
    kept = [m for m in members if m.split(";")[0].strip().lower() not in ("multipart/mixed",)]
    return ", ".join(kept) or None


def _entries(fn: Callable[[list[dict[str, Any]]], None]) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        responses = doc.get("responses")
        if isinstance(responses, list):
            fn(responses)

    return edit


def _shift_index(items: list[dict[str, Any]]) -> None:
    for item in items:
        item["index"] = int(item.get("index", 0)) + 1


def _drop_last(items: list[dict[str, Any]]) -> None:
    items.pop()


def _status_off(items: list[dict[str, Any]]) -> None:
    for item in items:
        if item.get("status") == 404:
            item["status"] = 410


def _both_bodies(items: list[dict[str, Any]]) -> None:
    for item in items:
        if "body" in item:
            item["body_base64"] = ""


def _base64_text(items: list[dict[str, Any]]) -> None:
    import base64

    for item in items:
        if isinstance(item.get("body"), str):
            item["body_base64"] = base64.b64encode(item.pop("body").encode()).decode()


def _abort_index(items: list[dict[str, Any]]) -> None:
    for item in items:
        if item.get("outcome") == "aborted":
            item["index"] = int(item.get("index", 0)) + 1


def _abort_extra_header(items: list[dict[str, Any]]) -> None:
    for item in items:
        if item.get("outcome") == "aborted":
            item["headers"] = [*item.get("headers", []), ["Retry-After", "1"]]


def _summary_count(doc: dict[str, Any]) -> None:
    summary = doc.get("summary")
    if isinstance(summary, dict):
        summary["ok"] = int(summary.get("ok", 0)) + 1


def _index_off_when(outcome: str) -> Callable[[list[dict[str, Any]]], None]:
    """JSON entries of `outcome` indexed one past their part."""

    def edit(items: list[dict[str, Any]]) -> None:
        for item in items:
            if item.get("outcome") == outcome:
                item["index"] = int(item.get("index", 0)) + 1

    return edit


def _xml_skipped_index_off(response: bytes) -> bytes:
    if b"<mb:outcome>skipped</mb:outcome>" not in response:
        return response
    return re.sub(
        rb"<mb:index>(\d+)</mb:index>",
        lambda m: b"<mb:index>%d</mb:index>" % (int(m[1]) + 1),
        response,
    )


def _summary_recounted(fails_from: int, rolled_back_ok: bool) -> Callable[[dict[str, Any]], None]:
    """A JSON summary counted from its entries with failing starting at `fails_from`, and a
    rolled-back part counted by its status when `rolled_back_ok`."""

    def edit(doc: dict[str, Any]) -> None:
        counts = {"ok": 0, "failed": 0, "skipped": 0, "rolled_back": 0}
        for item in doc.get("responses") or []:
            outcome, status = item.get("outcome"), item.get("status")
            if outcome == "rolled-back" and not rolled_back_ok:
                counts["rolled_back"] += 1
            elif outcome in ("skipped", "aborted"):
                counts["skipped"] += outcome == "skipped"
            elif isinstance(status, int):
                counts["failed" if status >= fails_from else "ok"] += 1
        if isinstance(doc.get("summary"), dict):
            doc["summary"] = counts

    return edit


def _content_id_bracketed(items: list[dict[str, Any]]) -> None:
    for item in items:
        if isinstance(item.get("content_id"), str):
            item["content_id"] = f"<{item['content_id']}>"


def _xml_index(body: bytes) -> bytes:
    return re.sub(
        rb"<mb:index>(\d+)</mb:index>", lambda m: b"<mb:index>%d</mb:index>" % (int(m[1]) + 1), body
    )


def _xml_cid(body: bytes) -> bytes:
    return re.sub(
        rb"<mb:content-id>([^<]*)</mb:content-id>",
        rb"<mb:content-id>&lt;\1&gt;</mb:content-id>",
        body,
    )


def _xml_reverse(body: bytes) -> bytes:
    items = re.findall(rb"<D:response>.*?</D:response>", body, re.S)
    if len(items) < 2:
        return body
    head = body[: body.index(items[0])]
    return head + b"\n".join(reversed(items)) + b"\n</D:multistatus>\n"


def _xml_namespace(body: bytes) -> bytes:
    return body.replace(b"https://mixbatch.dev/ns/multistatus", b"urn:plant:multistatus")


def _xml_plain_body(body: bytes) -> bytes:
    import base64

    return re.sub(
        rb'<mb:body encoding="base64">([^<]*)</mb:body>',
        lambda m: (
            b'<mb:body encoding="base64">'
            + base64.b64decode(m[1]).replace(b"<", b"&lt;").replace(b"&", b"&amp;")
            + b"</mb:body>"
        ),
        body,
    )


def _xml_body_mime_base64(body: bytes) -> bytes:
    """mb:body written as MIME encoders write base64: lines of 76, each ended by a newline."""
    import base64

    return re.sub(
        rb'<mb:body encoding="base64">([^<]*)</mb:body>',
        lambda m: (
            b'<mb:body encoding="base64">'
            + base64.encodebytes(base64.b64decode(m[1]))
            + b"</mb:body>"
        ),
        body,
    )


def _xml_drop_header(body: bytes) -> bytes:
    return re.sub(rb'<mb:header name="ETag">[^<]*</mb:header>', b"", body)


def _xml_status_text(body: bytes) -> bytes:
    return body.replace(b"HTTP/1.1 404", b"HTTP/1.1 410")


def _xml_abort_extra_header(body: bytes) -> bytes:
    return re.sub(
        rb"(<mb:outcome>aborted</mb:outcome>.*?)(<mb:body)",
        rb'\1<mb:header name="Retry-After">1</mb:header>\2',
        body,
        flags=re.S,
    )


def _xml_abort_index(body: bytes) -> bytes:
    def shift(m: re.Match[bytes]) -> bytes:
        return re.sub(
            rb"<mb:index>(\d+)</mb:index>",
            lambda n: b"<mb:index>%d</mb:index>" % (int(n[1]) + 1),
            m[0],
        )

    return re.sub(
        rb"<D:response>(?:(?!</D:response>).)*aborted(?:(?!</D:response>).)*</D:response>",
        shift,
        body,
        flags=re.S,
    )


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


def _xml_skipped_status(body: bytes) -> bytes:
    """Give each skipped entry a DAV:status of 424, as if it had run and failed."""
    m = re.search(rb'xmlns:([A-Za-z0-9_-]+)="DAV:"', body)
    prefix = m[1] if m else b"D"
    status = b"<%s:status>HTTP/1.1 424 Failed Dependency</%s:status>" % (prefix, prefix)
    return re.sub(rb"(<[A-Za-z0-9_:-]*outcome>skipped</)", status + rb"\1", body)


def _xml_rolled_back_status(body: bytes) -> bytes:
    """Drop DAV:status from every response with an outcome: rolled-back parts lose theirs."""
    return re.sub(
        rb"<([A-Za-z0-9_-]+:)?status>[^<]*</\1?status>((?:(?!</[A-Za-z0-9_:-]*response>).)*"
        rb"outcome>rolled-back<)",
        rb"\2",
        body,
        flags=re.S,
    )


_TEXTUAL = re.compile(r"(?i)^(text/|[^;]*(json|xml))")


def _base64_by_content_type(responses: list[dict[str, Any]]) -> None:
    """Choose the body member by the part's Content-Type, not by the octets."""
    import base64

    for entry in responses:
        types = [v for n, v in entry.get("headers", []) if str(n).lower() == "content-type"]
        if (types and _TEXTUAL.match(types[0])) or "body" not in entry:
            continue
        entry["body_base64"] = base64.b64encode(entry.pop("body").encode()).decode()


def _empty_body_dropped(responses: list[dict[str, Any]]) -> None:
    for entry in responses:
        if entry.get("body") == "":
            del entry["body"]


def _document_502_when_all_5xx(req: RelayRequest, resp: RelayResponse) -> None:
    """A 207 form answered 502 when every part that ran answered 5xx."""
    if not is_batch(req) or resp.status != 207:
        return
    ctype = resp.get("Content-Type") or ""
    if "json" in ctype:
        statuses = [e.get("status") for e in json.loads(resp.body).get("responses", [])]
    else:
        statuses = [int(c) for c in re.findall(rb"HTTP/1\.1 (\d{3})", resp.body)]
    ran = [s for s in statuses if isinstance(s, int)]
    if ran and all(s >= 500 for s in ran):
        resp.status = 502


def _location_absolute(responses: list[dict[str, Any]]) -> None:
    """Write each path-absolute Location as an absolute URI, as if resolved for the client."""
    for entry in responses:
        entry["headers"] = [
            [
                n,
                f"http://example.test{v}"
                if str(n).lower() == "location" and str(v)[:1] == "/"
                else v,
            ]
            for n, v in entry.get("headers", [])
        ]


#: Bodies shorter than this are written as text whatever their octets.
_SHORT_BODY = 64


def _short_binary_as_text(responses: list[dict[str, Any]]) -> None:
    """Write short invalid UTF-8 bodies in `body`, invalid octets replaced by U+FFFD."""
    import base64

    for entry in responses:
        data = base64.b64decode(entry.get("body_base64") or "")
        if "body_base64" in entry and len(data) < _SHORT_BODY:
            del entry["body_base64"]
            entry["body"] = data.decode("utf-8", errors="replace")


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


def _etag_weakened(responses: list[dict[str, Any]]) -> None:
    """Write each strong ETag as weak, as if the document's octets could not promise it."""
    for entry in responses:
        entry["headers"] = [
            [n, f"W/{v}" if str(n).lower() == "etag" and str(v).startswith('"') else v]
            for n, v in entry.get("headers", [])
        ]


#: The XML writer's buffer: a body longer than this is cut to it.
_XML_BUFFER = 65_535


def _xml_body_cut(body: bytes) -> bytes:
    """Cut each XML body to one 64 KiB buffer, as a writer that encodes from one read would."""
    import base64

    def cut(m: re.Match[bytes]) -> bytes:
        data = base64.b64decode(m[1])[:_XML_BUFFER]
        return b'<mb:body encoding="base64">' + base64.b64encode(data) + b"</mb:body>"

    return re.sub(rb'<mb:body encoding="base64">([^<]*)</mb:body>', cut, body)


def _closes_after(pred: Callable[[RelayRequest, RelayResponse], bool]) -> RespEdit:
    """A server that ends its connection after the answers `pred` picks out."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        if pred(req, resp):
            resp.close = True

    return edit


def _outcome_in(outcome: bytes) -> Callable[[RelayRequest, RelayResponse], bool]:
    """A multipart answer with a part whose Batch-Outcome is `outcome`."""
    rx = re.compile(rb"(?im)^batch-outcome:[ \t]*" + outcome + rb"[ \t]*\r?$")
    return lambda req, resp: (
        (resp.get("Content-Type") or "").startswith("multipart/") and bool(rx.search(resp.body))
    )


def _status_on(outcome: str, status: int) -> Callable[[dict[str, Any]], None]:
    """A JSON form that gives the entries of `outcome` a status where the schema asks for null
    (a skipped part did not run; the abort report carries its problem's status)."""

    def edit(doc: dict[str, Any]) -> None:
        for entry in doc.get("responses") or []:
            if entry.get("outcome") == outcome:
                entry["status"] = status

    return edit


class _TypeReadBack:
    """A sandbox that answers a member with the Content-Type it was written with, which the
    spec allows, behind a 207 form that mishandles the obs-text octets of that field, which it
    does not: `broken` "json" decodes them as UTF-8 (each becomes U+FFFD), "xml" writes each
    as the two characters of its UTF-8 form. The reference server answers its own
    Content-Type, so the relay plays the sandbox's part."""

    def __init__(self, broken: str) -> None:
        self.broken = broken
        self.written: str | None = None

    def request(self, req: RelayRequest) -> None:
        value = req.get("Content-Type") or ""
        if req.method in ("POST", "PUT") and not is_batch(req) and re.search("[\x80-\xff]", value):
            self.written = value

    def response(self, req: RelayRequest, resp: RelayResponse) -> None:
        if self.written is not None and is_batch(req):
            map_parts(self._parts)(req, resp)
            map_json(self._json)(req, resp)
            map_xml(self._xml)(req, resp)

    def _parts(self, parts: list[Part]) -> list[Part]:
        assert self.written is not None
        return [
            (set_field(f, "Content-Type", self.written), b)
            if field_of(f, "Content-Type") == "application/json"
            else (f, b)
            for f, b in parts
        ]

    def _json(self, doc: dict[str, Any]) -> None:
        assert self.written is not None
        decoded = self.written
        if self.broken == "json":
            decoded = re.sub("[\x80-\xff]", "\ufffd", decoded)
        for entry in doc.get("responses") or []:
            entry["headers"] = [
                [n, decoded if n.lower() == "content-type" and v == "application/json" else v]
                for n, v in entry.get("headers") or []
            ]

    def _xml(self, body: bytes) -> bytes:
        assert self.written is not None
        value = escape(self.written).encode("utf-8")
        if self.broken == "xml":
            value = value.decode("latin-1").encode("utf-8")
        return body.replace(
            b'<mb:header name="Content-Type">application/json</mb:header>',
            b'<mb:header name="Content-Type">' + value + b"</mb:header>",
        )


_json_type_read_back = _TypeReadBack("json")
_xml_type_read_back = _TypeReadBack("xml")
_PIPE = ("pipelining-behind-every-answer",)


def _multipart_207_when_named(req: RelayRequest, resp: RelayResponse) -> None:
    """A multipart answer given 207 because Accept names a 207 form, whatever its quality."""
    accept = (req.get("Accept") or "").lower()
    named = "xml" in accept or "multistatus" in accept
    if is_batch(req) and named and (resp.get("Content-Type") or "").startswith("multipart/"):
        resp.status = 207


def _xml_responses(fn: Callable[[bytes], bytes]) -> Callable[[bytes], bytes]:
    """Apply `fn` to each DAV:response element of an XML form."""
    return lambda body: re.sub(
        rb"<D:response>.*?</D:response>", lambda m: fn(m[0]), body, flags=re.S
    )


def _xml_skipped_without_href(response: bytes) -> bytes:
    if b"<mb:outcome>skipped</mb:outcome>" not in response:
        return response
    return re.sub(rb"<D:href>[^<]*</D:href>", b"", response)


def _xml_href_as_written(response: bytes) -> bytes:
    cid = re.search(rb"<mb:content-id>([^<]*)</mb:content-id>", response)
    if cid is None:
        return response
    return re.sub(rb"<D:href>[^<]*</D:href>", b"<D:href>" + cid[1] + b"</D:href>", response)


def _xml_status_trimmed(body: bytes) -> bytes:
    """A code with no registered reason phrase written `HTTP/1.1 299`, without the space (the
    reference server writes a generic phrase, `Status 299`, which the plant removes)."""
    return re.sub(
        rb"<D:status>(HTTP/1\.1 ([0-9]{3})) (?:Status \2)?</D:status>",
        rb"<D:status>\1</D:status>",
        body,
    )


def _skipped_without_target(items: list[dict[str, Any]]) -> None:
    for item in items:
        if item.get("outcome") == "skipped":
            item["href"] = item["content_id"] = None


def _href_as_written(items: list[dict[str, Any]]) -> None:
    for item in items:
        if item.get("outcome") != "aborted":
            item["href"] = item.get("content_id")


P = Mutation
_JSON = ("multistatus-json",)
_XML = ("multistatus-xml",)
PLANTS: tuple[Mutation, ...] = (
    # MB-MULTI-1: multipart/mixed without Accept or when Accept ranks it at least as high.
    P(
        "json-when-accept-absent",
        "MB-MULTI-1 no Accept",
        ("accept-default-multipart",),
        on_request=_on_accept(lambda a: a or "application/vnd.mixbatch.multistatus+json"),
    ),
    P(
        "first-listed-type-wins",
        "MB-MULTI-1 quality values",
        ("accept-quality-values",),
        on_request=_on_accept(_first_listed),
    ),
    P(
        "zero-quality-ignored",
        "MB-MULTI-1 q=0",
        ("accept-quality-values",),
        on_request=_on_accept(_q_dropped),
    ),
    P(
        "structured-suffix-matched",
        "MB-MULTI-1 application/json admitting the JSON form",
        ("accept-quality-values",),
        on_request=_on_whole_accept(_suffix_matched),
    ),
    P(
        "refused-wildcard-outranks-specific",
        "MB-MULTI-1 a range refused with q=0 over a more specific one",
        ("accept-quality-values",),
        on_request=_on_whole_accept(_wildcard_zero_excludes_all),
    ),
    # MB-MULTI-3: XML, one response per part, in order, each with its index.
    P("xml-index-off-by-one", "MB-MULTI-3 index", _XML, on_response=map_xml(_xml_index)),
    P("xml-responses-reversed", "MB-MULTI-3 order", _XML, on_response=map_xml(_xml_reverse)),
    # MB-MULTI-4: JSON valid by schema, one entry per part, in order.
    P(
        "json-index-off-by-one",
        "MB-MULTI-4 index",
        _JSON,
        on_response=map_json(_entries(_shift_index)),
    ),
    P(
        "json-entry-dropped",
        "MB-MULTI-4 count",
        _JSON,
        on_response=map_json(_entries(_drop_last)),
    ),
    P(
        "json-rolled-back-index-off",
        "MB-MULTI-4 a rolled-back entry's index",
        ("atomic-failure-outcomes",),
        on_response=map_json(_entries(_index_off_when("rolled-back"))),
    ),
    P(
        "xml-skipped-index-off",
        "MB-MULTI-6 a skipped response's mb:index",
        ("error-policy-stop",),
        on_response=map_xml(_xml_responses(_xml_skipped_index_off)),
    ),
    P(
        "json-summary-400-as-ok",
        "MB-MULTI-4 a summary counting 400 as ok",
        ("multistatus-json-summary",),
        on_response=map_json(_summary_recounted(401, rolled_back_ok=False)),
    ),
    P(
        "json-summary-rolled-back-by-status",
        "MB-MULTI-4 a summary counting rolled-back parts by their status",
        ("atomic-failure-outcomes",),
        on_response=map_json(_summary_recounted(400, rolled_back_ok=True)),
    ),
    P(
        "json-summary-miscounted",
        "MB-MULTI-4 summary",
        ("multistatus-json-summary",),
        on_response=map_json(_summary_count),
    ),
    P(
        "json-content-id-bracketed",
        "MB-MULTI-4 content_id",
        ("multistatus-content-ids",),
        on_response=map_json(_entries(_content_id_bracketed)),
    ),
    # MB-MULTI-5: the same results in every form.
    P(
        "json-status-differs",
        "MB-MULTI-5 JSON status",
        ("representations-equivalent",),
        on_response=map_json(_entries(_status_off)),
    ),
    P(
        "xml-field-dropped",
        "MB-MULTI-5 XML fields",
        ("representations-equivalent",),
        on_response=map_xml(_xml_drop_header),
    ),
    # MB-MULTI-6: the XML form's elements and namespace.
    P("xml-wrong-namespace", "MB-MULTI-6 namespace", _XML, on_response=map_xml(_xml_namespace)),
    P(
        "xml-body-not-base64",
        "MB-MULTI-6 body encoding",
        _XML,
        on_response=map_xml(_xml_plain_body),
    ),
    P(
        "xml-body-mime-base64",
        "MB-MULTI-6 body base64 with line breaks",
        _XML,
        on_response=map_xml(_xml_body_mime_base64),
    ),
    P("xml-status-differs", "MB-MULTI-6 DAV:status", _XML, on_response=map_xml(_xml_status_text)),
    P(
        "xml-content-id-bracketed",
        "MB-MULTI-6 content-id",
        ("multistatus-content-ids",),
        on_response=map_xml(_xml_cid),
    ),
    # MB-MULTI-7: exactly one body member, chosen by UTF-8 validity.
    P(
        "json-both-body-members",
        "MB-MULTI-7 both",
        _JSON,
        on_response=map_json(_entries(_both_bodies)),
    ),
    P(
        "json-text-as-base64",
        "MB-MULTI-7 base64 for text",
        _JSON,
        on_response=map_json(_entries(_base64_text)),
    ),
    # MB-MULTI-10: Vary: Accept where more than one form is offered.
    P(
        "vary-dropped-on-batch",
        "MB-MULTI-10 multipart",
        ("top-level-fields",),
        caught_by=("WARN", "FAIL"),
        on_response=map_response(is_batch, lambda r: r.set("Vary", None)),
    ),
    P(
        "vary-names-accept-encoding",
        "MB-MULTI-10 Accept-Encoding for Accept",
        ("top-level-fields",),
        caught_by=("WARN", "FAIL"),
        on_response=map_response(is_batch, lambda r: r.set("Vary", "Accept-Encoding")),
    ),
    P(
        "vary-dropped-on-207",
        "MB-MULTI-10 207 forms",
        ("vary-in-every-form",),
        caught_by=("WARN", "FAIL"),
        on_response=lambda q, r: r.set("Vary", None) if r.status == 207 else None,
    ),
    # MB-MULTI-2: the status follows the form chosen, not whether Accept names a 207 form.
    P(
        "multipart-207-when-accept-names-207-form",
        "MB-MULTI-2 a 207 form named below multipart/mixed",
        ("accept-quality-values",),
        on_response=_multipart_207_when_named,
    ),
    # MB-MULTI-6: every part's href, and the status line's space before an empty phrase.
    P(
        "xml-skipped-without-href",
        "MB-MULTI-6 no DAV:href on a skipped part",
        ("multistatus-skipped-entries",),
        on_response=map_xml(_xml_responses(_xml_skipped_without_href)),
    ),
    P(
        "xml-href-as-written",
        "MB-MULTI-6 DAV:href as the Content-Id wrote it",
        ("multistatus-content-ids",),
        on_response=map_xml(_xml_responses(_xml_href_as_written)),
    ),
    P(
        "xml-status-trimmed",
        "MB-MULTI-6 DAV:status without the space before an empty phrase",
        ("multistatus-status-codes",),
        on_response=map_xml(_xml_status_trimmed),
    ),
    # MB-MULTI-5: a skipped part's Content-Id echo in the JSON form.
    P(
        "json-skipped-without-content-id",
        "MB-MULTI-5 a skipped entry's content_id null",
        ("multistatus-skipped-entries",),
        on_response=map_json(_entries(_skipped_without_target)),
    ),
    P(
        "json-href-as-written",
        "MB-MULTI-4 href as the Content-Id wrote it",
        ("multistatus-content-ids",),
        on_response=map_json(_entries(_href_as_written)),
    ),
    # MB-MULTI-12: the abort report in the 207 forms.
    P(
        "json-abort-index-off",
        "MB-MULTI-12 JSON index",
        ("batch-abort-in-every-form",),
        on_response=map_json(_entries(_abort_index)),
    ),
    P(
        "json-abort-extra-field",
        "MB-MULTI-12 JSON fields",
        ("batch-abort-in-every-form",),
        on_response=map_json(_entries(_abort_extra_header)),
    ),
    P(
        "xml-abort-index-off",
        "MB-MULTI-12 XML index",
        ("batch-abort-in-every-form",),
        on_response=map_xml(_xml_abort_index),
    ),
    P(
        "xml-abort-extra-field",
        "MB-MULTI-12 XML fields",
        ("batch-abort-in-every-form",),
        on_response=map_xml(_xml_abort_extra_header),
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
    # MB-MULTI-6: DAV:status only for a part that ran; MB-MULTI-7: an empty body is "body": "".
    P(
        "xml-skipped-entry-status",
        "MB-MULTI-6 skipped status",
        ("multistatus-skipped-entries",),
        on_response=map_xml(_xml_skipped_status),
    ),
    P(
        "xml-rolled-back-without-status",
        "MB-MULTI-6 rolled-back status",
        ("atomic-failure-outcomes",),
        on_response=map_xml(_xml_rolled_back_status),
    ),
    P(
        "json-base64-by-content-type",
        "MB-MULTI-7 by Content-Type",
        ("multistatus-json-body-members",),
        on_response=map_json(_entries(_base64_by_content_type)),
    ),
    P(
        "json-empty-body-dropped",
        "MB-MULTI-7 empty body",
        ("multistatus-skipped-entries",),
        on_response=map_json(_entries(_empty_body_dropped)),
    ),
    P(
        "json-short-binary-as-text",
        "MB-MULTI-7 short invalid octets as text",
        ("multistatus-json-body-members",),
        on_response=map_json(_entries(_short_binary_as_text)),
    ),
    # MB-MULTI-5: the same header fields, as the sub-response wrote them, in every form.
    P(
        "xml-body-cut-at-64k",
        "MB-MULTI-5 XML bodies over 64 KiB",
        ("random-bodies-every-form",),
        on_response=map_xml(_xml_body_cut),
    ),
    P(
        "json-etag-weakened",
        "MB-MULTI-5 JSON ETag rewritten",
        ("representations-equivalent",),
        on_response=map_json(_entries(_etag_weakened)),
    ),
    P(
        "json-location-absolute",
        "MB-MULTI-5 JSON Location rewritten",
        ("created-fields-every-form",),
        on_response=map_json(_entries(_location_absolute)),
    ),
    # MB-STATUS-5: the batch is processed whatever its parts answered, in every form.
    P(
        "document-502-when-all-parts-5xx",
        "MB-STATUS-5 207 forms",
        ("batch-status-whatever-parts",),
        on_response=_document_502_when_all_5xx,
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
        "MB-METHOD-3 Content-Length 0",
        ("collection-get-with-content",),
        on_request=_zero_length_as_content,
    ),
    # MB-PIPE-1: a request pipelined behind any kind of batch answer is answered.
    P(
        "207-form-closes-connection",
        "MB-PIPE-1 closed after a 207 form",
        _PIPE,
        on_response=_closes_after(lambda req, resp: resp.status == 207),
    ),
    P(
        "skipped-parts-close-connection",
        "MB-PIPE-1 closed after skipped parts",
        _PIPE,
        on_response=_closes_after(_outcome_in(b"skipped")),
    ),
    P(
        "abort-closes-connection",
        "MB-PIPE-1 closed after an abort",
        _PIPE,
        on_response=_closes_after(_outcome_in(b"aborted")),
    ),
    P(
        "refused-batch-closes-connection",
        "MB-PIPE-1 closed after a refused batch",
        _PIPE,
        on_response=_closes_after(lambda req, resp: req.method == "POST" and resp.status >= 400),
    ),
    P(
        "endpoint-head-closes-connection",
        "MB-PIPE-1 closed after a HEAD",
        _PIPE,
        on_response=_closes_after(lambda req, resp: req.method == "HEAD"),
    ),
    # MB-MULTI-5: field values map octet to character (ISO-8859-1) in every form.
    # MB-MULTI-5: field values map octet to character (ISO-8859-1) in every form.
    P(
        "json-read-back-type-utf8-decoded",
        "MB-MULTI-5 a stored type's obs-text octets in JSON",
        ("field-octets-every-form",),
        on_request=_json_type_read_back.request,
        on_response=_json_type_read_back.response,
    ),
    P(
        "xml-read-back-type-utf8-encoded",
        "MB-MULTI-5 a stored type's obs-text octets in XML",
        ("field-octets-every-form",),
        on_request=_xml_type_read_back.request,
        on_response=_xml_type_read_back.response,
    ),
    # MB-MULTI-4: the JSON form validates against its schema, which ties status to null for
    # the parts that did not run.
    P(
        "json-aborted-entry-with-status",
        "MB-MULTI-4 a status on the abort report",
        ("batch-abort-in-multistatus", "batch-abort-in-every-form"),
        on_response=map_json(_status_on("aborted", 503)),
    ),
    P(
        "json-skipped-entry-with-status",
        "MB-MULTI-4 a status on a skipped entry",
        ("multistatus-skipped-entries",),
        on_response=map_json(_status_on("skipped", 424)),
    ),
)
