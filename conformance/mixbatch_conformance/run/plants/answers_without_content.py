"""Planted answers sent with content where RFC 9112 §6.3 lets them carry none.

"Any response to a HEAD request and any response with a 1xx (Informational), 204 (No Content),
or 304 (Not Modified) status code is always terminated by the first empty line after the header
fields" (RFC 9112 §6.3). A server that writes the content its handler built after such a head
puts octets on the connection that its client reads as the start of the next answer; alone, on
a connection of its own, nothing shows it. Each plant writes that content, with a
`Content-Length` announcing it, after the head the relay framed; the last drops the framing of
a 205, which §6.3 does not end at its head:

    head-answered-with-content         every HEAD answered with the octets of a content
                                       (MB-PIPE-1: the request pipelined behind it is answered
                                       with those octets first)
    no-content-status-with-content     every 204 and 304 answer to a request other than a
                                       batch sent with content (MB-TEST-6: "with no content
                                       for 204 and 304"; the GET sent behind it on its
                                       connection reads those octets first)

The relay reads one request, answers it, then reads the next, so it does not keep a pipeline;
the octets it writes on the client's connection are what a pipelining client and a client
that waits for each answer both read, so both plants show either way.
"""

from __future__ import annotations

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import is_batch
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: The content a planted answer carries after its head.
CONTENT = b"planted content the answer must not carry\n"


def _with_content(data: bytes) -> bytes:
    """A framed answer with no content, given a Content-Length and `CONTENT` after its head."""
    head, sep, rest = data.partition(b"\r\n\r\n")
    length = b"\r\nContent-Length: " + str(len(CONTENT)).encode()
    return head + length + sep + CONTENT + rest


def _head_with_content(req: RelayRequest, resp: RelayResponse) -> None:
    if req.method == "HEAD":
        resp.wire = _with_content


def _no_content_status_with_content(req: RelayRequest, resp: RelayResponse) -> None:
    if resp.status in (204, 304) and req.method != "HEAD" and not is_batch(req):
        resp.wire = _with_content


def _unframed(data: bytes) -> bytes:
    """A framed answer with its Content-Length and its content dropped: a head RFC 9112 §6.3
    reads as delimited by the close of the connection."""
    head, sep, _ = data.partition(b"\r\n\r\n")
    lines = [ln for ln in head.split(b"\r\n") if not ln.lower().startswith(b"content-length:")]
    return b"\r\n".join(lines) + sep


def _reset_content_unframed(req: RelayRequest, resp: RelayResponse) -> None:
    if resp.status == 205 and not is_batch(req):
        resp.wire = _unframed


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "head-answered-with-content",
        "MB-PIPE-1 a HEAD answered with content, read as the start of the next answer",
        ("pipelined-answers-without-content", "sandbox-member-answers-without-content"),
        caught_by=("FAIL",),
        on_response=_head_with_content,
    ),
    Mutation(
        "reset-content-unframed",
        "MB-PIPE-1 a 205 answered without Content-Length on a kept connection",
        ("reset-content-framed-for-the-next-answer",),
        caught_by=("FAIL",),
        on_response=_reset_content_unframed,
    ),
    Mutation(
        "no-content-status-with-content",
        "MB-TEST-6 a 204 or 304 answer sent with content",
        ("kept-connection-answers-without-content",),
        caught_by=("FAIL",),
        on_response=_no_content_status_with_content,
    ),
)
