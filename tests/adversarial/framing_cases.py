"""Framing and smuggling: Content-Length and Transfer-Encoding combinations on the outer request.

RFC 9112 §6 decides every outcome here. The dangerous ones are those where two parsers could
disagree about where the request ends: a server that answers such a request must close the
connection afterwards (§6.1, §6.3), so that no leftover octet is ever read as a next request.
"""

from __future__ import annotations

from ._case import CLOSED_SILENTLY, Case, Close, chunked, post, statuses
from ._case import NORMAL_CONTENT as C

__all__ = ["CASES"]

N = len(C)
#: A request that a desynchronised parser would read as the next one.
SMUGGLED = b"GET /books/2 HTTP/1.1\r\nHost: test\r\n\r\n"

CASES = [
    Case(
        "plain-content-length-keeps-the-connection",
        post(C),
        statuses(200),
        "RFC 9112 §9.3: HTTP/1.1 connections persist unless a close is signalled",
        Close.KEEP,
        check="all_parts_200",
    ),
    Case(
        "cl-and-te-chunked",
        post(
            chunked(C),
            fields=[("Content-Length", str(N)), ("Transfer-Encoding", "chunked")],
            length=False,
        ),
        statuses(200, 400),
        "RFC 9112 §6.1: a server MAY reject CL+TE or use TE alone; it MUST close the connection after responding",
        Close.MUST,
    ),
    Case(
        "te-then-cl-short-with-smuggled-request",
        post(
            chunked(C) + SMUGGLED,
            fields=[("Transfer-Encoding", "chunked"), ("Content-Length", "4")],
            length=False,
        ),
        statuses(200, 400),
        "RFC 9112 §6.1: CL+TE; the connection MUST close, so the trailing request is never served",
        Close.MUST,
    ),
    Case(
        "te-chunked-twice-in-two-fields",
        post(
            chunked(chunked(C)),
            fields=[("Transfer-Encoding", "chunked"), ("Transfer-Encoding", "chunked")],
            length=False,
        ),
        statuses(400, 501),
        "RFC 9112 §6.1: a sender MUST NOT apply chunked more than once; unknown framing is an error",
        Close.MUST,
    ),
    Case(
        "te-chunked-chunked-list",
        post(chunked(chunked(C)), fields=[("Transfer-Encoding", "chunked, chunked")], length=False),
        statuses(400, 501),
        "RFC 9112 §6.1: a sender MUST NOT apply chunked more than once",
        Close.MUST,
    ),
    Case(
        "te-gzip-chunked",
        post(chunked(C), fields=[("Transfer-Encoding", "gzip, chunked")], length=False),
        statuses(400, 501),
        "RFC 9112 §6.1: a transfer coding the server does not understand SHOULD be answered 501",
        Close.MUST,
    ),
    Case(
        "te-chunked-gzip",
        post(chunked(C), fields=[("Transfer-Encoding", "chunked, gzip")], length=False),
        statuses(400),
        "RFC 9112 §6.3 ¶4: chunked not the final coding: the server MUST respond 400 and then close",
        Close.MUST,
    ),
    Case(
        "te-xchunked",
        post(chunked(C), fields=[("Transfer-Encoding", "xchunked")], length=False),
        statuses(400),
        "RFC 9112 §6.3 ¶4: chunked not the final coding: the server MUST respond 400 and then close",
        Close.MUST,
    ),
    Case(
        "te-chunked-with-space-before-colon",
        post(
            chunked(C),
            fields=[("Transfer-Encoding ", "chunked"), ("Content-Length", str(N))],
            length=False,
        ),
        statuses(400),
        "RFC 9112 §5.1: whitespace between field name and colon MUST be rejected with 400",
        Close.MUST,
    ),
    Case(
        "te-obs-folded",
        post(chunked(C), fields=[("Transfer-Encoding", "\r\n chunked")], length=False),
        statuses(200, 400),
        "RFC 9112 §5.2: obs-fold is rejected with 400 or replaced by SP",
        Close.MAY,
    ),
    Case(
        "cl-plus-sign",
        post(C, fields=[("Content-Length", f"+{N}")], length=False),
        statuses(400),
        "RFC 9112 §6.3 ¶5: an invalid Content-Length: the server MUST respond 400 and then close",
        Close.MUST,
    ),
    Case(
        "cl-minus-sign",
        post(C, fields=[("Content-Length", f"-{N}")], length=False),
        statuses(400),
        "RFC 9112 §6.3 ¶5: an invalid Content-Length: 400 and close",
        Close.MUST,
    ),
    Case(
        "cl-hex",
        post(C, fields=[("Content-Length", f"0x{N:x}")], length=False),
        statuses(400),
        "RFC 9112 §6.3 ¶5: an invalid Content-Length: 400 and close",
        Close.MUST,
    ),
    Case(
        "cl-empty",
        post(C, fields=[("Content-Length", "")], length=False),
        statuses(400),
        "RFC 9112 §6.3 ¶5: an invalid Content-Length: 400 and close",
        Close.MUST,
    ),
    Case(
        "cl-surrounding-whitespace",
        post(C, fields=[("Content-Length", f" {N} \t")], length=False),
        statuses(200),
        "RFC 9112 §5.1: OWS around a field value is not part of it",
        Close.MAY,
    ),
    Case(
        "cl-list-equal",
        post(C, fields=[("Content-Length", f"{N}, {N}")], length=False),
        statuses(200, 400),
        "RFC 9112 §6.3 ¶5: identical list values MAY be rejected or replaced by one value",
        Close.MAY,
    ),
    Case(
        "cl-duplicate-equal",
        post(C, fields=[("Content-Length", str(N)), ("Content-Length", str(N))], length=False),
        statuses(200, 400),
        "RFC 9112 §6.3 ¶5: identical values MAY be rejected or replaced by one value",
        Close.MAY,
    ),
    Case(
        "cl-duplicate-differing",
        post(
            C + SMUGGLED,
            fields=[("Content-Length", str(N)), ("Content-Length", str(N + len(SMUGGLED)))],
            length=False,
        ),
        statuses(400),
        "RFC 9112 §6.3 ¶5: differing Content-Length values: 400 and close",
        Close.MUST,
    ),
    Case(
        "cl-list-differing",
        post(C, fields=[("Content-Length", f"{N}, {N + 1}")], length=False),
        statuses(400),
        "RFC 9112 §6.3 ¶5: differing Content-Length values: 400 and close",
        Close.MUST,
    ),
    Case(
        "cl-huge",
        post(C, fields=[("Content-Length", "9" * 40)], length=False),
        statuses(400, 413),
        "RFC 9110 §8.6 and MB-STATUS-3: a length over every limit is refused before any part runs",
        Close.MUST,
    ),
    Case(
        "chunk-size-overflow",
        post(
            b"f" * 40 + b"\r\n" + C + b"\r\n0\r\n\r\n",
            fields=[("Transfer-Encoding", "chunked")],
            length=False,
        ),
        statuses(400, 413),
        "RFC 9112 §7.1: a chunk-size the recipient cannot parse is a framing error",
        Close.MUST,
    ),
    Case(
        "chunk-without-crlf-after-data",
        post(
            b"%x\r\n" % N + C + b"XX0\r\n\r\n",
            fields=[("Transfer-Encoding", "chunked")],
            length=False,
        ),
        statuses(400),
        "RFC 9112 §7.1: chunk = chunk-size CRLF chunk-data CRLF",
        Close.MUST,
    ),
    Case(
        "chunk-size-with-bare-lf",
        post(
            b"%x\n" % N + C + b"\r\n0\r\n\r\n",
            fields=[("Transfer-Encoding", "chunked")],
            length=False,
        ),
        statuses(200, 400),
        "RFC 9112 §2.2: a recipient MAY recognise a bare LF as a line terminator",
        Close.MAY,
    ),
    Case(
        "content-shorter-than-cl",
        post(C[:-10], fields=[("Content-Length", str(N))], length=False),
        statuses(400, CLOSED_SILENTLY),
        "MB-WIRE-13: content that ends without the close delimiter is 400 (the peer may also time out)",
        Close.MUST,
        eof=True,
    ),
    Case(
        "cl-shorter-than-content-smuggles-nothing",
        post(C + SMUGGLED, fields=[("Content-Length", str(N))], length=False),
        statuses(200),
        "RFC 9112 §9.3: octets after a message are the next request, answered after the first",
        Close.MAY,
        check="second_answer_is_book_2",
        answers=2,
    ),
]
