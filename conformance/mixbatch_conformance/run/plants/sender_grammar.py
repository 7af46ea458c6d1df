"""Planted answers that break a sender's grammar where a lenient reader takes them anyway.

Each plant writes a value or a message the way a server with a careless writer does, where a
reader built on a general-purpose library would read it as the right one: an HTTP/1.1 head with
bare LFs, a folded or space-padded field line, no space after the status code, a field given
twice, a control octet in a value, a chunk line with whitespace (RFC 9112, RFC 9110 §5); a JSON
member given twice with two values (RFC 8259 §4), a capabilities, echo or sandbox document
after a byte order mark (RFC 8259 §8.1); base64 whose pad bits are not zero (RFC 4648 §3.5);
an XML index in digits of another script, an outcome or media type followed by a no-break
space, a status phrase holding DEL; an HTTP-date in an obsolete form or on the wrong weekday
(RFC 9110 §5.6.7), or a delay followed by a no-break space; a Batch-Summary member with spaces
around its `=` (RFC 9651); Preference-Applied naming a preference that merely begins like
`batch-on-error=stop`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from mixbatch_conformance.run.mutations import Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    boundary_of,
    field_of,
    is_batch,
    map_response,
    map_xml,
    parts_of,
)
from mixbatch_conformance.transport.relay import TRAILER_PREFIX, RelayRequest, RelayResponse

__all__ = ["PLANTS"]

BOM = b"\xef\xbb\xbf"
#: The base64 alphabet (RFC 4648 §4, Table 1), each character's place its value.
B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def _head_and_rest(data: bytes) -> tuple[bytes, bytes]:
    head, _, rest = data.partition(b"\r\n\r\n")
    return head, rest


def _wire(edit: Callable[[bytes], bytes]) -> Callable[[RelayResponse], None]:
    """A response whose framed octets `edit` rewrites (see RelayResponse.wire)."""

    def apply(resp: RelayResponse) -> None:
        resp.wire = edit

    return apply


def _no_space_after_code(data: bytes) -> bytes:
    return re.sub(rb"\A(HTTP/1\.1 [0-9]{3}) [^\r\n]*\r\n", rb"\1\r\n", data, count=1)


def _bare_lf_head(data: bytes) -> bytes:
    head, rest = _head_and_rest(data)
    return head.replace(b"\r\n", b"\n") + b"\n\n" + rest


def _folded_content_type(data: bytes) -> bytes:
    return re.sub(rb"(?i)(\r\ncontent-type: [^;\r\n]*;)[ \t]*", rb"\1\r\n ", data, count=1)


def _space_before_colon(data: bytes) -> bytes:
    return re.sub(rb"(?i)\r\ncontent-type:", b"\r\nContent-Type :", data, count=1)


def _length_twice(data: bytes) -> bytes:
    return re.sub(rb"(?i)(\r\ncontent-length: [0-9]+)", rb"\1\1", data, count=1)


def _control_octet(data: bytes) -> bytes:
    head, rest = _head_and_rest(data)
    return head + b"\r\nX-Mb-Note: planted\x01note\r\n\r\n" + rest


def _chunked_with_whitespace(data: bytes) -> bytes:
    """The content sent chunked in one chunk whose size line carries a space."""
    head, rest = _head_and_rest(data)
    head = re.sub(rb"(?i)\r\ncontent-length: [0-9]+", b"\r\nTransfer-Encoding: chunked", head)
    chunk = b"%x \r\n%s\r\n" % (len(rest), rest) if rest else b""
    return head + b"\r\n\r\n" + chunk + b"0\r\n\r\n"


def _content_type_twice(resp: RelayResponse) -> None:
    value = resp.get("Content-Type")
    if value is not None:
        resp.headers.append(("Content-Type", value))


def _is_problem(req: RelayRequest, resp: RelayResponse) -> bool:
    return resp.status >= 400 and "problem+json" in (resp.get("Content-Type") or "")


def _problem_type_with_nbsp(req: RelayRequest, resp: RelayResponse) -> None:
    """A problem document's media type followed by a no-break space (0xA0, obs-text): no
    token, so no media type, though a text library strips it as space."""
    if _is_problem(req, resp):
        resp.set("Content-Type", "application/problem+json\xa0")


# -- JSON texts ------------------------------------------------------------------------------
def _json_status_twice(req: RelayRequest, resp: RelayResponse) -> None:
    """The JSON form's first entry naming `status` twice: 599 first, its own status after it,
    which a reader that keeps the last value reads alone."""
    if is_batch(req) and resp.status == 207 and "json" in (resp.get("Content-Type") or ""):
        resp.body = re.sub(
            rb'(\{\s*)("index"\s*:\s*0\s*,)', rb'\1"status": 599, \2', resp.body, count=1
        )


def _capabilities_bom(req: RelayRequest, resp: RelayResponse) -> None:
    if req.method == "OPTIONS" and "capabilities+json" in (resp.get("Content-Type") or ""):
        resp.body = BOM + resp.body


def _is_echo(req: RelayRequest) -> bool:
    return req.target.split("?")[0] == "/echo" and req.method != "HEAD"


def _echo_bom(req: RelayRequest, resp: RelayResponse) -> None:
    if _is_echo(req) and resp.status == 200:
        resp.body = BOM + resp.body


def _sandbox_member_bom(req: RelayRequest, resp: RelayResponse) -> None:
    """A sandbox member read alone, or in a batch's part, after a byte order mark."""
    member = re.compile(rb"\A\{")
    if req.method == "GET" and re.fullmatch(r"/books/[0-9]+", req.target) and resp.status == 200:
        resp.body = member.sub(BOM + b"{", resp.body, 1)
        return
    b = boundary_of(resp)
    parts = parts_of(resp.body, b) if b and is_batch(req) else None
    if parts is None or b is None:
        return
    cids = re.findall(rb"(?im)^Content-Id:[ \t]*<(.*?)>[ \t]*\r?$", req.body)
    methods = re.findall(rb"(?im)^Http-Method:[ \t]*(.*?)[ \t]*\r?$", req.body)
    edited = []
    for i, (fields, body) in enumerate(parts):
        target = cids[i].decode("latin-1") if i < len(cids) else ""
        method = methods[i] if i < len(methods) else b""
        if method == b"GET" and re.fullmatch(r"/books/[0-9]+", target) and body[:1] == b"{":
            body = BOM + body
            fields = [
                (n, str(len(body)) if n.lower() == "content-length" else v) for n, v in fields
            ]
        edited.append((fields, body))
    resp.body = write_parts(edited, b)


# -- base64 ----------------------------------------------------------------------------------
def _pad_bit_set(text: str) -> str:
    """`text`, base64 ending in padding, with the lowest pad bit of its last quantum set."""
    m = re.search(r"([A-Za-z0-9+/])(=+)$", text)
    if m is None:
        return text
    value = B64.index(m.group(1))
    return text[: m.start(1)] + B64[value | 1] + m.group(2)


def _echo_pad_bits(req: RelayRequest, resp: RelayResponse) -> None:
    if _is_echo(req) and resp.status == 200:
        resp.body = re.sub(
            rb'("body_base64"\s*:\s*")([^"]*)"',
            lambda m: m.group(1) + _pad_bit_set(m.group(2).decode("ascii")).encode() + b'"',
            resp.body,
        )


def _json_pad_bits(req: RelayRequest, resp: RelayResponse) -> None:
    if is_batch(req) and resp.status == 207 and "json" in (resp.get("Content-Type") or ""):
        resp.body = re.sub(
            rb'("body_base64"\s*:\s*")([^"]*)"',
            lambda m: m.group(1) + _pad_bit_set(m.group(2).decode("ascii")).encode() + b'"',
            resp.body,
        )


def _xml_pad_bits(body: bytes) -> bytes:
    return re.sub(
        rb'(<mb:body encoding="base64">)([^<]*)(</mb:body>)',
        lambda m: m.group(1) + _pad_bit_set(m.group(2).decode("ascii")).encode() + m.group(3),
        body,
    )


# -- XML -------------------------------------------------------------------------------------
def _xml_index_other_digits(body: bytes) -> bytes:
    """Each mb:index in ARABIC-INDIC digits (U+0660 to U+0669), which Python reads as
    decimal."""
    return re.sub(
        rb"<mb:index>([0-9]+)</mb:index>",
        lambda m: (
            b"<mb:index>"
            + "".join(chr(0x660 + int(d)) for d in m.group(1).decode()).encode("utf-8")
            + b"</mb:index>"
        ),
        body,
    )


def _xml_outcome_nbsp(body: bytes) -> bytes:
    return re.sub(
        rb"<mb:outcome>([a-z-]+)</mb:outcome>",
        lambda m: b"<mb:outcome>" + m.group(1) + "\u00a0</mb:outcome>".encode(),
        body,
    )


def _xml_phrase_del(body: bytes) -> bytes:
    return re.sub(
        rb"(<D:status>HTTP/1\.1 [0-9]{3} [^<]*)(</D:status>)",
        lambda m: m.group(1) + b"\x7f" + m.group(2),
        body,
    )


# -- dates and delays ------------------------------------------------------------------------
def _stamp(value: str | None) -> datetime | None:
    try:
        when = parsedate_to_datetime(value or "")
    except (TypeError, ValueError):
        return None
    return when.astimezone(UTC) if when.tzinfo is not None else None


def _rfc850(when: datetime) -> str:
    return when.strftime("%A, %d-%b-%y %H:%M:%S GMT")


def _asctime(when: datetime) -> str:
    return when.strftime("%a %b ") + f"{when.day:2d}" + when.strftime(" %H:%M:%S %Y")


def _wrong_weekday(when: datetime) -> str:
    days = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
    return f"{days[(when.weekday() + 1) % 7]}, " + when.strftime("%d %b %Y %H:%M:%S GMT")


def _etag_resource_date(
    write: Callable[[datetime], str],
) -> Callable[[RelayRequest, RelayResponse], None]:
    """The etag_resource's Last-Modified, read alone, written as `write` writes its time."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        when = _stamp(resp.get("Last-Modified"))
        if req.method == "GET" and req.target == "/books/1" and when is not None:
            resp.set("Last-Modified", write(when))

    return edit


def _aggregate_asctime(req: RelayRequest, resp: RelayResponse) -> None:
    """A collection retrieval's aggregate Last-Modified in the asctime form, the same time."""
    when = _stamp(resp.get("Last-Modified"))
    accept = req.get("Accept") or ""
    if (
        req.method == "GET"
        and "multipart/mixed" in accept
        and when is not None
        and not is_batch(req)
    ):
        resp.set("Last-Modified", _asctime(when))


def _busy_retry_after(value: Callable[[], str]) -> Callable[[RelayRequest, RelayResponse], None]:
    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        if is_batch(req) and resp.status == 503:
            resp.set("Retry-After", value())

    return edit


def _in_a_second_rfc850() -> str:
    return _rfc850(datetime.fromtimestamp(datetime.now(UTC).timestamp() + 1, UTC))


# -- structured fields and preferences -------------------------------------------------------
def _summary_spaced(req: RelayRequest, resp: RelayResponse) -> None:
    """A Batch-Summary trailer with the right counts, spaces around each `=`."""
    b = boundary_of(resp)
    parts = parts_of(resp.body, b) if b and is_batch(req) else None
    if parts is None:
        return
    counts = {"ok": 0, "failed": 0, "skipped": 0, "rolled-back": 0}
    for fields, _ in parts:
        outcome = field_of(fields, "Batch-Outcome")
        status = field_of(fields, "Http-Status-Code") or ""
        if outcome in counts:
            counts[outcome] += 1
        elif outcome is None:
            counts["failed" if status.isdigit() and int(status) >= 400 else "ok"] += 1
    value = ", ".join(f"{k} = {n}" for k, n in counts.items())
    resp.headers.append((TRAILER_PREFIX + "Batch-Summary", value))
    resp.set("Trailer", "Batch-Summary")


def _applied_stopped(req: RelayRequest, resp: RelayResponse) -> None:
    if is_batch(req) and resp.get("Preference-Applied") is not None:
        resp.set("Preference-Applied", "batch-on-error=stopped")


P = Mutation
BATCH_HEAD = "accept-failing-part-in-processed-batch"
PLANTS: tuple[Mutation, ...] = (
    # RFC 9112 and RFC 9110 §5 on a batch's answer (MB-STATUS-1: the batch is answered with a
    # status, as HTTP/1.1 writes one).
    P(
        "batch-status-line-without-space-after-code",
        "MB-STATUS-1 the status line ends at its code, without the space RFC 9112 §4 asks for",
        (BATCH_HEAD,),
        on_response=map_response(is_batch, _wire(_no_space_after_code)),
    ),
    P(
        "batch-head-lines-end-in-bare-lf",
        "MB-STATUS-1 the answer's head lines end in LF alone",
        (BATCH_HEAD,),
        on_response=map_response(is_batch, _wire(_bare_lf_head)),
    ),
    P(
        "batch-content-type-folded",
        "MB-STATUS-1 the answer's Content-Type folded onto a second line (obs-fold)",
        (BATCH_HEAD,),
        on_response=map_response(is_batch, _wire(_folded_content_type)),
    ),
    P(
        "batch-field-name-space-before-colon",
        "MB-STATUS-1 a space between the answer's Content-Type name and its colon",
        (BATCH_HEAD,),
        on_response=map_response(is_batch, _wire(_space_before_colon)),
    ),
    P(
        "batch-content-length-twice",
        "MB-STATUS-1 the answer's Content-Length on two field lines",
        (BATCH_HEAD,),
        on_response=map_response(is_batch, _wire(_length_twice)),
    ),
    P(
        "batch-content-type-twice",
        "MB-STATUS-1 the answer's Content-Type on two field lines",
        (BATCH_HEAD,),
        on_response=map_response(is_batch, _content_type_twice),
    ),
    P(
        "batch-field-value-control-octet",
        "MB-STATUS-1 a field value holding the control octet 0x01",
        (BATCH_HEAD,),
        on_response=map_response(is_batch, _wire(_control_octet)),
    ),
    P(
        "batch-chunk-size-line-with-space",
        "MB-STATUS-1 the answer chunked with a space after the chunk size",
        (BATCH_HEAD,),
        on_response=map_response(is_batch, _wire(_chunked_with_whitespace)),
    ),
    P(
        "problem-media-type-with-no-break-space",
        "MB-STATUS-4 a refusal's Content-Type application/problem+json followed by 0xA0",
        ("method-refusal-names-requirement",),
        on_response=_problem_type_with_nbsp,
    ),
    # RFC 8259: the JSON texts a server sends.
    P(
        "json-entry-status-given-twice",
        "MB-MULTI-4 the JSON form's first entry names status twice, 599 and then its own",
        ("multistatus-json",),
        on_response=_json_status_twice,
    ),
    P(
        "capabilities-with-byte-order-mark",
        "MB-LIMIT-2 the capabilities document begins with a UTF-8 byte order mark",
        ("options-capabilities",),
        on_response=_capabilities_bom,
    ),
    P(
        "echo-with-byte-order-mark",
        "MB-TEST-2 the echo's JSON object begins with a UTF-8 byte order mark",
        ("test-resource-echo",),
        on_response=_echo_bom,
    ),
    P(
        "sandbox-member-with-byte-order-mark",
        "MB-TEST-4 a JSON sandbox member read back after a UTF-8 byte order mark",
        ("sandbox-member-outlives-batches",),
        on_response=_sandbox_member_bom,
    ),
    # RFC 4648 §3.5: "These pad bits MUST be set to zero by conforming encoders".
    P(
        "echo-body-base64-pad-bits-set",
        "MB-TEST-2 the echo's body_base64 with a pad bit set",
        ("test-resource-echo",),
        on_response=_echo_pad_bits,
    ),
    P(
        "json-body-base64-pad-bits-set",
        "MB-MULTI-7 the JSON form's body_base64 with a pad bit set",
        ("multistatus-json-body-members",),
        on_response=_json_pad_bits,
    ),
    P(
        "xml-body-base64-pad-bits-set",
        "MB-MULTI-6 the XML form's mb:body with a pad bit set",
        ("multistatus-xml",),
        on_response=map_xml(_xml_pad_bits),
    ),
    # The XML form's values.
    P(
        "xml-index-in-arabic-indic-digits",
        "MB-MULTI-3 mb:index written in ARABIC-INDIC digits",
        ("multistatus-xml",),
        on_response=map_xml(_xml_index_other_digits),
    ),
    P(
        "xml-outcome-with-no-break-space",
        "MB-MULTI-6 mb:outcome followed by a no-break space",
        ("error-policy-stop",),
        on_response=map_xml(_xml_outcome_nbsp),
    ),
    P(
        "xml-status-phrase-with-delete",
        "MB-MULTI-6 DAV:status whose reason phrase ends in DEL (0x7F)",
        ("multistatus-xml",),
        on_response=map_xml(_xml_phrase_del),
    ),
    # RFC 9110 §5.6.7: a sender generates IMF-fixdate.
    P(
        "etag-resource-last-modified-rfc850",
        "MB-TEST-1 the etag_resource's Last-Modified in the obsolete RFC 850 form",
        ("test-resources-ok-not-found-etag",),
        on_response=_etag_resource_date(_rfc850),
    ),
    P(
        "etag-resource-last-modified-wrong-weekday",
        "MB-TEST-1 the etag_resource's Last-Modified naming the day after its date's weekday",
        ("test-resources-ok-not-found-etag",),
        on_response=_etag_resource_date(_wrong_weekday),
    ),
    P(
        "aggregate-last-modified-asctime",
        "MB-METHOD-5 the aggregate Last-Modified in the obsolete asctime form",
        ("collection-last-modified",),
        caught_by=("WARN", "FAIL"),
        on_response=_aggregate_asctime,
    ),
    P(
        "busy-retry-after-rfc850-date",
        "MB-LIMIT-6 the budget's 503 with a Retry-After in the obsolete RFC 850 form",
        ("budget-refusal-retry-after",),
        caught_by=("WARN", "FAIL"),
        on_response=_busy_retry_after(_in_a_second_rfc850),
    ),
    P(
        "busy-retry-after-no-break-space",
        "MB-LIMIT-6 the budget's 503 with a Retry-After of 1 followed by a no-break space",
        ("budget-refusal-retry-after",),
        caught_by=("WARN", "FAIL"),
        on_response=_busy_retry_after(lambda: "1\xa0"),
    ),
    # RFC 9651 §4.2.2: no whitespace around a dictionary member's "=".
    P(
        "summary-trailer-spaced-equals",
        "MB-STATUS-15 a Batch-Summary trailer written ok = N, failed = N",
        ("batch-summary-trailer",),
        on_response=_summary_spaced,
    ),
    # RFC 7240 §3: Preference-Applied is a list of preferences.
    P(
        "preference-applied-stopped",
        "MB-PROC-6 Preference-Applied: batch-on-error=stopped in place of batch-on-error=stop",
        ("error-policy-stop",),
        on_response=_applied_stopped,
    ),
)
