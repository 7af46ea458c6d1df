"""Planted violations of the edges of references (spec 7.7, 6.3, 6.4): malformed references
sent on as text, a target refused after substitution answered otherwise than skipped, the
skipped part's problem document, the fields `$(N:name)` may name, and the href of a part in the
XML and JSON forms of a references batch; a reference's index read by a number parser (an
integer parser, strtoul's leading digits, an unsigned 64-bit integer that wraps) instead of by
`part-index`, and its field name read otherwise than as a `token` (octet by octet, trimmed, or
letters, digits and hyphens only).

Theory of operation: the reference server refuses a malformed reference, so a server that reads
it as text is made by escaping it as `$$(` before the server sees it, and one that reads its
index as a number parser does by writing the number that parser reads in its place. A server that reads
`Content-Length`, `Http-Status-Code` or `Content-Id` of the response part sees the field name
turned into `Content-Type`, which the response part does carry. The other plants edit the answer:
a skipped part turned into a failing one, the whole batch refused, the problem's `status` moved
out of 4xx or dropped, its `reference` naming the whole value the reference stands in, hrefs written from the Content-Id where the target ran substituted,
or left unresolved where the part was skipped, and a skipped part's XML entry written without
its header fields; and a part whose own credentials hold a reference given the batch's too.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlsplit

from mixbatch_conformance.run.mutations import Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    Part,
    all_of,
    body_has,
    boundary_of,
    field_of,
    header_has,
    map_json,
    map_parts,
    map_xml,
    parts_of,
    refuses,
    set_field,
    without_field,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

_REFERENCES = header_has("Batch-Mode", r"(?i)\breferences\b")
_TOKEN = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
#: At each `$`: `$$(`, else `$(` with the rest of a reference, else a bare `$(` (spec 7.7).
_SCAN = re.compile(r"\$\$\(|\$\((?:(?:0|[1-9][0-9]*)(?::" + _TOKEN + r")?\))?")
#: The part fields that carry no reference: the method and the framing of the content.
_NOT_REFERENCES = frozenset({"http-method", "content-length", "content-type"})


def _escape_malformed(value: str) -> str:
    return _SCAN.sub(lambda m: "$$(" if m.group(0) == "$(" else m.group(0), value)


def _malformed_as_text(parts: list[Part]) -> list[Part]:
    """A server that reads a `$(` beginning no reference as text: it is escaped before the
    reference server reads it, so the part runs with a literal `$(`."""
    return [
        ([(n, v if n.lower() in _NOT_REFERENCES else _escape_malformed(v)) for n, v in f], b)
        for f, b in parts
    ]


#: At each `$`: `$$(`, else `$(` with what stands where an index would and the rest of a
#: reference after it (an optional field name and the closing parenthesis).
_INDEX = re.compile(r"\$\$\(|\$\(([^():]*)((?::" + _TOKEN + r")?\))")
_STRTOUL = re.compile(r"[ \t]*([+-]?)([0-9]+)")


def _as_integer(index: str) -> int | None:
    """The index as an integer parser that takes whitespace around it, a sign, leading zeros,
    digit separators and any Unicode decimal digit reads it (Python's int)."""
    try:
        n = int(index.encode("latin-1").decode("utf-8"))
    except (UnicodeEncodeError, UnicodeDecodeError, ValueError):
        return None
    return n if n >= 0 else None


def _by_leading_digits(index: str) -> int | None:
    """The index as strtoul reads it: whitespace and a sign skipped, then the longest run of
    digits, whatever follows (`0x0`, `0.0`, `1_0` read as 0, 0 and 1)."""
    m = _STRTOUL.match(index)
    return int(m.group(2)) if m else None


def _wrapped_at(bits: int, parsed: int | None = None) -> Any:
    """The index of `part-index` digits read into an unsigned integer of `bits` that wraps; with
    `parsed`, read first into one of `parsed` bits, which refuses a larger index, and then cut
    to `bits` (a 32-bit parse cast to 16 bits)."""

    def read(index: str) -> int | None:
        if not re.fullmatch(r"0|[1-9][0-9]*", index):
            return None
        if parsed is not None and int(index) >= 1 << parsed:
            return None
        return int(index) % (1 << bits)

    return read


def _index_read_with(read: Any) -> Any:
    """A server that reads a reference's index with `read` instead of by `part-index`: where
    that reading is a number other than the index as written, the reference server sees the
    reference written with that number, so a spelling it refuses names an earlier part."""

    def one(m: re.Match[str]) -> str:
        if m.group(0) == "$$(":
            return m.group(0)
        n = read(m.group(1))
        if n is None or str(n) == m.group(1):
            return m.group(0)
        return f"$({n}{m.group(2)}"

    def edit(parts: list[Part]) -> list[Part]:
        return [
            ([(n, v if n.lower() in _NOT_REFERENCES else _INDEX.sub(one, v)) for n, v in f], b)
            for f, b in parts
        ]

    return edit


#: `$(N:` with whatever stands up to the closing parenthesis where the field name would.
_FIELD_REFERENCE = re.compile(r"\$\(((?:0|[1-9][0-9]*)):([^()$]*)\)")
#: A token naming no field a test resource answers with.
_NO_SUCH_FIELD = "X-Mb-No-Such-Field"


def _field_name_read_with(read: Any) -> Any:
    """A server that reads the field name of `$(N:name)` with `read` instead of as a `token`:
    where `read` gives a name other than the one written, the reference server sees the
    reference written with it, and where it gives None, a name that refuses the batch."""

    def one(m: re.Match[str]) -> str:
        name = read(m.group(2))
        if name == m.group(2):
            return m.group(0)
        return f"$({m.group(1)}:{'bad name' if name is None else name})"

    def edit(parts: list[Part]) -> list[Part]:
        return [
            (
                [
                    (n, v if n.lower() in _NOT_REFERENCES else _FIELD_REFERENCE.sub(one, v))
                    for n, v in f
                ],
                b,
            )
            for f, b in parts
        ]

    return edit


def _every_octet_a_tchar(name: str) -> str | None:
    """A name checked octet by octet, so the empty one passes and names no field."""
    if all(re.fullmatch(_TOKEN, c) for c in name):
        return name or _NO_SUCH_FIELD
    return None


def _trimmed(name: str) -> str | None:
    """A name with the whitespace around it taken off before it is checked."""
    inner = name.strip(" \t")
    return inner if inner and re.fullmatch(_TOKEN, inner) else None


def _letters_digits_hyphens(name: str) -> str | None:
    """A name checked against the letters, digits and hyphens of the field names in use."""
    return name if re.fullmatch(r"[0-9A-Za-z-]+", name) else None


def _named_field(pattern: str) -> Any:
    """A server that resolves `$(N:name)` for the names `pattern` matches: the reference
    server sees `$(N:Content-Type)`, a field part N's response part carries."""
    rx = re.compile(r"\$\(([0-9]+):(?:" + pattern + r")\)", re.IGNORECASE)

    def edit(parts: list[Part]) -> list[Part]:
        return [
            (
                [
                    (n, v if n.lower() in _NOT_REFERENCES else rx.sub(r"$(\1:Content-Type)", v))
                    for n, v in f
                ],
                b,
            )
            for f, b in parts
        ]

    return edit


def _problem_of(body: bytes) -> dict[str, Any] | None:
    if b"MB-PROC-20" not in body:
        return None
    try:
        doc = json.loads(body)
    except ValueError:
        return None
    return doc if isinstance(doc, dict) else None


def _target_refusal_failing(parts: list[Part]) -> list[Part]:
    """A part whose substituted target is refused answered as a failing 400 sub-response."""
    out = []
    for f, b in parts:
        doc = _problem_of(b)
        if doc is not None and str(doc.get("reference", "")).startswith("/"):
            f = [*without_field(f, "Batch-Outcome"), ("Http-Status-Code", "400")]
        out.append((f, b))
    return out


def _reference_named_with_its_value(req: RelayRequest, resp: RelayResponse) -> None:
    """A skipped part's problem naming the whole field value (or Content-Id) its unresolved
    reference stands in, as a server that reports the value it was substituting in does."""
    asked, answered = boundary_of(req), boundary_of(resp)
    if not (asked and answered and _REFERENCES(req)):
        return
    sent, parts = parts_of(req.body, asked), parts_of(resp.body, answered)
    if sent is None or parts is None:
        return
    out = []
    for i, (f, b) in enumerate(parts):
        doc = _problem_of(b) if field_of(f, "Batch-Outcome") == "skipped" else None
        written = str((doc or {}).get("reference", ""))
        values = [v.strip(" \t") for _, v in sent[i][0]] if i < len(sent) else []
        whole = next((v for v in values if written and written in v and v != written), None)
        if doc is not None and whole is not None:
            doc["reference"] = (
                whole[1:-1] if whole.startswith("<") and whole.endswith(">") else whole
            )
            b = json.dumps(doc).encode()
            f = set_field(f, "Content-Length", str(len(b)))
        out.append((f, b))
    resp.body = write_parts(out, answered)


def _problem_edit(edit: Any) -> Any:
    def parts_edit(parts: list[Part]) -> list[Part]:
        out = []
        for f, b in parts:
            doc = _problem_of(b) if field_of(f, "Batch-Outcome") == "skipped" else None
            if doc is not None:
                edit(doc)
                b = json.dumps(doc).encode()
                f = set_field(f, "Content-Length", str(len(b)))
            out.append((f, b))
        return out

    return parts_edit


def _status_500(doc: dict[str, Any]) -> None:
    doc["status"] = 500


def _status_dropped(doc: dict[str, Any]) -> None:
    doc.pop("status", None)


def _json_ran_href_as_written(doc: dict[str, Any]) -> None:
    """The JSON entry of a part that ran with a reference: href from its Content-Id as written."""
    for entry in doc.get("responses") or []:
        cid = entry.get("content_id")
        if entry.get("outcome") is None and isinstance(cid, str) and "$(" in cid:
            entry["href"] = "/" + cid.lstrip("/")


def _json_skipped_href_unresolved(doc: dict[str, Any]) -> None:
    """The JSON entry of a skipped part: href the Content-Id as written, not resolved."""
    for entry in doc.get("responses") or []:
        cid = entry.get("content_id")
        if entry.get("outcome") == "skipped" and isinstance(cid, str) and "$(" in cid:
            entry["href"] = cid


_XML_ENTRY = re.compile(rb"<D:response>.*?</D:response>", re.DOTALL)


def _xml_ran_href_as_written(body: bytes) -> bytes:
    """The XML entry of a part that ran with a reference: href from its Content-Id as written."""

    def one(m: re.Match[bytes]) -> bytes:
        entry = m.group(0)
        cid = re.search(rb"<mb:content-id>([^<]*)</mb:content-id>", entry)
        if cid is None or b"$(" not in cid.group(1) or b"<mb:outcome>" in entry:
            return entry
        href = b"/" + cid.group(1).lstrip(b"/")
        return re.sub(rb"<D:href>[^<]*</D:href>", b"<D:href>" + href + b"</D:href>", entry)

    return _XML_ENTRY.sub(one, body)


def _xml_skipped_href_substituted(body: bytes) -> bytes:
    """The XML entry of a part skipped for a field reference: href its Content-Id reference
    substituted with the Location of the part it names, as though the part had run."""
    entries = _XML_ENTRY.findall(body)
    locations: dict[bytes, bytes] = {}
    for entry in entries:
        index = re.search(rb"<mb:index>(\d+)</mb:index>", entry)
        location = re.search(rb'<mb:header name="Location">([^<]*)</mb:header>', entry)
        if index is not None and location is not None:
            locations[index.group(1)] = location.group(1)

    def one(m: re.Match[bytes]) -> bytes:
        entry = m.group(0)
        cid = re.search(rb"<mb:content-id>\$\((\d+)\)</mb:content-id>", entry)
        if cid is None or b"skipped" not in entry or cid.group(1) not in locations:
            return entry
        href = urlsplit(locations[cid.group(1)].decode("latin-1")).path.encode("latin-1")
        return re.sub(rb"<D:href>[^<]*</D:href>", b"<D:href>" + href + b"</D:href>", entry)

    return _XML_ENTRY.sub(one, body)


def _own_credential_with_reference_joined(req: RelayRequest) -> None:
    """A server that decides whether a part has credentials of its own from the fields holding
    no reference: a part whose own Authorization or Cookie holds one gets the batch's too."""
    b = boundary_of(req)
    if b is None or "references" not in (req.get("Batch-Mode") or "").lower():
        return
    parts = parts_of(req.body, b)
    if parts is None:
        return
    out = []
    for fields, body in parts:
        for name in ("Authorization", "Cookie"):
            own, outer = field_of(fields, name), req.get(name)
            if own is not None and "$(" in own and outer is not None:
                fields = [*fields, (name, outer)]
        out.append((fields, body))
    req.body = write_parts(out, b)


def _xml_skipped_fields_dropped(body: bytes) -> bytes:
    """The XML entry of a skipped part written without its header fields, as a writer that
    lists fields only for parts that ran does: the problem document loses its Content-Type."""

    def one(m: re.Match[bytes]) -> bytes:
        entry = m.group(0)
        if b"<mb:outcome>skipped</mb:outcome>" not in entry:
            return entry
        return re.sub(rb"<mb:header\b[^>]*>[^<]*</mb:header>", b"", entry)

    return _XML_ENTRY.sub(one, body)


P = Mutation

PLANTS: tuple[Mutation, ...] = (
    # MB-SUB-5: a part's own Authorization or Cookie replaces the batch's, a reference in it
    # or not.
    P(
        "own-credential-with-reference-joined-by-outer",
        "MB-SUB-5 a part whose own Authorization or Cookie holds a reference also given the batch's",
        ("references-own-credentials-substituted",),
        on_request=_own_credential_with_reference_joined,
    ),
    # MB-MULTI-5: every form carries a skipped part's header fields, its problem's
    # Content-Type among them.
    P(
        "xml-skipped-entry-fields-dropped",
        "MB-MULTI-5 the XML entry of a part skipped for an unresolved reference written without its header fields",
        ("references-unresolved-skipped",),
        on_response=map_xml(_xml_skipped_fields_dropped),
    ),
    # MB-PROC-19: a `$(` that "neither begins a `reference` nor belongs to a `$$(`" is a 400.
    P(
        "malformed-reference-sent-as-text",
        "MB-PROC-19 a malformed reference run as literal text",
        ("references-malformed-refused",),
        on_request_parts=_malformed_as_text,
    ),
    # Spec 7.7: "A `part-index` is US-ASCII digits alone, read as a decimal number", so a
    # number parser's other spellings begin no reference (MB-PROC-19), and an index past 2^64
    # names a part that does not exist.
    P(
        "reference-index-read-as-integer",
        "MB-PROC-19 a reference index read by an integer parser (signs, leading zeros, whitespace, 1_0, fullwidth digits)",
        ("references-index-spellings",),
        on_request_parts=_index_read_with(_as_integer),
    ),
    P(
        "reference-index-read-by-leading-digits",
        "MB-PROC-19 a reference index read by its leading digits, as strtoul reads it (0x0, 0.0, +1, 0 )",
        ("references-index-spellings",),
        on_request_parts=_index_read_with(_by_leading_digits),
    ),
    P(
        "reference-index-wrapped-at-2-64",
        "MB-PROC-19 a reference index past 2^64 wrapped to a part that exists",
        ("references-index-spellings",),
        on_request_parts=_index_read_with(_wrapped_at(64)),
    ),
    P(
        "reference-index-cut-to-16-bits",
        "MB-PROC-19 a reference index read as 32 bits and cut to 16, so 2^16 names part 0",
        ("references-index-spellings",),
        on_request_parts=_index_read_with(_wrapped_at(16, parsed=32)),
    ),
    # Spec 7.7: "field-name = token", so `$(0:)` and a spaced name begin no reference
    # (MB-PROC-19), and every tchar may stand in a name that resolves or names nothing
    # (MB-PROC-20).
    P(
        "reference-field-name-empty-taken",
        "MB-PROC-19 a reference's field name checked octet by octet, so $(0:) names a field that is not there",
        ("references-field-name-spellings",),
        on_request_parts=_field_name_read_with(_every_octet_a_tchar),
    ),
    P(
        "reference-field-name-trimmed",
        "MB-PROC-19 a reference's field name trimmed of the whitespace around it",
        ("references-field-name-spellings",),
        on_request_parts=_field_name_read_with(_trimmed),
    ),
    P(
        "reference-field-name-alphanumeric-only",
        "MB-PROC-20 a reference whose field name holds a tchar other than a letter, digit or hyphen refused as malformed",
        ("references-field-name-spellings",),
        on_request_parts=_field_name_read_with(_letters_digits_hyphens),
    ),
    P(
        "unresolved-reference-named-with-its-value",
        "MB-PROC-20 a skipped part's problem naming the whole field value its unresolved reference stands in",
        ("references-unresolved-named-alone",),
        on_response=_reference_named_with_its_value,
    ),
    # MB-PROC-20: a target that fails 8.3 or 8.4 once substituted leaves its part skipped.
    P(
        "substituted-target-refusal-failing",
        "MB-PROC-20 a target refused after substitution answered as a failing part",
        ("references-target-refused-after-substitution",),
        on_response=map_parts(_target_refusal_failing, _REFERENCES),
    ),
    P(
        "substituted-target-refusal-refuses-batch",
        "MB-PROC-20 a target refused after substitution refusing the whole batch",
        ("references-target-refused-after-substitution",),
        on_response=refuses(
            all_of(_REFERENCES, body_has(rb"\r\nContent-Id: </\$\(")), requirement="MB-SUB-2"
        ),
    ),
    # MB-PROC-20: the problem document "that the problem schema admits, whose `status` is a
    # 4xx code".
    P(
        "unresolved-problem-status-5xx",
        "MB-PROC-20 the skipped part's problem status not 4xx",
        ("references-unresolved-skipped",),
        on_response=map_parts(_problem_edit(_status_500), _REFERENCES),
    ),
    P(
        "unresolved-problem-without-status",
        "MB-PROC-20 the skipped part's problem outside the problem schema",
        ("references-unresolved-skipped",),
        on_response=map_parts(_problem_edit(_status_dropped), _REFERENCES),
    ),
    # Spec 7.7: `$(N:name)` reads only the fields MB-RESP-4 carries into the response part.
    P(
        "reference-reads-dropped-field",
        "MB-PROC-20 $(N:Content-Length) resolved from the sub-response",
        ("references-part-fields-only",),
        on_request_parts=_named_field("Content-Length"),
    ),
    P(
        "reference-reads-part-control-field",
        "MB-PROC-20 $(N:Http-Status-Code) and $(N:Content-Id) resolved from the response part",
        ("references-part-fields-only",),
        on_request_parts=_named_field("Http-Status-Code|Content-Id"),
    ),
    # Spec 6.3, 6.4: href is the target a part ran with; for a skipped part, its Content-Id
    # resolved as written.
    P(
        "json-ran-reference-href-as-written",
        "MB-MULTI-4 a part that ran with a reference given its Content-Id as href",
        ("references-href-by-form",),
        on_response=map_json(_json_ran_href_as_written, _REFERENCES),
    ),
    P(
        "json-skipped-reference-href-unresolved",
        "MB-MULTI-4 a skipped part's href its Content-Id unresolved",
        ("references-href-by-form",),
        on_response=map_json(_json_skipped_href_unresolved, _REFERENCES),
    ),
    P(
        "xml-skipped-reference-href-substituted",
        "MB-MULTI-6 a part skipped for a field reference given its substituted target as href",
        ("references-href-by-form",),
        on_response=map_xml(_xml_skipped_href_substituted, _REFERENCES),
    ),
    P(
        "xml-ran-reference-href-as-written",
        "MB-MULTI-6 a part that ran with a reference given its Content-Id as href",
        ("references-href-by-form",),
        on_response=map_xml(_xml_ran_href_as_written, _REFERENCES),
    ),
)
