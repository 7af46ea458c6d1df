"""Write the byte-exact multipart vectors of spec/examples/ from the readable definitions below.

Theory of operation: a vector is built by ``Wire``, a writer that appends bytes exactly as
spelled here (every CRLF, bare LF, bare CR and binary octet is explicit) and records offsets
at the moment it writes them. A valid vector records each part it writes, so the expected
result sits beside the bytes that produce it. An invalid vector records where its fault is
written, so every ``byte_offset`` is exact by construction, following the convention stated in
spec/schemas/vector.schema.json:

* a fault on a delimiter line: the offset of the line's first "-" (the CRLF before it is not
  part of the line); the line, the close delimiter included, belongs to the part it opens or
  would open, whose index is the number of parts before it;
* a fault in one header field line (syntax, bare LF/CR ending it, forbidden or repeated
  field, bad value): the offset of the line's first byte;
* a fault of a header section as a whole (a missing field, a limit on the section or the
  part): the offset of the section's first byte;
* a Content-Length mismatch: the offset of the Content-Length field line;
* too many parts: the delimiter line that opens the first part over the limit;
* a missing close delimiter: the length of the content (the end of input), in the last part;
* null where the fault is not in the content (the top-level Content-Type, a batch-size limit).

The committed .http/.json files are the source of truth that tests read;
tests/spec/test_vectors_data.py asserts that this script reproduces them byte for byte.
Usage: ``python tools/make_vectors.py`` rewrites them, ``--check`` only compares.
"""

from __future__ import annotations

import base64
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

EXAMPLES = Path(__file__).resolve().parent.parent / "spec" / "examples"
CRLF = "\r\n"
AUTHORITY = "example.test"
Fields = Iterable[tuple[str, str]]
Json = dict[str, Any]


def resolve(base: str, reference: str) -> str:
    """The origin-form target of ``reference`` resolved against ``base`` (RFC 3986 §5.2)."""
    parts = urlsplit(urljoin(f"http://{AUTHORITY}{base}", reference))
    return parts.path + (f"?{parts.query}" if parts.query else "")


def body_member(body: bytes) -> Json:
    """``body_text`` when the body is printable UTF-8 text, ``body_base64`` otherwise."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is not None and all(c.isprintable() or c in "\t\r\n" for c in text):
        return {"body_text": text, "body_length": len(body)}
    return {"body_base64": base64.b64encode(body).decode("ascii"), "body_length": len(body)}


def to_json(value: Any, indent: str = "") -> str:
    """JSON with two-space indentation, keeping a list of scalars (a field pair) on one line."""
    inner = indent + "  "
    if isinstance(value, dict) and value:
        items = [f"{inner}{json.dumps(k)}: {to_json(v, inner)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{indent}}}"
    if isinstance(value, list) and value:
        if all(not isinstance(v, dict | list) for v in value):
            flat = json.dumps(value, ensure_ascii=False)
            if len(flat) + len(inner) <= 100:
                return flat
        items = [inner + to_json(v, inner) for v in value]
        return "[\n" + ",\n".join(items) + f"\n{indent}]"
    return json.dumps(value, ensure_ascii=False)


class Wire:
    """Appends the octets of one multipart body and remembers parts and the fault offset."""

    def __init__(self, boundary: str, base: str = "/batch") -> None:
        self.boundary = boundary
        self.base = base
        self.data = bytearray()
        self.parts: list[Json] = []
        self.fault: int | None = None
        self.fault_part: int | None = None
        self.opened = 0  # delimiter lines written that open a part

    def raw(self, chunk: bytes | str) -> Wire:
        self.data += chunk.encode("utf-8") if isinstance(chunk, str) else chunk
        return self

    def here(self) -> int:
        return len(self.data)

    def mark(self, part: int | None = None) -> Wire:
        """Record the current offset as the fault; ``part`` defaults to the open part."""
        self.fault = self.here()
        self.fault_part = self.opened - 1 if part is None else part
        return self

    def delimiter(self, padding: str = "", eol: str = CRLF, fault: bool = False) -> Wire:
        if self.data:
            self.raw(CRLF)
        self.opened += 1
        if fault:
            self.mark()
        return self.raw(f"--{self.boundary}{padding}{eol}")

    def close(self, padding: str = "", eol: str = CRLF, fault: bool = False) -> Wire:
        self.raw(CRLF)
        if fault:
            self.mark(part=self.opened)  # the index the line would open, as for any delimiter
        return self.raw(f"--{self.boundary}--{padding}{eol}")

    def line(self, text: str, eol: str = CRLF, fault: bool = False) -> Wire:
        if fault:
            self.mark()
        return self.raw(text + eol)

    def request(
        self,
        method: str,
        target: str,
        fields: Fields = (),
        body: bytes | str = b"",
        *,
        length: bool = False,
        names: tuple[str, str] = ("Http-Method", "Content-Id"),
    ) -> Wire:
        """One well-formed request part; its expectation is recorded."""
        body = body.encode("utf-8") if isinstance(body, str) else body
        fields = list(fields) + ([("Content-Length", str(len(body)))] if length else [])
        self.delimiter()
        self.line(f"{names[0]}: {method}").line(f"{names[1]}: <{target}>")
        for name, value in fields:
            self.line(f"{name}: {value}")
        self.raw(CRLF).raw(body)
        self.parts.append(
            {
                "method": method,
                "target": target,
                "resolved_target": resolve(self.base, target),
                "fields": [list(f) for f in fields],
                **body_member(body),
            }
        )
        return self

    def response(
        self,
        status: int | None,
        content_id: str | None,
        fields: Fields = (),
        body: bytes | str = b"",
        *,
        outcome: str | None = None,
        length: bool = False,
    ) -> Wire:
        """One well-formed response part; its expectation is recorded."""
        body = body.encode("utf-8") if isinstance(body, str) else body
        fields = list(fields) + ([("Content-Length", str(len(body)))] if length else [])
        self.delimiter()
        if status is not None:
            self.line(f"Http-Status-Code: {status}")
        if content_id is not None:
            self.line(f"Content-Id: <{content_id}>")
        if outcome is not None:
            self.line(f"Batch-Outcome: {outcome}")
        for name, value in fields:
            self.line(f"{name}: {value}")
        self.raw(CRLF).raw(body)
        self.parts.append(
            {
                "status": status,
                "outcome": outcome,
                "content_id": content_id,
                "fields": [list(f) for f in fields],
                **body_member(body),
            }
        )
        return self


VECTORS: list[tuple[str, Json, bytes]] = []


def content_type(boundary: str) -> str:
    """The top-level Content-Type, quoting the boundary when it is not an RFC 9110 token."""
    tchars = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    quoted = boundary if all(c in tchars for c in boundary) else f'"{boundary}"'
    return f"multipart/mixed; boundary={quoted}"


def emit(
    name: str,
    description: str,
    requirements: list[str],
    wire: Wire,
    *,
    direction: str = "request",
    error: Json | None = None,
    context: Json | None = None,
    ctype: str | None = None,
    limits: Json | None = None,
) -> None:
    """Register one vector: its JSON expectation and its bytes."""
    if context is None:
        context = (
            {"method": "POST", "scheme": "http", "authority": AUTHORITY, "target": wire.base}
            if direction == "request"
            else {"status": 200}
        )
    doc: Json = {
        "id": f"{name}.{direction}",
        "description": description,
        "direction": direction,
        "content_type": ctype or content_type(wire.boundary),
        "context": context,
        "requirements": requirements,
        "valid": error is None,
    }
    if limits:
        doc["limits"] = limits
    if error is None:
        doc["expect"] = {"parts": wire.parts}
    else:
        doc["error"] = error
    VECTORS.append((doc["id"], doc, bytes(wire.data)))


def fail(
    name: str,
    description: str,
    requirements: list[str],
    wire: Wire,
    requirement: str,
    title: str,
    *,
    status: int | None = 400,
    direction: str = "request",
    detected_by: str = "codec",
    at_end: bool = False,
    parts_complete: int | None = None,
    **kwargs: Any,
) -> None:
    """Register an invalid vector whose fault offset and part index ``wire`` recorded."""
    offset, part = wire.fault, wire.fault_part
    if at_end:  # the content ends inside the last part, which stays unterminated
        offset, part = wire.here(), wire.opened - 1
    error: Json = {
        "blame": "peer",
        "detected_by": detected_by,
        "requirement": requirement,
        "status": None if direction == "response" else status,
        "part_index": part,
        "byte_offset": offset,
        "title": title,
    }
    if parts_complete is not None:
        error["parts_complete"] = parts_complete
    reqs = requirements if requirement in requirements else [requirement, *requirements]
    emit(name, description, reqs, wire, direction=direction, error=error, **kwargs)


def header_fault(
    name: str,
    description: str,
    requirement: str,
    lines: list[str],
    title: str,
    *,
    also: tuple[str, ...] = (),
) -> None:
    """A two-part batch whose second part has header ``lines``; a line starting with "!" is
    the fault, and with no such line the fault is the section as a whole (its first byte)."""
    w = Wire("hdr-fault-7Kq2Zp").request("GET", "books/1").delimiter().mark()
    for text in lines:
        w.line(text.removeprefix("!"), fault=text.startswith("!"))
    fail(name, description, [requirement, *also], w.raw(CRLF).close(), requirement, title)


# The definitions below are tables in code: one vector per statement, so the formatter leaves
# them alone and each vector stays on the lines that build it.
# fmt: off

# --- Thesis examples (ch. 4.2), re-expressed per the spec -------------------------------------

THESIS_ENTITY = "<E><!-- … --></E>"
THESIS_LIST = '<ArrayOfE>\r\n  <E id="1"/>\r\n  <E id="15"/>\r\n</ArrayOfE>'
IMS = "Wed, 17 Sep 2014 21:24:00 GMT"
LAST_MODIFIED = "Thu, 18 Sep 2014 18:47:01 GMT"


def thesis() -> None:
    w = (
        Wire("p7f9Axy2")
        .request("POST", "e/", [("Content-Type", "text/xml")], THESIS_ENTITY)
        .request("GET", "e/")
        .close()
    )
    emit("thesis-post-then-get", "The thesis' POST-then-GET batch gains an explicit Content-Id on its POST part, which targets /e/ like the GET.", ["MB-PART-1", "MB-PART-3", "MB-PART-5", "MB-PART-8", "MB-METHOD-1"], w)
    w = (
        Wire("ff11Xd9b")
        .response(201, "e/", [("Location", "/e/15")])
        .response(200, "e/", [("Content-Type", "text/xml")], THESIS_LIST)
        .close()
    )
    emit("thesis-post-then-get", "The answer to the POST-then-GET batch gives the created URI in Location, where the thesis put it in Content-Id, and echoes each Content-Id.", ["MB-RESP-1", "MB-RESP-2", "MB-RESP-3", "MB-RESP-7"], w, direction="response")
    w = Wire("abcd1234")
    for target in ("e/1", "e/2"):
        w.request("GET", target, [("If-Modified-Since", IMS)])
    emit("thesis-conditional-get", "The thesis' conditional GETs carry If-Modified-Since as a valid IMF-fixdate, because its 'GMT+1' dates are not HTTP dates; 22:24 GMT+1 is 21:24 GMT.", ["MB-PROC-9", "MB-PART-8"], w.close())
    w = (
        Wire("efgh5678")
        .response(304, "e/1")
        .response(200, "e/2", [("Content-Type", "text/xml"), ("Last-Modified", LAST_MODIFIED)],
                  '<E id="2"><!-- … --></E>')
        .close()
    )
    emit("thesis-conditional-get", "The conditional GETs are answered 304 for an unchanged entity and 200 with Last-Modified as an IMF-fixdate for a changed one.", ["MB-PROC-9", "MB-PROC-10", "MB-RESP-2"], w, direction="response")
    w = Wire("gc0pJq0M")
    for n in (1, 2):
        w.response(200, f"e/{n}", [("Content-Type", "text/xml")], f'<E id="{n}"><!-- … --></E>')
    emit("thesis-two-entities", "The thesis' two-entity response keeps its boundary gc0pJq0M and gives each entity its own status, Content-Id and Content-Type.", ["MB-RESP-2", "MB-RESP-3", "MB-RESP-4"], w.close(), direction="response")
    members = [(1, "Mythical Man-Month"), (2, "Structure and Interpretation")]
    w = Wire("books-collection-3f9A")
    for n, title in members:
        body = json.dumps({"id": n, "title": title})
        w.response(200, f"/books/{n}", [("Content-Type", "application/json"), ("ETag", f'"b{n}-v7"')],
                   body, length=True)
    request = {"method": "GET", "target": "/books", "fields": [["Accept", "multipart/mixed"]]}
    context = {"status": 200, "fields": [["ETag", '"books-v42"'], ["Vary", "Accept"]], "request": request}
    emit("collection-get-books", "A GET of the /books collection with Accept multipart/mixed answers each member as one part under an aggregate ETag and Vary: Accept.", ["MB-METHOD-4", "MB-STATUS-7"], w.close(), direction="response", context=context)


# --- Valid requests: framing ------------------------------------------------------------------

BINARY = bytes(range(256)) + b"\r\n--\r\n--not-the-boundary\r\n\r\n" + bytes(range(255, -1, -1))


def valid_framing() -> None:
    emit("single-get", "The smallest useful batch has one GET part with an empty body and ends with the close delimiter.", ["MB-PART-1", "MB-PART-3", "MB-WIRE-7"], Wire("simple-9fQ2xL0pZ3").request("GET", "books/1").close())
    b70 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_'()+,."
    assert len(b70) == 70
    emit("boundary-70-chars", "A boundary of exactly 70 bchars, the RFC 2046 maximum, is accepted.", ["MB-WIRE-3"], Wire(b70).request("GET", "books/1").request("GET", "books/2").close())
    emit("boundary-1-char", "A boundary of one character is accepted, and a body holding '-b' after other text is plain data.", ["MB-WIRE-3"], Wire("b").request("PUT", "notes/1", [("Content-Type", "text/plain")], "a-b--b\r\nb--b").close())
    emit("boundary-quoted-specials", "A boundary holding a space, '=' and ':' is sent as a quoted-string parameter and is accepted.", ["MB-WIRE-1", "MB-WIRE-3"], Wire("batch =:part 1").request("GET", "books/1").close())
    w = Wire("pre-epi-Q8w3Lm2v").raw("This preamble is ignored.\r\nSo is this line.")
    w.request("GET", "books/1").close().raw("This epilogue is ignored too.\r\n")
    emit("preamble-and-epilogue", "A receiver ignores a preamble before the first delimiter and an epilogue after the close delimiter.", ["MB-WIRE-9"], w)
    w = Wire("pre-epi-lf-Z4k9Rt").raw("Preamble line one\nline two\r\n--pre-epi-lf not the boundary")
    w.request("GET", "books/1").close().raw("epilogue\nwith\nbare LF\n")
    emit("preamble-and-epilogue-with-bare-lf", "Bare LF in the preamble and the epilogue is accepted, because both are ignored and neither is a delimiter line nor a header section.", ["MB-WIRE-9", "MB-WIRE-8"], w)
    w = Wire("padding-Yh3Kd8Wq")
    w.delimiter(padding=" \t").line("Http-Method: GET").line("Content-Id: <books/1>").raw(CRLF)
    w.delimiter(padding="\t").line("Http-Method: GET").line("Content-Id: <books/2>").raw(CRLF)
    w.close(padding="  ")
    w.parts = [{"method": "GET", "target": f"books/{n}", "resolved_target": f"/books/{n}",
                "fields": [], "body_text": "", "body_length": 0} for n in (1, 2)]
    emit("transport-padding", "Spaces and tabs after a boundary delimiter and after the close delimiter are transport padding, which a receiver accepts.", ["MB-WIRE-11"], w)
    emit("binary-body-all-octets", "A body holding every octet 0x00 to 0xFF, CRLF and '--' runs is carried exactly, with an exact Content-Length.", ["MB-PART-8", "MB-WIRE-6", "MB-WIRE-16"], Wire("bin-octets-Vx7Rk2Pq").request("PUT", "blobs/1", [("Content-Type", "application/octet-stream")], BINARY, length=True).close())
    emit("binary-body-without-content-length", "A binary body with CRLF and '--' but without the delimiter is carried exactly even without Content-Length.", ["MB-PART-8", "MB-WIRE-6"], Wire("bin-nolen-Hs5Tn1Cw").request("PUT", "blobs/2", [("Content-Type", "application/octet-stream")], BINARY).close())
    w = Wire("empty-bodies-Rk3Ww9").request("GET", "books/1").request("GET", "books/2", length=True)
    w.request("DELETE", "books/3").close()
    emit("empty-bodies", "Parts with empty bodies, with and without Content-Length: 0, have zero-length content.", ["MB-PART-8", "MB-WIRE-16"], w)
    emit("bare-lf-in-body", "Bare LF inside a part body is body data, not a framing fault, and is kept exactly.", ["MB-WIRE-8", "MB-PART-8"], Wire("lf-body-Pq8Xz3Nd").request("POST", "notes", [("Content-Type", "text/plain")], "line one\nline two\n\nline four\n").close())
    w = Wire("lf-delim-Jt4Mv7Bc").delimiter().line("Http-Method: POST").line("Content-Id: <notes>")
    w.raw(CRLF).raw("before\n").mark(part=1).raw("--lf-delim-Jt4Mv7Bc\nafter").close()
    fail("body-contains-lf-delimiter", "A body line equal to the dash-boundary after a bare LF is a delimiter line with a bare LF line break, which is rejected so that no lenient parser sees a part boundary the strict one does not.", ["MB-WIRE-6"], w, "MB-WIRE-8", "Bare LF in a delimiter line")
    w = Wire("no-blank-line-Xb6Rt2")
    for n in (1, 2):
        w.delimiter().line("Http-Method: GET").line(f"Content-Id: <books/{n}>")
    w.close()
    w.parts = [{"method": "GET", "target": f"books/{n}", "resolved_target": f"/books/{n}", "fields": [], "body_text": "", "body_length": 0} for n in (1, 2)]
    emit("part-without-blank-line", "A header section followed directly by the next delimiter, with no blank line, ends a part with an empty body, as the RFC 2046 body-part grammar allows.", ["MB-PART-8", "MB-WIRE-7"], w)
    body = "before\r--cr-body-Kw8Dn3Rf\r\nafter"
    emit("body-bare-cr-before-boundary", "A bare CR followed by the dash-boundary inside a body is content: no line starts after a lone CR, so it is not a delimiter line.", ["MB-WIRE-8", "MB-PART-8"], Wire("cr-body-Kw8Dn3Rf").request("PUT", "notes/1", [("Content-Type", "text/plain")], body).close())
    emit("content-length-exact", "Parts whose Content-Length equals the octets before the next delimiter are accepted.", ["MB-WIRE-15", "MB-WIRE-16", "MB-WIRE-17"], Wire("cl-exact-Fw2Sx8Ny").request("POST", "e/", [("Content-Type", "text/xml")], THESIS_ENTITY, length=True).request("PUT", "notes/1", [("Content-Type", "text/plain")], "ends with CRLF\r\n", length=True).close())
    zeros = [("Content-Type", "text/plain"), ("Content-Length", "000000000000000011")]
    emit("content-length-leading-zeros", "A part whose Content-Length is an 18-digit numeral with leading zeros declares its body's 11 octets and is accepted.", ["MB-WIRE-22", "MB-WIRE-16", "MB-WIRE-17"], Wire("cl-zeros-Qm4Tz7Hb").request("PUT", "notes/1", zeros, "eleven octs").close())


# --- Valid requests: part headers and targets ---------------------------------------------------


def valid_parts() -> None:
    ids = ("books?ids=" + ",".join(str(n) for n in range(1000, 1500)))[:1998]
    emit("long-content-id", "A Content-Id value of 2000 characters on one unfolded line is accepted and kept exactly.", ["MB-PART-6", "MB-PART-7"], Wire("long-id-Gd6Yp1Ks").request("GET", ids).close())
    unknown = [("X-Request-Note", "kept as sent"), ("Accept", "application/json"), ("X-Empty", "")]
    emit("unknown-fields-pass-through", "Unknown and empty part header fields are the sub-request's own fields and pass through in order.", ["MB-PART-8"], Wire("unknown-Mz5Bq2Tr").request("GET", "books/1", unknown).close())
    w = Wire("mixed-case-Ld4Hv9Xe")
    w.request("GET", "books/1", [("x-LOWER-upper", "1"), ("ACCEPT", "text/xml")], names=("http-method", "CONTENT-ID"))
    w.request("GET", "books/2", names=("HTTP-METHOD", "content-id")).close()
    emit("mixed-case-field-names", "Field names match case-insensitively, so 'http-method' and 'CONTENT-ID' count, and every name keeps the case it was written in.", ["MB-PART-1", "MB-PART-3", "MB-PART-8"], w)
    w = Wire("ows-Ts7Kb3Qa").delimiter().line("Http-Method:GET").line("Content-Id: \t<books/1>\t ")
    w.line("Accept:  text/xml  ").raw(CRLF).close()
    w.parts = [{"method": "GET", "target": "books/1", "resolved_target": "/books/1",
                "fields": [["Accept", "text/xml"]], "body_text": "", "body_length": 0}]
    emit("field-value-ows", "Optional whitespace around a field value is not part of it, and a field line with no space after the colon is valid.", ["MB-PART-11", "MB-PART-3"], w)
    w = Wire("resolve-Cq9Wn4Hs", base="/api/batch")
    for ref in ("books/1", "../books/1", "/books/1", "./", "books?page=2", "a/./b/../c", "Books/%7Euser"):
        w.request("GET", ref)
    emit("target-resolution", "Content-Id references resolve against /api/batch by RFC 3986 §5.2, removing dot segments and keeping case and percent-encoding.", ["MB-PART-5", "MB-PART-6"], w.close())
    emit("target-absolute-same-origin", "An absolute-URI target with the batch's own scheme and authority is accepted and resolves to its path.", ["MB-PART-5", "MB-SUB-2"], Wire("absolute-Nb2Vf7Dk").request("GET", "http://example.test/books/1?x=1").close())
    w = Wire("methods-Hx5Rc8Wm")
    for method in ("PATCH", "PROPFIND", "get", "M-SEARCH"):
        w.request(method, "books/1")
    emit("extension-methods", "Any method token is a valid Http-Method and keeps its case; 'get' is a different method from 'GET'.", ["MB-PART-1"], w.close())
    w = Wire("at-limit-Sd3Fq6Zn")
    for n in (1, 2, 3):
        w.request("GET", f"books/{n}")
    emit("parts-at-limit", "A batch with exactly max_parts parts is within the limit.", ["MB-LIMIT-1", "MB-STATUS-3"], w.close(), limits={"max_parts": 3})


# --- Invalid requests: framing ----------------------------------------------------------------


def invalid_framing() -> None:
    w = Wire("lf-only-Wq3Zr8Kd")
    w.delimiter(eol="\n", fault=True).raw("Http-Method: GET\nContent-Id: <books/1>\n\n\n--lf-only-Wq3Zr8Kd--\n")
    fail("lf-only", "A batch framed with LF alone is rejected at its first delimiter line.", [], w, "MB-WIRE-8", "Bare LF in a delimiter line")
    w = Wire("lf-header-Bv6Nt1Qs").request("GET", "books/1").delimiter().line("Http-Method: GET")
    w.line("Content-Id: <books/2>", eol="\n", fault=True).raw(CRLF).close()
    fail("bare-lf-in-part-header", "A part header line ended by a bare LF is rejected at the start of that line.", [], w, "MB-WIRE-8", "Bare LF in a part header section")
    w = Wire("lf-blank-Mp2Xc5Ja").delimiter().line("Http-Method: GET").line("Content-Id: <books/1>")
    w.mark().raw("\n").close()
    fail("bare-lf-blank-line", "A header section ended by a bare LF blank line is rejected at that blank line.", [], w, "MB-WIRE-8", "Bare LF in a part header section")
    w = Wire("lf-delim-Rz7Qw2Hn").request("GET", "books/1").delimiter(eol="\n", fault=True)
    w.line("Http-Method: GET").line("Content-Id: <books/2>").raw(CRLF).close()
    fail("bare-lf-after-delimiter", "A delimiter line ended by a bare LF is rejected at that delimiter line.", [], w, "MB-WIRE-8", "Bare LF in a delimiter line")
    w = Wire("cr-header-Ty4Lk9Vb").delimiter().line("Http-Method: GET", eol="\r", fault=True)
    w.line("Content-Id: <books/1>").raw(CRLF).close()
    fail("bare-cr-in-part-header", "A bare CR ending a part header line is rejected at the start of that line.", [], w, "MB-WIRE-8", "Bare CR in a part header section")
    body = "abcdefghij"
    w = Wire("cl-short-Kx8Pf3Wd").delimiter().line("Http-Method: PUT").line("Content-Id: <notes/1>")
    w.line("Content-Length: 4", fault=True).raw(CRLF).raw(body).close()
    fail("content-length-too-short", "A Content-Length of 4 before a 10-octet body is rejected at the Content-Length line.", ["MB-WIRE-16"], w, "MB-WIRE-17", "Content-Length mismatch")
    w = Wire("cl-long-Zd5Hq1Ms").delimiter().line("Http-Method: PUT").line("Content-Id: <notes/1>")
    w.line("Content-Length: 400", fault=True).raw(CRLF).raw(body).request("GET", "notes/1").close()
    fail("content-length-too-long", "A Content-Length of 400 before a 10-octet body is rejected at the Content-Length line, although the content ends before 400 octets have passed.", ["MB-WIRE-16"], w, "MB-WIRE-17", "Content-Length mismatch")
    smuggled = "quoted: \r\n--collide-Gh2Vn8Tq\r\nHttp-Method: DELETE\r\nContent-Id: <books/1>\r\n\r\nend"
    w = Wire("collide-Gh2Vn8Tq").delimiter().line("Http-Method: POST").line("Content-Id: <notes>")
    w.line(f"Content-Length: {len(smuggled)}", fault=True).raw(CRLF).raw(smuggled).close()
    fail("body-contains-delimiter-with-content-length", "A body holding the delimiter is cut short by it, so its Content-Length no longer matches and the batch is rejected instead of running a smuggled DELETE.", ["MB-WIRE-6", "MB-WIRE-16"], w, "MB-WIRE-17", "Content-Length mismatch")
    w = Wire("collide-Pw6Jd3Lx").request("GET", "books/1").delimiter().line("Http-Method: POST")
    w.line("Content-Id: <notes>").raw(CRLF).raw("Quoted mail follows:").delimiter()
    w.mark().line("Content-Type: text/plain").raw(CRLF).raw("hello").close()
    fail("body-contains-delimiter", "A body without Content-Length that holds the delimiter is split there, and the text after it becomes a third part without Http-Method, which is rejected.", ["MB-WIRE-6", "MB-PART-1"], w, "MB-PART-2", "Missing Http-Method")
    w = Wire("prefix-Qm4Tz9Ck").delimiter().line("Http-Method: POST").line("Content-Id: <notes>")
    w.raw(CRLF).raw("text").delimiter(padding="-more", fault=True).raw("text\r\n").close()
    fail("body-contains-boundary-prefix", "A body line starting with the delimiter followed by other text is a delimiter line with text after the boundary, which is rejected.", ["MB-WIRE-6"], w, "MB-WIRE-19", "Text after a boundary delimiter")
    w = Wire("no-close-Vr2Yk7Hd").request("GET", "books/1").request("GET", "books/2")
    fail("missing-close-delimiter", "A batch whose content ends without the close delimiter is rejected at the end of the content.", ["MB-STATUS-2"], w, "MB-WIRE-13", "Missing close delimiter", at_end=True)
    w = Wire("dash-end-Rb6Nc2Tw").request("GET", "books/1").delimiter(eol="")
    fail("unclosed-after-dash-boundary", "Content that ends on a delimiter line without its CRLF has no close delimiter; the line opened part 1, where the fault lies, at the end of the content.", ["MB-STATUS-2"], w, "MB-WIRE-13", "Missing close delimiter", at_end=True)
    w = Wire("pad-end-Hs4Vk8Qz").request("GET", "books/1").delimiter(padding=" \t", eol="")
    fail("unclosed-after-padded-dash-boundary", "Content that ends on a delimiter line and its transport padding, without a CRLF, has no close delimiter; the line opened part 1, where the fault lies, at the end of the content.", ["MB-STATUS-2", "MB-WIRE-11"], w, "MB-WIRE-13", "Missing close delimiter", at_end=True)
    w = Wire("after-Lc5Nw8Tf").delimiter(padding=" garbage", fault=True)
    w.line("Http-Method: GET").line("Content-Id: <books/1>").raw(CRLF).close()
    fail("text-after-boundary", "Text other than spaces and tabs after the boundary on the first delimiter line is rejected.", [], w, "MB-WIRE-19", "Text after a boundary delimiter")
    w = Wire("after-close-Ds3Kv6Pz").request("GET", "books/1").close(padding="trailing", fault=True)
    fail("text-after-close-delimiter", "Text after the close delimiter on its own line, other than padding, is rejected; an epilogue begins only after a CRLF.", [], w, "MB-WIRE-19", "Text after a boundary delimiter")
    w = Wire("pre-lf-Tc6Wm1Xb").raw("preamble\n").mark(part=0).raw("--pre-lf-Tc6Wm1Xb\r\n")
    w.opened = 1
    w.line("Http-Method: GET").line("Content-Id: <books/1>").raw(CRLF).close()
    fail("preamble-bare-lf-before-delimiter", "A dash-boundary after a bare LF in the preamble is the first delimiter line with a bare LF line break, and is rejected.", ["MB-WIRE-9"], w, "MB-WIRE-8", "Bare LF in a delimiter line")
    w = Wire("empty-Hq7Bx2Nm")
    w.mark(part=0).raw("--empty-Hq7Bx2Nm--\r\n")
    fail("empty-batch", "A batch of only the close delimiter has no part and is rejected.", ["MB-STATUS-2"], w, "MB-WIRE-18", "Empty batch")


# --- Invalid requests: part headers -------------------------------------------------------------

FORBIDDEN = {
    "host": "Host: example.test",
    "transfer-encoding": "Transfer-Encoding: chunked",
    "connection": "Connection: close",
    "content-transfer-encoding": "Content-Transfer-Encoding: binary",
    "expect": "Expect: 100-continue",
    "http-status-code": "Http-Status-Code: 200",
    "keep-alive": "Keep-Alive: timeout=5",
    "upgrade": "Upgrade: websocket",
}


def invalid_parts() -> None:
    ok = "Content-Id: <books/2>"
    header_fault("missing-http-method", "A part without Http-Method is rejected at the start of its header section.", "MB-PART-2", [ok, "Accept: text/xml"], "Missing Http-Method", also=("MB-PART-1",))
    header_fault("duplicate-http-method", "A part with two Http-Method fields is rejected at the second one.", "MB-PART-2", ["Http-Method: GET", ok, "!Http-Method: DELETE"], "Repeated Http-Method", also=("MB-PART-1",))
    header_fault("invalid-http-method", "An Http-Method value that is not a method token, such as a whole request line, is rejected.", "MB-PART-2", ["!Http-Method: GET /books/2 HTTP/1.1", ok], "Invalid Http-Method", also=("MB-PART-1",))
    header_fault("empty-http-method", "An empty Http-Method value is not a method token and is rejected.", "MB-PART-2", ["!Http-Method: ", ok], "Invalid Http-Method", also=("MB-PART-1",))
    header_fault("missing-content-id", "A part without Content-Id has no target and is rejected at the start of its header section.", "MB-PART-4", ["Http-Method: GET", "Accept: text/xml"], "Missing Content-Id", also=("MB-PART-3",))
    header_fault("duplicate-content-id", "A part with two Content-Id fields is rejected at the second one.", "MB-PART-4", ["Http-Method: GET", ok, "!Content-Id: <books/3>"], "Repeated Content-Id", also=("MB-PART-3",))
    header_fault("content-id-without-angle-brackets", "A Content-Id value not enclosed in angle brackets is malformed and is rejected.", "MB-PART-4", ["Http-Method: GET", "!Content-Id: books/2"], "Malformed Content-Id", also=("MB-PART-3",))
    header_fault("content-id-with-comment", "A Content-Id followed by an RFC 822 comment is malformed, because a receiver never strips comments from it.", "MB-PART-4", ["Http-Method: GET", "!Content-Id: <books/2> (second book)"], "Malformed Content-Id", also=("MB-PART-6",))
    header_fault("content-id-with-space", "A Content-Id holding a space is not a URI-reference and is rejected.", "MB-PART-4", ["Http-Method: GET", "!Content-Id: <my books/2>"], "Malformed Content-Id", also=("MB-PART-3",))
    header_fault("obs-fold", "A folded header line (obs-fold) is rejected at the continuation line.", "MB-PART-11", ["Http-Method: GET", ok, "X-Note: first half", "! second half"], "Invalid field line", also=("MB-PART-7",))
    header_fault("header-without-colon", "A part header line without a colon is rejected.", "MB-PART-11", ["Http-Method: GET", ok, "!X-Note kept"], "Invalid field line")
    header_fault("whitespace-before-colon", "Whitespace between a field name and the colon is rejected, as RFC 9112 §5.1 requires.", "MB-PART-11", ["!Http-Method : GET", ok], "Invalid field line")
    header_fault("empty-field-name", "A header line with an empty field name is rejected.", "MB-PART-11", ["Http-Method: GET", ok, "!: no name"], "Invalid field line")
    for slug, line in FORBIDDEN.items():
        name = line.split(":")[0]
        header_fault(f"forbidden-field-{slug}", f"A request part carrying {name} is rejected, because that field is forbidden in a part.", "MB-PART-10", ["Http-Method: GET", ok, "!" + line], "Forbidden part header field", also=("MB-PART-9",))


# --- Invalid requests: targets and methods (need the server's context) -------------------------


def invalid_targets() -> None:
    cases = [
        ("nested-batch", "GET", "/batch", "MB-SUB-4", "A part whose target is the batch endpoint itself is rejected, so batches do not nest."),
        ("empty-content-id-targets-batch", "GET", "", "MB-SUB-4", "An empty Content-Id reference resolves to the batch target itself and is rejected as a nested batch."),
        ("nested-batch-query", "GET", "/batch?page=2", "MB-SUB-4", "A target naming the batch endpoint with a query is still the batch endpoint and is rejected."),
        ("nested-batch-percent-encoded", "GET", "/%62atch", "MB-SUB-4", "A target spelling the batch endpoint's path with a percent-encoded unreserved character is the batch endpoint and is rejected."),
        ("nested-batch-dot-segments", "GET", "books/../batch", "MB-SUB-4", "A target that reaches the batch endpoint through dot segments is rejected once they are removed."),
        ("nested-batch-absolute-uri", "POST", "http://EXAMPLE.test:80/batch", "MB-SUB-4", "An absolute-URI target naming the batch endpoint on the batch's own origin, with the host in another case and the default port, is rejected."),
        ("absolute-uri-other-authority", "GET", "http://other.test/books/1", "MB-SUB-2", "An absolute-URI target on another authority is rejected."),
        ("absolute-uri-other-scheme", "GET", "https://example.test/books/1", "MB-SUB-2", "An absolute-URI target with another scheme than the batch's is rejected."),
        ("network-path-reference", "GET", "//evil.test/x", "MB-SUB-2", "A network-path reference names an authority of its own and is rejected."),
        ("scheme-without-authority", "GET", "http:books/1", "MB-SUB-2", "A target that repeats the batch's scheme without an authority resolves, by RFC 3986's strict form, to a URI without an authority, and is rejected rather than run as books/1."),
        ("fragment-in-target", "GET", "books/1#top", "MB-SUB-2", "A target with a fragment is rejected, since a fragment is never sent in a request."),
        ("asterisk-form-target", "OPTIONS", "*", "MB-SUB-8", "An asterisk-form target is rejected even with OPTIONS."),
        ("connect-method", "CONNECT", "books/1", "MB-SUB-3", "A part with Http-Method CONNECT is rejected."),
        ("trace-method", "TRACE", "books/1", "MB-SUB-3", "A part with Http-Method TRACE is rejected."),
    ]
    titles = {"MB-SUB-2": "Target leaves the origin", "MB-SUB-3": "Method not allowed in a batch",
              "MB-SUB-4": "Nested batch", "MB-SUB-8": "Asterisk-form target"}
    for name, method, target, requirement, description in cases:
        w = Wire("target-Fz8Qm3Wc").request("GET", "books/2").delimiter()
        line = f"Http-Method: {method}"
        w.line(line, fault=requirement == "MB-SUB-3")
        w.line(f"Content-Id: <{target}>", fault=requirement != "MB-SUB-3").raw(CRLF).close()
        w.parts = []
        fail(name, description, ["MB-STATUS-2"], w, requirement, titles[requirement], detected_by="server")


# --- Invalid requests: limits and the top-level Content-Type ----------------------------------


def invalid_limits() -> None:
    w = Wire("too-many-Tn5Kq8Vd").request("GET", "books/1").request("GET", "books/2")
    w.delimiter(fault=True).line("Http-Method: GET").line("Content-Id: <books/3>").raw(CRLF).close()
    fail("too-many-parts", "A third part over a max_parts limit of 2 is rejected with 413 at the delimiter line that opens it.", ["MB-LIMIT-1"], w, "MB-STATUS-3", "Too many parts", status=413, limits={"max_parts": 2})
    w = Wire("big-header-Wm4Hc7Rp").request("GET", "books/1").delimiter().mark()
    w.line("Http-Method: GET").line("Content-Id: <books/2>")
    for n in range(100):
        w.line(f"X-Filler-{n:03d}: " + "f" * 90)
    w.raw(CRLF).close()
    fail("oversized-part-header-section", "A part header section of about 10 KB, over the default 8192-octet limit, is rejected with 431 at the start of that section.", ["MB-LIMIT-1"], w, "MB-STATUS-3", "Part header section too large", status=431, limits={"max_part_header_bytes": 8192})
    # max_part_header_bytes counts the field lines with their CRLFs, not the empty line after them.
    for name, over in (("part-header-section-at-limit", 0), ("part-header-section-over-limit", 1)):
        w = Wire("hdr-limit-Rb4Xq7Mn").request("GET", "books/1").delimiter().mark()
        lines = ["Http-Method: GET", "Content-Id: <books/2>", "X-Pad: " + "p" * (78 + over)]
        assert sum(len(text) + 2 for text in lines) == 128 + over
        for text in lines:
            w.line(text)
        w.raw(CRLF).close()
        if over:
            fail(name, "A part header section of 129 octets (field lines and their CRLFs, without the empty line) is one over a max_part_header_bytes limit of 128 and is rejected with 431 at the start of that section.", ["MB-LIMIT-1"], w, "MB-STATUS-3", "Part header section too large", status=431, limits={"max_part_header_bytes": 128})
        else:
            w.parts[1:] = [{"method": "GET", "target": "books/2", "resolved_target": "/books/2", "fields": [["X-Pad", "p" * 78]], "body_text": "", "body_length": 0}]
            emit(name, "A part header section of exactly 128 octets (field lines and their CRLFs, without the empty line) is within a max_part_header_bytes limit of 128.", ["MB-LIMIT-1", "MB-STATUS-3"], w, limits={"max_part_header_bytes": 128})
    for name, count in (("part-fields-at-limit", 4), ("part-fields-over-limit", 5)):
        w = Wire("fields-limit-Hm3Zt8Vc").request("GET", "books/1").delimiter().mark()
        extra = [(f"X-F{n}", str(n)) for n in range(count - 2)]
        w.line("Http-Method: GET").line("Content-Id: <books/2>")
        for field, value in extra:
            w.line(f"{field}: {value}")
        w.raw(CRLF).close()
        if count > 4:
            fail(name, "A part with five field lines is one over a max_part_fields limit of 4 and is rejected with 431 at the start of its header section.", [], w, "MB-LIMIT-5", "Too many part header fields", status=431, limits={"max_part_fields": 4})
        else:
            w.parts[1:] = [{"method": "GET", "target": "books/2", "resolved_target": "/books/2", "fields": [list(f) for f in extra], "body_text": "", "body_length": 0}]
            emit(name, "A part with exactly four field lines, Http-Method and Content-Id included, is within a max_part_fields limit of 4.", ["MB-LIMIT-5"], w, limits={"max_part_fields": 4})
    w = Wire("big-part-Yq2Nd9Ls").delimiter().mark().line("Http-Method: PUT").line("Content-Id: <notes/1>")
    w.line("Content-Length: 100").raw(CRLF).raw("x" * 100).close()
    fail("oversized-part", "A part with a 100-octet body over a max_part_bytes limit of 64 is rejected with 413 at the start of its header section.", ["MB-LIMIT-1"], w, "MB-STATUS-3", "Part too large", status=413, limits={"max_part_bytes": 64})
    w = Wire("big-batch-Pc6Ve1Hk")
    for n in range(4):
        w.request("PUT", f"notes/{n}", [("Content-Type", "text/plain")], "y" * 100, length=True)
    fail("oversized-batch", "A batch over a max_batch_bytes limit of 256 is rejected with 413; the offset is unspecified because a server may refuse it by its Content-Length before reading it.", ["MB-LIMIT-1"], w.close(), "MB-STATUS-3", "Batch too large", status=413, limits={"max_batch_bytes": 256})
    bad_types = [
        ("wrong-media-type", "multipart/form-data; boundary=ctype-Ks4Wz8Qn", "MB-WIRE-2", 415,
         "A batch sent as multipart/form-data is rejected with 415.", "Unsupported batch media type"),
        ("boundary-missing", "multipart/mixed", "MB-WIRE-4", 400,
         "A multipart/mixed Content-Type without a boundary parameter is rejected with 400.", "Invalid boundary"),
        ("boundary-too-long", "multipart/mixed; boundary=" + "L" * 71, "MB-WIRE-4", 400,
         "A boundary of 71 characters, one over the RFC 2046 maximum, is rejected with 400.", "Invalid boundary"),
        ("boundary-ends-in-space", 'multipart/mixed; boundary="ends-in-space "', "MB-WIRE-4", 400,
         "A boundary ending in a space is rejected with 400, as RFC 2046 forbids it.", "Invalid boundary"),
    ]
    for name, ctype, requirement, status, description, title in bad_types:
        w = Wire("ctype-Ks4Wz8Qn").request("GET", "books/1").close()
        fail(name, description, ["MB-WIRE-3"] if requirement == "MB-WIRE-4" else [], w, requirement, title, status=status, ctype=ctype)


# --- Responses --------------------------------------------------------------------------------

PROBLEM = {
    "type": "https://mixbatch.dev/problems/batch-aborted",
    "title": "Batch aborted",
    "status": 503,
    "detail": "The server is shutting down; parts 2 and 3 did not run.",
    "requirement": "MB-STATUS-6",
    "part_index": 2,
}


def responses() -> None:
    json_type = [("Content-Type", "application/json")]
    w = Wire("stop-Nq3Vx8Ld").response(201, "books", [("Location", "/books/16")], length=True)
    w.response(404, "books/999999", [("Content-Type", "application/problem+json")],
               '{"title":"Not Found","status":404}', length=True)
    w.response(None, "books/16", outcome="skipped", length=True).response(None, "books", outcome="skipped", length=True).close()
    ctx = {"status": 200, "fields": [["Preference-Applied", "batch-on-error=stop"]],
           "request": {"method": "POST", "target": "/batch", "fields": [["Prefer", "batch-on-error=stop"]]}}
    emit("stop-policy-skipped", "Under batch-on-error=stop the parts after the first 404 carry Batch-Outcome: skipped and no Http-Status-Code.", ["MB-PROC-6", "MB-RESP-5"], w, direction="response", context=ctx)
    w = Wire("first-Rk6Tz3Wm").response(404, "books/999999", [("Content-Type", "application/problem+json")],
                                        '{"title":"Not Found","status":404}', length=True)
    w.response(None, "books/1", outcome="skipped", length=True).close()
    ctx = {"status": 200, "fields": [["Preference-Applied", "batch-on-error=stop"]],
           "request": {"method": "POST", "target": "/batch",
                       "fields": [["Prefer", "batch-on-error=stop, batch-on-error=continue"]]}}
    emit("stop-policy-first-preference", "Prefer names batch-on-error twice; only the first instance, stop, counts, so the part after the 404 is skipped and Preference-Applied names stop.", ["MB-PROC-13", "MB-PROC-6"], w, direction="response", context=ctx)
    w = Wire("atomic-Jw5Tb2Kf").response(201, "books", [("Location", "/books/17")], outcome="rolled-back", length=True)
    w.response(200, "books/1", json_type, '{"id":1}', outcome="rolled-back", length=True)
    w.response(409, "books/2", [("Content-Type", "application/problem+json")],
               '{"title":"Conflict","status":409}', length=True)
    w.response(None, "books/3", outcome="skipped", length=True).close()
    ctx = {"status": 200, "request": {"method": "POST", "target": "/batch", "fields": [["Batch-Mode", "atomic"]]}}
    emit("atomic-rolled-back", "In an atomic batch whose third part fails with 409, the parts that ran before it keep their statuses and are marked rolled-back, and the part after it is skipped.", ["MB-PROC-8", "MB-RESP-5"], w, direction="response", context=ctx)
    w = Wire("atomic-ok-Vb4Qs8Hn").response(201, "books", [("Location", "/books/18")], length=True)
    w.response(200, "books/1", json_type, '{"id":1}', length=True).close()
    emit("atomic-committed", "An atomic batch in which every part succeeded is answered with every part's own status and no Batch-Outcome: it committed whole before the first part was written.", ["MB-PROC-16", "MB-PROC-8"], w, direction="response", context=ctx)
    w = Wire("abort-Xr7Mq4Pd").response(200, "books/1", json_type, '{"id":1}', length=True)
    w.response(200, "books/2", json_type, '{"id":2}', length=True)
    w.response(None, None, [("Content-Type", "application/problem+json")],
               json.dumps(PROBLEM, separators=(",", ":")), outcome="aborted", length=True).close()
    emit("aborted-mid-stream", "A server that must stop after two parts ends the response with a part marked Batch-Outcome: aborted holding a problem document, then the close delimiter.", ["MB-STATUS-6", "MB-RESP-1"], w, direction="response")
    w = Wire("mixed-bodies-Gc8Lw3Ys").response(204, "books/1")
    w.response(200, "blobs/1", [("Content-Type", "application/octet-stream")], BINARY, length=True).close()
    emit("binary-and-empty-response", "A 204 part has an empty body and a binary part keeps every octet, CRLF and '--' run exactly.", ["MB-RESP-4", "MB-WIRE-16"], w, direction="response")
    w = Wire("resp-pre-Ht2Kd9Wv").raw("preamble").response(200, "books/1", json_type, '{"id":1}')
    w.close(padding=" ").raw("epilogue\r\n")
    emit("response-preamble-epilogue", "A client ignores a response's preamble, its epilogue and the transport padding after its close delimiter.", ["MB-WIRE-9", "MB-WIRE-11"], w, direction="response")

    w = Wire("incomplete-Sd4Nv8Qc").response(200, "books/1", json_type, '{"id":1}', length=True)
    w.response(200, "books/2", json_type, '{"id":2')
    fail("response-missing-close-delimiter", "A response that ends without the close delimiter is incomplete; only its first part arrived whole.", ["MB-WIRE-13"], w, "MB-WIRE-14", "Incomplete batch response", direction="response", at_end=True, parts_complete=1)
    w = Wire("no-status-Bm5Rw2Tz").response(200, "books/1").delimiter().mark()
    w.line("Content-Id: <books/2>").line("Content-Type: text/plain").raw(CRLF).raw("no status").close()
    fail("response-missing-status", "A response part that ran but has no Http-Status-Code and no Batch-Outcome is rejected.", [], w, "MB-RESP-2", "Missing Http-Status-Code", direction="response")
    w = Wire("bad-status-Qz6Hp3Mx").delimiter().line("Http-Status-Code: 20", fault=True)
    w.line("Content-Id: <books/1>").raw(CRLF).close()
    fail("response-invalid-status", "An Http-Status-Code of two digits is rejected.", [], w, "MB-RESP-2", "Invalid Http-Status-Code", direction="response")
    w = Wire("dup-status-Vk2Wc7Jn").delimiter().line("Http-Status-Code: 200").line("Content-Id: <books/1>")
    w.line("Http-Status-Code: 404", fault=True).raw(CRLF).close()
    fail("response-duplicate-status", "A response part with two Http-Status-Code fields is rejected at the second one.", [], w, "MB-RESP-2", "Repeated Http-Status-Code", direction="response")
    w = Wire("lf-resp-Lp8Tq1Zx").delimiter(eol="\n", fault=True)
    w.raw("Http-Status-Code: 200\nContent-Id: <books/1>\n\n\n--lf-resp-Lp8Tq1Zx--\n")
    fail("response-lf-only", "A response framed with LF alone is rejected at its first delimiter line.", [], w, "MB-WIRE-8", "Bare LF in a delimiter line", direction="response")



def references() -> None:
    json_type = [("Content-Type", "application/json")]
    mode = {"method": "POST", "scheme": "http", "authority": AUTHORITY, "target": "/batch",
            "fields": [["Batch-Mode", "references"]]}
    w = Wire("refs-Tc5Wm2Kq").request("POST", "books", json_type, '{"title":"Dune","author":"Frank Herbert"}', length=True)
    w.request("PATCH", "$(0)", [("Content-Type", "application/merge-patch+json"), ("If-Match", "$(0:ETag)")], '{"year":1965}', length=True)
    w.request("GET", "$(0)").close()
    emit("references-create-then-update", "Under Batch-Mode: references the second and third parts name the book the first part creates by $(0) (its Location) and send its ETag as If-Match by $(0:ETag); the envelope is valid URI syntax throughout.", ["MB-PROC-18", "MB-PROC-17"], w, context=mode)
    w = Wire("refs-Tc5Wm2Kq").response(201, "books", [("Location", "/books/4"), ("ETag", '"b4v1"'), *json_type], '{"id":4}', length=True)
    w.response(200, "$(0)", [("ETag", '"b4v2"'), *json_type], '{"id":4,"year":1965}', length=True)
    w.response(200, "$(0)", [("ETag", '"b4v2"'), *json_type], '{"id":4,"year":1965}', length=True).close()
    ctx = {"status": 200, "request": {"method": "POST", "target": "/batch", "fields": [["Batch-Mode", "references"]]}}
    emit("references-create-then-update", "The answer to references-create-then-update: each part echoes its Content-Id as written, $(0) included, and the later parts acted on /books/4.", ["MB-PROC-18", "MB-RESP-3"], w, direction="response", context=ctx)
    unresolved = {"type": "https://mixbatch.dev/problems/reference-unresolved", "title": "Reference unresolved", "status": 424,
                  "detail": "part 0 failed with 422, so $(0) names nothing", "requirement": "MB-PROC-20", "reference": "$(0)"}
    w = Wire("refs-skip-Hd7Pn3Wx").response(422, "books", [("Content-Type", "application/problem+json")], '{"title":"Invalid book","status":422}', length=True)
    w.response(None, "$(0)", [("Content-Type", "application/problem+json")], json.dumps(unresolved, separators=(",", ":")), outcome="skipped", length=True)
    w.response(200, "books/1", json_type, '{"id":1}', length=True).close()
    emit("references-unresolved", "Under the continue policy, a part whose reference names a part that failed is skipped with a problem document naming the reference, and the independent part after it still runs.", ["MB-PROC-20", "MB-RESP-5"], w, direction="response", context=ctx)
    refused = {"type": "https://mixbatch.dev/problems/reference-unresolved", "title": "Reference unresolved", "status": 424,
               "detail": "the target //books/4 that /$(0) yields is a network-path reference, on another origin", "requirement": "MB-PROC-20", "reference": "/$(0)"}
    w = Wire("refs-target-Vq4Lm8Ts").response(201, "books", [("Location", "/books/4"), *json_type], '{"id":4}', length=True)
    w.response(None, "/$(0)", [("Content-Type", "application/problem+json")], json.dumps(refused, separators=(",", ":")), outcome="skipped", length=True)
    w.response(200, "books/1", json_type, '{"id":1}', length=True).close()
    emit("references-target-refused", "A part whose target </$(0)> becomes the network-path reference //books/4 once part 0's Location is substituted fails the check of 8.3, so it is skipped with the MB-PROC-20 problem document (a 4xx status, 424 here), and the independent part after it still runs.", ["MB-PROC-20", "MB-SUB-2", "MB-RESP-5"], w, direction="response", context=ctx)

# fmt: on


def build() -> dict[str, bytes]:
    """Every file this script owns under spec/examples/, by relative path."""
    VECTORS.clear()
    for section in (
        thesis,
        valid_framing,
        valid_parts,
        invalid_framing,
        invalid_parts,
        invalid_targets,
        invalid_limits,
        responses,
        references,
    ):
        section()
    files: dict[str, bytes] = {}
    for name, doc, data in VECTORS:
        assert f"{name}.http" not in files, name
        files[f"{name}.http"] = data
        files[f"{name}.json"] = (to_json(doc) + "\n").encode()
    return files


def main(argv: list[str]) -> int:
    files = build()
    if "--check" in argv:
        stale = [
            p
            for p, data in files.items()
            if not (EXAMPLES / p).is_file() or (EXAMPLES / p).read_bytes() != data
        ]
        for path in stale:
            print(f"stale: spec/examples/{path}", file=sys.stderr)
        return 1 if stale else 0
    EXAMPLES.mkdir(parents=True, exist_ok=True)
    for path, data in files.items():
        (EXAMPLES / path).write_bytes(data)
    print(f"wrote {len(files) // 2} vectors to {EXAMPLES}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
