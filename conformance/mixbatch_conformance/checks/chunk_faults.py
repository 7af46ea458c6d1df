"""Chunked batch content whose framing is broken is refused 400 (spec 10.1, MB-INTER-5).

Theory of operation: RFC 9112 §7.1 writes `chunk = chunk-size [ chunk-ext ] CRLF chunk-data
CRLF` with `chunk-size = 1*HEXDIG`. MB-INTER-5 has a server answer "content whose chunked
framing is broken ... with 400 (Bad Request), when it answers it", and spec 10.1 names that
framing: "a chunk-size that is not `1*HEXDIG` ..., or chunk data followed by octets other than
CRLF where its chunk-size says it ends". A reader that parses the size with a library's integer parser takes a
sign or a `0x` prefix for part of the number; one that counts the chunk data and skips two
octets takes any two for its CRLF; one that turns every failure of its body reader into the
limit refusal answers 413. The check sends one valid batch [GET ok] chunked, which must be
processed, then each broken framing of the same batch on a connection of its own: each answer
must be 400. A server may close such a connection without answering (spec 10.1: "Whether it
answers before it closes the connection is its own"), which is noted, not judged, and nothing
is pipelined behind (spec 10.1 leaves reading on to the server). An intermediary answers such
framing itself, or passes on what it could read of it, so the check runs direct only, and
over HTTP/1.1: HTTP/2 has no chunked coding.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.chunking import LAST_CHUNK, broken_chunked
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

BOUNDARY = "mb-chunk-faults-61c2"


@checker(
    "broken-chunked-framing-refused-400",
    ("MB-INTER-5",),
    "A batch whose chunked framing is broken (a chunk-size not hex, with a 0x prefix or a + sign, or empty; chunk data longer than its size, or followed by other octets than CRLF: a bare LF, X and LF, CR and X) is answered 400 when it is answered, never 413 or another fault's status, where the same batch chunked right is processed.",
    state=State.READ_ONLY,
    direct_only="an intermediary answers broken framing itself, or forwards what it could read",
)
def broken_chunked_framing_refused_400(ctx: Context, judge: Judge) -> None:
    if ctx.settings.http2:
        judge.not_applicable("HTTP/2 has no chunked coding: no chunk framing reaches the server")
    ok = ctx.path(ctx.resource(judge, "ok"))
    batch = f"--{BOUNDARY}\r\nHttp-Method: GET\r\nContent-Id: <{ok}>\r\n\r\n\r\n--{BOUNDARY}--\r\n"
    octets = batch.encode()
    head = [
        ("Content-Type", f"multipart/mixed; boundary={BOUNDARY}"),
        ("Transfer-Encoding", "chunked"),
    ]

    def request(content: bytes) -> bytes:
        return ctx.raw_request("POST", ctx.batch_path, head, content)

    valid = ctx.send(
        judge, request(b"%x\r\n" % len(octets) + octets + b"\r\n" + LAST_CHUNK), as_written=True
    )
    # MB-INTER-5: "accept batch request content framed by the chunked transfer coding".
    judge.require("the batch chunked right: status", valid.status, {200}, "MB-INTER-5")
    expect_processed(ctx, judge, valid, [f"<{ok}>"], (), "MB-INTER-5")
    judged = 0
    for what, content in broken_chunked(octets):
        ex = ctx.send_within(judge, request(content), ctx.timeout_for(judge))
        if ex.response is None:
            judge.note(f"{what}: the connection ended without an answer ({ex.error}); not judged")
            continue
        judged += 1
        # MB-INTER-5: "Content whose chunked framing is broken it MUST answer with 400 (Bad
        # Request), when it answers it".
        judge.expect(f"status of the batch with {what}", ex.response.status, {400}, "MB-INTER-5")
    if not judged:
        judge.not_applicable("the target answered no batch whose chunked framing is broken")
