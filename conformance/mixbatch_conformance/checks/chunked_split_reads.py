"""Chunked batch content is read the same wherever the reads that carry it end (spec 10.1,
MB-INTER-5).

Theory of operation: MB-INTER-5 has a server accept a batch "framed by Transfer-Encoding:
chunked" as the same content framed by Content-Length. A hand-written chunk reader that looks
at what it has buffered, instead of reading until it has what the grammar needs, sees a chunk
that ends where a read ends as cut short: the CRLF after the data, the LF after a CR, or the
digits of a chunk-size not yet there. curl and most clients write each chunk with its CRLF in
one write, so only a client or network that splits elsewhere meets it. The check sends a
two-part batch framed by Content-Length, then the same content chunked in two data chunks and
the last chunk, each request written in two pieces with `PAUSE_S` between them, split at each
place in the chunked framing: inside a chunk-size, before its CRLF, between its CR and LF, after
it, inside the data, after the data (the CRLF to come), between that CR and LF, after it, inside
the last chunk, before the empty line that ends the content, and between its CR and LF. Each
must be answered as the Content-Length batch (status, and each part's Content-Id and status);
a refusal by the server's own policies (503, 429) is noted, not judged. Then the chunked batch
is sent whole three times in turn on one connection: each must be answered the same, so a
reader that keeps chunked content from one request to the next shows (a server may end the
connection after an answer it marks so: the batches left are not sent, nor judged).
The pieces go out on a connection of their own over HTTP/1.1, direct only: an intermediary may
read the whole request before it forwards it.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.chunking import framing_answer
from mixbatch_conformance.checks._shared.trickle import trickled
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import POLICY_REFUSALS, unjudged_if_policy_refusal
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import NOT_SENT

__all__: list[str] = []

BOUNDARY = "mb-chunk-splits-8d2a"
#: Seconds between the two pieces of each request: long enough for the server to read and act
#: on the first piece alone.
PAUSE_S = 0.15
#: Chunked batches then sent whole, one after another on one connection.
IN_TURN = 3


def _chunked(content: bytes) -> tuple[bytes, list[tuple[str, int]]]:
    """`content` as two data chunks and the last chunk, and (where, offset) for each place a
    request is split at."""
    half = len(content) // 2
    first, second = content[:half], content[half:]
    size1, size2 = b"%x" % len(first), b"%x" % len(second)
    framed = size1 + b"\r\n" + first + b"\r\n" + size2 + b"\r\n" + second + b"\r\n0\r\n\r\n"
    data1 = len(size1) + 2
    after1 = data1 + len(first)
    last = after1 + 2 + len(size2) + 2 + len(second) + 2
    places = [
        ("inside the first chunk-size", 1),
        ("before the first chunk-size's CRLF", len(size1)),
        ("between the first chunk-size's CR and LF", len(size1) + 1),
        ("after the first chunk-size line", data1),
        ("inside the first chunk's data", data1 + len(first) // 2),
        ("after the first chunk's data, its CRLF to come", after1),
        ("between the CR and LF after the first chunk's data", after1 + 1),
        ("after the first chunk's CRLF", after1 + 2),
        ("inside the last chunk", last + 1),
        ("before the empty line ending the content", last + 3),
        ("between the CR and LF of that empty line", last + 4),
    ]
    return framed, places


@checker(
    "chunked-content-split-anywhere-accepted",
    ("MB-INTER-5",),
    "A chunked batch written in two pieces split inside a chunk-size, before or inside its CRLF, inside the data, before or inside the CRLF after the data, inside the last chunk or before the empty line ending it, and the same batch sent whole three times in turn on one connection, are each answered as the same content framed by Content-Length.",
    tier="standard",
    state=State.READ_ONLY,
    direct_only="an intermediary may read the whole request before it forwards it, so the "
    "server sees no split",
)
def chunked_content_split_anywhere_accepted(ctx: Context, judge: Judge) -> None:
    if ctx.settings.http2:
        judge.not_applicable("HTTP/2 has no chunked transfer coding")
    ok = SubRequest("GET", ctx.path(ctx.resource(judge, "ok")))
    content = compose_batch([ok, ok], BOUNDARY)
    mixed = ("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")
    plain = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, [mixed], content))
    unjudged_if_policy_refusal(judge, plain, "the batch framed by Content-Length")
    judge.require("the batch framed by Content-Length: status", plain.status, {200}, "MB-STATUS-1")
    want = framing_answer(plain)
    head = ctx.raw_request("POST", ctx.batch_path, [mixed, ("Transfer-Encoding", "chunked")], None)
    framed, places = _chunked(content)
    for where, at in places:
        ex, _ = trickled(ctx, judge, head, [framed[:at], framed[at:]], PAUSE_S)
        judge.record(ex)
        if ex.response is not None and ex.response.status in POLICY_REFUSALS:
            judge.note(f"split {where}: {ex.response.status}, a refusal no fault of it causes")
            continue
        got = framing_answer(ex.response) if ex.response is not None else ex.error
        # MB-INTER-5: a server accepts a batch "framed by Transfer-Encoding: chunked" as the
        # same content framed by Content-Length, whatever reads carry its chunks.
        judge.expect(f"chunked, split {where}", got, [want], "MB-INTER-5")
    whole = head + framed
    for i, ex in enumerate(ctx.send_in_turn(judge, [whole] * IN_TURN)):
        if ex.response is not None and ex.response.status in POLICY_REFUSALS:
            judge.note(f"chunked batch {i} in turn: {ex.response.status}, not judged")
            continue
        if ex.response is None and ex.error == NOT_SENT:
            # RFC 9112 §9.6: a server may end a connection after any answer it marks so.
            judge.note(f"chunked batch {i} in turn: not sent, the connection ended before it")
            break
        got = framing_answer(ex.response) if ex.response is not None else ex.error
        # MB-INTER-5: each chunked batch on a kept connection is answered as its own content,
        # nothing of the one before it carried over.
        judge.expect(f"chunked batch {i} of {IN_TURN} on one connection", got, [want], "MB-INTER-5")
