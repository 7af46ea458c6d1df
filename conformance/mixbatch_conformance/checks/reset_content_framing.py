"""A 205 (Reset Content) is framed, so the request pipelined behind it is answered (spec 11,
MB-PIPE-1, MB-TEST-6).

Theory of operation: a 205 carries no content, but unlike 204 and 304 it is no answer RFC 9112
§6.3 reads as ending at its header section: a 205 without `Content-Length` or
`Transfer-Encoding` is read "until the server closes the connection", so whatever follows on
the connection is taken for its content. RFC 9110 §15.3.6 therefore has a server either send
`Content-Length: 0`, or the chunked coding with the last chunk alone, or close the connection
right after the header section. A server that drops the length of a 205 as it drops that of a
204 loses the request pipelined behind it (MB-PIPE-1: answered "in the order it received
them"). The check writes, in one write, a GET of the status resource for 205 (MB-TEST-6: "with
that status") and a GET of `ok`, reads what arrives within `WAIT_S`, and judges the 205's header
section: it must be framed (a `Content-Length`, the chunked coding or `Connection: close`), and,
unless it closed, the 200 of `ok` must come right after its content. Content in a 205, which
RFC 9110 §15.3.6 forbids, is not judged: MB-TEST-6 names 204 and 304 as the statuses without
content, and framed content loses nothing. The octets are read by hand: a reader that follows RFC 9112 §6.3 would wait
for the close. An intermediary may de-pipeline, so the check runs direct only.
"""

from __future__ import annotations

import socket
import time

from mixbatch_conformance.checks._shared.connection_options import closes
from mixbatch_conformance.checks._shared.hops import PIPELINING_NEEDS_ONE_CONNECTION
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import connect

__all__: list[str] = []

#: Seconds the two answers are read for.
WAIT_S = 3.0
#: The last chunk alone: chunked content of no octets.
EMPTY_CHUNKED = b"0\r\n\r\n"


def _read_for(sock: socket.socket, seconds: float) -> bytes:
    """What the server sends within `seconds`, or until it closes the connection."""
    end = time.monotonic() + seconds
    out = b""
    while (left := end - time.monotonic()) > 0:
        sock.settimeout(left)
        try:
            data = sock.recv(65536)
        except (TimeoutError, OSError):
            break
        if not data:
            break
        out += data
        if _second_answer_whole(out):
            break
    return out


def _second_answer_whole(raw: bytes) -> bool:
    """Whether `raw` holds a second answer after the first, its declared content whole."""
    second = raw.find(b"HTTP/1.", raw.find(b"\r\n\r\n"))
    if second < 0:
        return False
    head, found, body = raw[second:].partition(b"\r\n\r\n")
    length = _fields(head).get("content-length", "")
    return bool(found) and length.isdigit() and len(body) >= int(length)


def _fields(head: bytes) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        out.setdefault(name.strip().lower().decode("latin-1"), value.strip().decode("latin-1"))
    return out


@checker(
    "reset-content-framed-for-the-next-answer",
    ("MB-PIPE-1", "MB-TEST-6"),
    "A GET of the status resource for 205 with a GET of ok pipelined behind it is answered 205 framed by Content-Length, the chunked coding or Connection: close (RFC 9112 §6.3), and, unless it closed, the GET of ok is answered 200 right after it.",
    profile="pipelining",
    tier="standard",
    state=State.READ_ONLY,
    direct_only=PIPELINING_NEEDS_ONE_CONNECTION,
)
def reset_content_framed(ctx: Context, judge: Judge) -> None:
    if ctx.settings.http2:
        judge.not_applicable("HTTP/2 frames each answer in a stream of its own")
    template = ctx.target.resource("status")
    if not template:
        judge.not_applicable("the target declares no status resource")
    ok = ctx.path(ctx.resource(judge, "ok"))
    reset = ctx.raw_request("GET", ctx.path(template.replace("{code}", "205")))
    sock = connect(ctx.host, ctx.port, ctx.timeout, ctx.tls)
    try:
        sock.sendall(reset + ctx.raw_request("GET", ok))
        raw = _read_for(sock, WAIT_S)
    finally:
        sock.close()
    head, found, rest = raw.partition(b"\r\n\r\n")
    status = head.split(b"\r\n", 1)[0]
    # MB-TEST-6: the status resource answers "with that status".
    if not judge.expect("the first answer's status line", status[9:12], {b"205"}, "MB-TEST-6"):
        return
    fields = _fields(head)
    length = fields.get("content-length", "")
    chunked = "chunked" in fields.get("transfer-encoding", "").lower()
    closed = closes(fields.get("connection"))
    # RFC 9112 §6.3: a response without Content-Length or Transfer-Encoding (other than to
    # HEAD, or 1xx, 204, 304) is read "until the server closes the connection", so the answer
    # behind it is read as its content; RFC 9110 §15.3.6 has a 205 declare "a zero-length
    # content", use the chunked coding, or "close the connection immediately after sending
    # the blank line", and MB-PIPE-1 needs the next answer to be found.
    judge.expect_true(
        "the 205's framing",
        bool(found) and (length.isdigit() or chunked or closed),
        f"Content-Length {length or None!r}, Transfer-Encoding "
        f"{fields.get('transfer-encoding')!r}, Connection {fields.get('connection')!r}",
        "a Content-Length, the chunked coding, or Connection: close",
        "MB-PIPE-1",
    )
    if closed or not (length.isdigit() or chunked):
        return
    if chunked:
        end = rest.find(b"\r\n0\r\n\r\n")
        rest = rest[len(EMPTY_CHUNKED) :] if rest.startswith(EMPTY_CHUNKED) else rest[end + 7 :]
    else:
        rest = rest[int(length) :]
    # MB-PIPE-1: "answer pipelined requests on a connection ... in the order it received them":
    # the GET of ok, answered 200 (MB-TEST-1), right after the 205.
    judge.expect("the next answer's status", (rest[:7], rest[9:12]), {(b"HTTP/1.", b"200")},
                 "MB-PIPE-1")  # fmt: skip
