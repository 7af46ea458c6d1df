"""Building blocks for planted bugs: predicates on the request and edits of the response.

Theory of operation: a plant models one way a server can break one requirement. Most plants
are one of a few shapes, built here so that the tables in the sibling modules read as data:

- `accepts(pred)`: a server that lacks one validation. When the request matches `pred` and
  the server refused it, the relay answers as if the batch had been processed (200 multipart).
- `refuses(pred, status)`: a server that refuses what it must accept (a 70-character
  boundary, transport padding, a long field line) or answers with the wrong status.
- `map_response` / `map_parts` / `map_request_parts`: edits of the answer or of what the
  server receives, by whole message or by part.
- `map_json` / `map_xml`: edits of the 207 forms.

Every predicate reads the request as the client sent it, so a plant fires only on the input
it is about and the rest of the traffic stays correct.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from mixbatch_conformance.core.context import json_object
from mixbatch_conformance.core.validator import parse_media_type, read_multipart
from mixbatch_conformance.run.mutations import FieldList, write_parts
from mixbatch_conformance.transport.relay import TAP, RelayRequest, RelayResponse

__all__ = [
    "BATCH_PATH",
    "FAKE_BOUNDARY",
    "SANDBOX_MEMBER",
    "Part",
    "Pred",
    "RespEdit",
    "accepts",
    "all_of",
    "body_has",
    "boundary_of",
    "edit_problem",
    "fake_processed",
    "field_of",
    "header_has",
    "in_mode_or_form",
    "inherited",
    "is_batch",
    "map_answered_parts",
    "map_json",
    "map_parts",
    "map_response",
    "map_xml",
    "part_field_read",
    "parts_of",
    "problem",
    "problem_doc",
    "refuses",
    "set_field",
    "split_quoted",
    "stops_at_unresolved",
    "target_has",
    "unread_as_next_request",
    "without_field",
    "written_fields",
]

Part = tuple[FieldList, bytes]
Pred = Callable[[RelayRequest], bool]
RespEdit = Callable[[RelayRequest, RelayResponse], None]
FAKE_BOUNDARY = "plant-fake-0123456789abcdef"
#: The reference target's batch endpoint (the relay fronts the reference server).
BATCH_PATH = "/batch"
#: The path of a member of the reference server's sandbox collection.
SANDBOX_MEMBER = re.compile(r"^/books/\d+$")


def boundary_of(msg: RelayRequest | RelayResponse) -> str | None:
    try:
        media, params = parse_media_type(msg.get("Content-Type") or "")
    except ValueError:
        return None
    return params.get("boundary") if media == "multipart/mixed" else None


def parts_of(data: bytes, boundary: str) -> list[Part] | None:
    env = read_multipart(data, boundary)
    if env.fatal:
        return None
    return [(list(p.fields), p.body) for p in env.parts]


def field_of(fields: FieldList, name: str) -> str | None:
    for n, v in fields:
        if n.lower() == name.lower():
            return v
    return None


def without_field(fields: FieldList, name: str) -> FieldList:
    return [(n, v) for n, v in fields if n.lower() != name.lower()]


def set_field(fields: FieldList, name: str, value: str) -> FieldList:
    """Replace `name`'s value in place, or add it at the end."""
    if field_of(fields, name) is None:
        return [*fields, (name, value)]
    return [(n, value if n.lower() == name.lower() else v) for n, v in fields]


def stops_at_unresolved(parts: list[Part]) -> list[Part]:
    """Every part after one whose reference went unresolved (its problem names MB-PROC-20)
    skipped, as if it had failed under stop."""
    out: list[Part] = []
    stopped = False
    for f, b in parts:
        if stopped and field_of(f, "Batch-Outcome") is None:
            f = [*without_field(f, "Http-Status-Code"), ("Batch-Outcome", "skipped")]
        stopped = stopped or b"MB-PROC-20" in b
        out.append((f, b))
    return out


# -- predicates on the request as sent -----------------------------------------------------------


def split_quoted(value: str, sep: str, quotes: str) -> list[str]:
    """`value` split at each `sep` outside quoted-strings, read as `quotes` says: "pair" as
    RFC 9110 §5.6.4 (a backslash escapes the next character), "none" (every `"` opens or
    closes a string), "lookbehind" (a `"` after a backslash is text, even an escaped one),
    "ignored" (no quoting at all). The misreadings are the ones planted servers make."""
    if quotes == "ignored":
        return value.split(sep)
    pieces, start, quoted, escaped = [], 0, False, False
    for i, c in enumerate(value):
        if escaped:
            escaped = False
        elif quoted and c == "\\" and quotes == "pair":
            escaped = True
        elif c == '"' and not (quotes == "lookbehind" and quoted and value[i - 1] == "\\"):
            quoted = not quoted
        elif c == sep and not quoted:
            pieces.append(value[start:i])
            start = i + 1
    pieces.append(value[start:])
    return pieces


def in_mode_or_form(req: RelayRequest) -> bool:
    """A request asking for a 207 form, an error policy or a mode."""
    accept = (req.get("Accept") or "").lower()
    return (
        "xml" in accept
        or "multistatus" in accept
        or req.get("Batch-Mode") is not None
        or "batch-on-error" in (req.get("Prefer") or "")
    )


def is_batch(req: RelayRequest) -> bool:
    return req.method == "POST" and (req.get("Content-Type") or "").lower().startswith("multip")


def body_has(pattern: bytes) -> Pred:
    rx = re.compile(pattern)
    return lambda req: req.method == "POST" and rx.search(req.body) is not None


def header_has(name: str, pattern: str) -> Pred:
    rx = re.compile(pattern)
    return lambda req: any(n.lower() == name.lower() and rx.search(v) for n, v in req.headers)


def target_has(pattern: str) -> Pred:
    rx = re.compile(pattern)
    return lambda req: rx.search(req.target) is not None


def all_of(*preds: Pred) -> Pred:
    return lambda req: all(p(req) for p in preds)


# -- answers ---------------------------------------------------------------------------------
def inherited(name: str) -> Callable[[RelayRequest], None]:
    """A batch request's `name` field applied to each of its parts that carries none."""

    def edit(req: RelayRequest) -> None:
        b = boundary_of(req)
        value = req.get(name)
        parts = parts_of(req.body, b) if b and value is not None and is_batch(req) else None
        if parts is None or b is None or value is None:
            return
        req.body = write_parts(
            [
                (f if field_of(f, name) is not None else [*f, (name, value)], body)
                for f, body in parts
            ],
            b,
        )

    return edit


def problem(resp: RelayResponse, status: int, requirement: str = "MB-STATUS-2") -> None:
    resp.status = status
    resp.headers = [(n, v) for n, v in resp.headers if n.lower() in ("date", "server")]
    resp.headers.append(("Content-Type", "application/problem+json"))
    doc: dict[str, object] = {"type": "about:blank", "title": "planted refusal", "status": status}
    doc["requirement"] = requirement
    resp.body = json.dumps(doc).encode()


def echo_doc(body: bytes) -> dict[str, Any] | None:
    """The echo resource's description in `body` (an object with method, target and headers),
    read; None for any other content."""
    try:
        doc = json.loads(body)
    except ValueError:
        return None
    if isinstance(doc, dict) and {"method", "target", "headers"} <= doc.keys():
        return doc
    return None


def problem_doc(resp: RelayResponse) -> dict[str, Any] | None:
    """The problem document `resp` carries, read; None without one (not problem+json, not
    JSON, or not an object)."""
    if "problem+json" not in (resp.get("Content-Type") or ""):
        return None
    return json_object(resp.body)


def edit_problem(resp: RelayResponse, fn: Callable[[dict[str, Any]], None]) -> None:
    """Edit the problem document `resp` carries with `fn`, if it carries one."""
    doc = problem_doc(resp)
    if doc is not None:
        fn(doc)
        resp.body = json.dumps(doc).encode()


def unread_as_next_request(
    refused: Callable[[RelayRequest, RelayResponse], bool],
) -> RespEdit:
    """A server that leaves the content of a batch it refused (`refused`) unread: the next
    request on the connection is that content, a request line it cannot parse, answered 400."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        if req.connection.pop("unread", None):
            doc = {"type": "about:blank", "title": "Bad Request", "status": 400}
            resp.status = 400
            resp.headers = [("Content-Type", "application/problem+json")]
            resp.body = json.dumps(doc).encode()
            return
        if refused(req, resp):
            req.connection["unread"] = True

    return edit


def fake_processed(req: RelayRequest, resp: RelayResponse) -> None:
    """Answer 200 multipart with one 200 part per request part the relay can find."""
    b = boundary_of(req)
    count = len(parts_of(req.body, b) or []) if b else 0
    ids = re.findall(rb"(?im)^Content-Id:[ \t]*(.*?)[ \t]*\r?$", req.body)
    parts = [
        (
            [
                ("Http-Status-Code", "200"),
                ("Content-Id", (ids[i] if i < len(ids) else b"<plant>").decode("latin-1")),
                ("Content-Length", "0"),
            ],
            b"",
        )
        for i in range(max(count, 1))
    ]
    resp.status = 200
    resp.headers = [("Content-Type", f"multipart/mixed; boundary={FAKE_BOUNDARY}")]
    resp.body = write_parts(parts, FAKE_BOUNDARY)


def accepts(pred: Pred) -> RespEdit:
    """A server without the validation `pred` describes: the refusal becomes a 200."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        if resp.status >= 400 and pred(req):
            fake_processed(req, resp)

    return edit


def refuses(pred: Pred, status: int = 400, requirement: str = "MB-STATUS-2") -> RespEdit:
    """A server that refuses what `pred` matches with `status` and a problem document."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        if pred(req):
            problem(resp, status, requirement)

    return edit


def map_response(pred: Pred, fn: Callable[[RelayResponse], None]) -> RespEdit:
    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        if pred(req):
            fn(resp)

    return edit


def map_parts(fn: Callable[[list[Part]], list[Part]], pred: Pred = is_batch) -> RespEdit:
    """Edit the parts of a multipart answer and write them back with the same boundary."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        b = boundary_of(resp)
        if not b or not pred(req):
            return
        parts = parts_of(resp.body, b)
        if parts is not None:
            resp.body = write_parts(fn(parts), b)

    return edit


def map_answered_parts(fn: Callable[[Part, Part], Part]) -> RespEdit:
    """Edit each part of a batch's multipart answer with the request part it answers:
    `fn(sent, answered)` gives the part written back; a batch whose parts do not pair is left
    as it is."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        rb, sb = boundary_of(req), boundary_of(resp)
        if not (rb and sb and is_batch(req)):
            return
        sent, answered = parts_of(req.body, rb), parts_of(resp.body, sb)
        if sent is None or answered is None or len(sent) != len(answered):
            return
        resp.body = write_parts([fn(q, a) for q, a in zip(sent, answered, strict=True)], sb)

    return edit


def map_json(fn: Callable[[dict[str, Any]], None], pred: Pred = is_batch) -> RespEdit:
    """Edit the JSON multistatus document of a 207 answer."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        if not pred(req) or resp.status != 207 or "json" not in (resp.get("Content-Type") or ""):
            return
        doc = json.loads(resp.body)
        if isinstance(doc, dict):
            fn(doc)
            resp.body = json.dumps(doc).encode()

    return edit


def map_xml(fn: Callable[[bytes], bytes], pred: Pred = is_batch) -> RespEdit:
    """Edit the XML multistatus document of a 207 answer, as octets."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        if pred(req) and resp.status == 207 and "xml" in (resp.get("Content-Type") or ""):
            resp.body = fn(resp.body)

    return edit


def map_capabilities(
    fn: Callable[[dict[str, object]], None],
) -> Callable[[RelayRequest, RelayResponse], None]:
    """Edit the capabilities document of a 200 answer to OPTIONS with `fn`."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        if req.method == "OPTIONS" and resp.status == 200:
            doc = json.loads(resp.body)
            fn(doc)
            resp.body = json.dumps(doc).encode()

    return edit


def set_request_field(
    name: str, value: str | None, when: Callable[[RelayRequest], bool]
) -> Callable[[RelayRequest], None]:
    """Replace (or, with None, remove) request field `name` on requests `when` selects."""

    def edit(req: RelayRequest) -> None:
        if when(req):
            req.headers = [(n, v) for n, v in req.headers if n.lower() != name.lower()]
            if value is not None:
                req.headers.append((name, value))

    return edit


def part_field_read(name: str, read: Callable[[str], str]) -> Callable[[RelayRequest], None]:
    """A server that reads each part's `name` field value through `read`: the reference server
    is shown the value it reads. Only field lines at the start of a line are rewritten, which is
    where a part's header section has them."""
    rx = re.compile(rb"(?im)^(" + re.escape(name.encode()) + rb"):([^\r\n]*)")

    def rewrite(m: re.Match[bytes]) -> bytes:
        value = m.group(2).decode("latin-1")
        return m.group(1) + b": " + read(value).strip(" \t").encode("latin-1", "replace")

    def edit(req: RelayRequest) -> None:
        if is_batch(req):
            req.body = rx.sub(rewrite, req.body)

    return edit


#: A field line as written: its name, the OWS before its value, the value, the OWS after it.
_FIELD_LINE = re.compile(rb"([^:\r\n]+):([ \t]*)(.*?)([ \t]*)")


def _written(req: RelayRequest) -> bytes | None:
    """`req` as the client wrote it, from the octets after its request line on (its header
    section, then its content and whatever followed it), or None when the connection's tap does
    not hold it."""
    tap = req.connection.get(TAP)
    if not isinstance(tap, bytes):
        return None
    line = f"{req.method} {req.target} HTTP/1.1\r\n".encode("latin-1")
    at = tap.rfind(line)
    return tap[at + len(line) :] if at >= 0 else None


def written_fields(req: RelayRequest) -> list[tuple[bytes, bytes, bytes, bytes]]:
    """The field lines of `req` as the client wrote them: (name, OWS, value, OWS) each; none
    when the connection's tap does not hold its head."""
    written = _written(req)
    if written is None:
        return []
    head = written.split(b"\r\n\r\n", 1)[0]
    out = []
    for field_line in head.split(b"\r\n"):
        m = _FIELD_LINE.fullmatch(field_line)
        if m is not None:
            out.append((m[1], m[2], m[3], m[4]))
    return out


def written_chunk_sizes(req: RelayRequest) -> list[bytes]:
    """The chunk sizes of a chunked `req` as the client wrote them, the last chunk's included,
    each without its chunk extensions; none when the connection's tap does not hold the
    request."""
    written = _written(req)
    end = written.find(b"\r\n\r\n") if written is not None else -1
    if written is None or end < 0:
        return []
    at = end + 4
    sizes: list[bytes] = []
    while True:
        eol = written.find(b"\r\n", at)
        if eol < 0:
            return sizes
        spelt = written[at:eol].split(b";", 1)[0].strip(b" \t")
        try:
            size = int(spelt, 16)
        except ValueError:
            return sizes
        sizes.append(spelt)
        if size == 0:
            return sizes
        at = eol + 2 + size + 2
