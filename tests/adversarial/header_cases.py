"""Header-section faults: the outer request line and fields, and the part header sections.

Outer faults are decided by RFC 9112 §2-§5 and RFC 9110 §5; part header sections by the spec's
MB-WIRE-8 (bare CR or LF), MB-PART-11 (field-line syntax, obs-fold), MB-PART-2 and MB-PART-4
(exactly one valid Http-Method and Content-Id). CRLF injection through Content-Id or Http-Method
values can only ever produce another field line or an early end of the section, and each of
those is one of the faults above.
"""

from __future__ import annotations

from ._case import BOUNDARY, CLOSED_SILENTLY, Case, Close, batch, part, post, statuses
from ._case import NORMAL_CONTENT as C

__all__ = ["CASES"]

N = len(C)
HEAD = (
    f"Host: test\r\nContent-Type: multipart/mixed; boundary={BOUNDARY}\r\nContent-Length: {N}\r\n"
)


def raw(request_line: bytes, fields: bytes = HEAD.encode(), content: bytes = C) -> bytes:
    return request_line + b"\r\n" + fields + b"\r\n" + content


def in_part(head: bytes, body: bytes = b"") -> bytes:
    """A batch whose one part has the header section ``head`` (written as is)."""
    return post(batch(part(raw_head=head) + body))


OUTER = [
    Case(
        "request-line-bare-cr",
        raw(b"POST /batch\rHTTP/1.1"),
        statuses(400, CLOSED_SILENTLY),
        "RFC 9112 §2.2: a bare CR outside content is invalid; the request line cannot be parsed",
        Close.MUST,
    ),
    Case(
        "request-line-nul-in-target",
        raw(b"POST /ba\x00tch HTTP/1.1"),
        statuses(400, CLOSED_SILENTLY),
        "RFC 9112 §3.2: a request-target holds no NUL",
        Close.MUST,
    ),
    Case(
        "request-line-bare-lf",
        b"POST /batch HTTP/1.1\n" + HEAD.encode() + b"\r\n" + C,
        statuses(200, 400),
        "RFC 9112 §2.2: a recipient MAY recognise a bare LF as a line terminator",
    ),
    Case(
        "request-line-double-space",
        raw(b"POST  /batch HTTP/1.1"),
        statuses(400, 301),
        "RFC 9112 §3: an invalid request-line SHOULD be answered 400 or 301",
    ),
    Case(
        "request-line-space-in-target",
        raw(b"POST /batch x HTTP/1.1"),
        statuses(400),
        "RFC 9112 §3.2: the request-target holds no whitespace",
        Close.MUST,
    ),
    Case(
        "host-missing",
        raw(b"POST /batch HTTP/1.1", HEAD.replace("Host: test\r\n", "").encode()),
        statuses(400),
        "RFC 9112 §3.2: a request without Host MUST be answered 400",
    ),
    Case(
        "host-twice",
        raw(b"POST /batch HTTP/1.1", b"Host: test\r\n" + HEAD.encode()),
        statuses(400),
        "RFC 9112 §3.2: more than one Host field line MUST be answered 400",
    ),
    Case(
        "field-obs-fold",
        raw(b"POST /batch HTTP/1.1", HEAD.encode() + b"X-Folded: a\r\n b\r\n"),
        statuses(200, 400),
        "RFC 9112 §5.2: obs-fold is rejected with 400 or replaced by SP",
    ),
    Case(
        "content-type-obs-fold",
        raw(b"POST /batch HTTP/1.1", HEAD.replace("; boundary", ";\r\n boundary").encode()),
        statuses(200, 400),
        "RFC 9112 §5.2: obs-fold is rejected with 400 or replaced by SP",
    ),
    Case(
        "field-value-bare-cr",
        raw(b"POST /batch HTTP/1.1", HEAD.encode() + b"X-A: a\rb\r\n"),
        statuses(200, 400),
        "RFC 9112 §2.2: a bare CR is invalid or replaced by SP",
    ),
    Case(
        "field-value-nul",
        raw(b"POST /batch HTTP/1.1", HEAD.encode() + b"X-A: a\x00b\r\n"),
        statuses(200, 400),
        "RFC 9110 §5.5: a value holding NUL is rejected or the NUL replaced by SP",
    ),
    Case(
        "field-line-bare-lf",
        raw(b"POST /batch HTTP/1.1", HEAD.encode() + b"X-A: a\nX-B: b\r\n"),
        statuses(200, 400),
        "RFC 9112 §2.2: a recipient MAY recognise a bare LF as a line terminator",
    ),
    Case(
        "field-name-bare-cr",
        raw(b"POST /batch HTTP/1.1", HEAD.encode() + b"X\rA: a\r\n"),
        statuses(400),
        "RFC 9110 §5.1: a field name is a token",
        Close.MUST,
    ),
    Case(
        "field-name-nul",
        raw(b"POST /batch HTTP/1.1", HEAD.encode() + b"X\x00A: a\r\n"),
        statuses(400),
        "RFC 9110 §5.1: a field name is a token",
        Close.MUST,
    ),
    Case(
        "field-line-without-colon",
        raw(b"POST /batch HTTP/1.1", HEAD.encode() + b"NoColonHere\r\n"),
        statuses(400),
        'RFC 9112 §5: field-line = field-name ":" OWS field-value OWS',
        Close.MUST,
    ),
    Case(
        "field-name-empty",
        raw(b"POST /batch HTTP/1.1", HEAD.encode() + b": empty\r\n"),
        statuses(400),
        "RFC 9110 §5.1: a field name is a non-empty token",
        Close.MUST,
    ),
    Case(
        "content-type-twice-equal",
        post(C, fields=[("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]),
        statuses(400, 415),
        "RFC 9110 §5.3 and MB-WIRE-2: Content-Type is a singleton; two lines make no media type",
    ),
    Case(
        "content-type-twice-differing",
        post(C, fields=[("Content-Type", "multipart/mixed; boundary=other")]),
        statuses(400, 415),
        "RFC 9110 §5.3 and MB-WIRE-2: Content-Type is a singleton; two lines make no media type",
    ),
    Case(
        "content-encoding-gzip",
        post(C, fields=[("Content-Encoding", "gzip")]),
        statuses(415),
        "RFC 9110 §15.5.16: content in a coding the server does not accept is answered 415",
    ),
    Case(
        "accept-empty",
        post(C, fields=[("Accept", "")]),
        statuses(200, 406),
        "MB-MULTI-1 and MB-STATUS-9: an empty Accept admits multipart/mixed (200) or nothing (406)",
    ),
    Case(
        "content-type-not-multipart",
        post(C, content_type="text/plain"),
        statuses(415),
        "MB-WIRE-2: a media type other than multipart/mixed is answered 415",
        requirement="MB-WIRE-2",
    ),
    Case(
        "boundary-twice",
        post(C, content_type=f"multipart/mixed; boundary={BOUNDARY}; boundary=x"),
        statuses(400),
        "MB-WIRE-4: an invalid boundary parameter is answered 400",
        requirement="MB-WIRE-4",
    ),
    Case(
        "boundary-empty",
        post(C, content_type="multipart/mixed; boundary="),
        statuses(400),
        "MB-WIRE-4: an empty boundary parameter is answered 400",
        requirement="MB-WIRE-4",
    ),
    Case(
        "boundary-71-chars",
        post(
            batch(part(), boundary="b" * 71), content_type="multipart/mixed; boundary=" + "b" * 71
        ),
        statuses(400),
        "MB-WIRE-4: an over-long boundary is answered 400",
        requirement="MB-WIRE-4",
    ),
]

PARTS = [
    Case(
        "part-header-bare-cr",
        in_part(b"Http-Method: GET\r\nContent-Id: </books/1>\rX-A: b\r\n\r\n"),
        statuses(400),
        "MB-WIRE-8: a bare CR in a part header section is rejected",
        requirement="MB-WIRE-8",
    ),
    Case(
        "part-header-bare-lf",
        in_part(b"Http-Method: GET\nContent-Id: </books/1>\r\n\r\n"),
        statuses(400),
        "MB-WIRE-8: a bare LF in a part header section is rejected",
        requirement="MB-WIRE-8",
    ),
    Case(
        "part-header-nul",
        in_part(b"Http-Method: GET\r\nContent-Id: </books/1>\r\nX-A: a\x00b\r\n\r\n"),
        statuses(400),
        "MB-PART-11: a part header line that is not a valid field-line is answered 400",
    ),
    Case(
        "part-header-obs-fold",
        in_part(b"Http-Method: GET\r\nContent-Id: </books/1>\r\nX-A: a\r\n b\r\n\r\n"),
        statuses(400),
        "MB-PART-11: obs-fold in a part header section is answered 400",
        requirement="MB-PART-11",
    ),
    Case(
        "part-header-space-before-colon",
        in_part(b"Http-Method : GET\r\nContent-Id: </books/1>\r\n\r\n"),
        statuses(400),
        "MB-PART-11: a part header line that is not a valid field-line is answered 400",
    ),
    Case(
        "part-delimiter-bare-lf",
        post(
            f"--{BOUNDARY}\nHttp-Method: GET\r\nContent-Id: </books/1>\r\n\r\n\r\n--{BOUNDARY}--\r\n".encode()
        ),
        statuses(400),
        "MB-WIRE-8: a delimiter line ended by a bare LF is rejected",
        requirement="MB-WIRE-8",
    ),
    Case(
        "part-delimiter-trailing-text",
        post(
            f"--{BOUNDARY}junk\r\nHttp-Method: GET\r\nContent-Id: </books/1>\r\n\r\n\r\n--{BOUNDARY}--\r\n".encode()
        ),
        statuses(400),
        "MB-WIRE-19: text after the dash-boundary is rejected",
        requirement="MB-WIRE-19",
    ),
    Case(
        "content-id-crlf-injects-method",
        in_part(b"Http-Method: GET\r\nContent-Id: </books/1>\r\nHttp-Method: DELETE\r\n\r\n"),
        statuses(400),
        "MB-PART-2: a repeated Http-Method is answered 400",
        requirement="MB-PART-2",
    ),
    Case(
        "content-id-crlf-inside-brackets",
        in_part(b"Http-Method: GET\r\nContent-Id: </books/1\r\nX-Injected: y>\r\n\r\n"),
        statuses(400),
        "MB-PART-4: a Content-Id that is not '<' URI-reference '>' is answered 400",
        requirement="MB-PART-4",
    ),
    Case(
        "content-id-crlfcrlf-ends-section-early",
        in_part(
            b"Http-Method: POST\r\nContent-Id: </echo>\r\n\r\nHttp-Method: GET\r\nContent-Id: </books/2>\r\n\r\n"
        ),
        statuses(200),
        "MB-PART-8: after the blank line everything up to the delimiter is the part body",
        check="one_part_answered",
    ),
    Case(
        "content-id-with-space",
        in_part(b"Http-Method: GET\r\nContent-Id: </books/1 x>\r\n\r\n"),
        statuses(400),
        "MB-PART-4: a Content-Id that is not '<' URI-reference '>' is answered 400",
        requirement="MB-PART-4",
    ),
    Case(
        "content-id-with-nul",
        in_part(b"Http-Method: GET\r\nContent-Id: </books/\x001>\r\n\r\n"),
        statuses(400),
        "MB-PART-4 and MB-PART-11: NUL is neither URI nor field-value",
    ),
    Case(
        "content-id-twice",
        in_part(b"Http-Method: GET\r\nContent-Id: </books/1>\r\nContent-Id: </books/2>\r\n\r\n"),
        statuses(400),
        "MB-PART-4: more than one Content-Id is answered 400",
        requirement="MB-PART-4",
    ),
    Case(
        "http-method-request-line-injection",
        in_part(b"Http-Method: GET /admin HTTP/1.1\r\nContent-Id: </books/1>\r\n\r\n"),
        statuses(400),
        "MB-PART-2: an Http-Method that is not a method token is answered 400",
        requirement="MB-PART-2",
    ),
    Case(
        "http-method-with-crlf-host",
        in_part(b"Http-Method: GET\r\nHost: evil\r\nContent-Id: </books/1>\r\n\r\n"),
        statuses(400),
        "MB-PART-10: a part carrying Host is answered 400",
        requirement="MB-PART-10",
    ),
    Case(
        "http-method-empty",
        in_part(b"Http-Method: \r\nContent-Id: </books/1>\r\n\r\n"),
        statuses(400),
        "MB-PART-2: an empty Http-Method is answered 400",
        requirement="MB-PART-2",
    ),
    Case(
        "http-method-trace",
        post(batch(part("TRACE"))),
        statuses(400),
        "MB-SUB-3: TRACE in a part is answered 400",
        requirement="MB-SUB-3",
    ),
    Case(
        "http-method-connect",
        post(batch(part("CONNECT", "test:80"))),
        statuses(400),
        "MB-SUB-3: CONNECT in a part is answered 400",
    ),
    Case(
        "part-transfer-encoding",
        post(batch(part(fields=[("Transfer-Encoding", "chunked")]))),
        statuses(400),
        "MB-PART-10: a part carrying Transfer-Encoding is answered 400",
        requirement="MB-PART-10",
    ),
    Case(
        "part-content-length-plus",
        in_part(b"Http-Method: PUT\r\nContent-Id: </echo>\r\nContent-Length: +2\r\n\r\n", b"ab"),
        statuses(400),
        "MB-WIRE-20: a part Content-Length that is not 1*DIGIT is rejected",
        requirement="MB-WIRE-20",
    ),
    Case(
        "part-content-length-twice",
        in_part(
            b"Http-Method: PUT\r\nContent-Id: </echo>\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n",
            b"ab",
        ),
        statuses(400),
        "MB-WIRE-20: more than one part Content-Length is rejected",
        requirement="MB-WIRE-20",
    ),
    Case(
        "part-content-length-mismatch",
        in_part(b"Http-Method: PUT\r\nContent-Id: </echo>\r\nContent-Length: 5\r\n\r\n", b"ab"),
        statuses(400),
        "MB-WIRE-17: a part Content-Length that differs from its octets is rejected",
        requirement="MB-WIRE-17",
    ),
    Case(
        "batch-without-parts",
        post(f"--{BOUNDARY}--\r\n".encode()),
        statuses(400),
        "MB-WIRE-18: an empty batch is answered 400",
        requirement="MB-WIRE-18",
    ),
    Case(
        "batch-without-close-delimiter",
        post(C[: -len(f"--{BOUNDARY}--\r\n")]),
        statuses(400),
        "MB-WIRE-13: content that ends without the close delimiter is answered 400",
        requirement="MB-WIRE-13",
    ),
    Case(
        "head-part-unrouted-has-no-body",
        post(batch(part("HEAD", "/no/such/path"))),
        statuses(200),
        "RFC 9110 §9.3.2 and MB-RESP-4: a HEAD response has no content, in a part as alone",
        check="head_parts_have_no_body",
    ),
]

CASES = OUTER + PARTS
