"""A batch sent chunked with chunk sizes spelt in every way RFC 9112 allows is answered as under
Content-Length (spec 10.1, MB-INTER-5).

Theory of operation: MB-INTER-5 has a server "accept batch request content framed by the
chunked transfer coding (RFC 9112 §7.1) and answer it as it answers the same content framed by
`Content-Length`". RFC 9112 §7.1 writes `chunk-size = 1*HEXDIG` and `last-chunk = 1*("0")
[ chunk-ext ] CRLF`; HEXDIG is RFC 5234's, whose quoted letters match either case, so a chunk
size may carry leading zeros and upper-case or lower-case letters, and the last chunk may be
any number of zeros. The other chunked checks write sizes in lower-case hex without leading
zeros, mostly of 16 octets ("10"), and end with a bare "0": a hand-written chunk reader that
knows one case of hex digits, or that finds the last chunk by comparing its line with "0",
passes them. The check sends one batch [GET ok, GET not_found] framed by Content-Length, then
chunked in each spelling of `SPELLINGS` (chunks of 15 and 26 octets in turn, sizes with letters
in them: f and 1a), and the same for a batch missing its close delimiter; each chunked answer
has the status, and for a processed batch the (Content-Id, Http-Status-Code) of each part, or
for a refused one the problem's `requirement`, `part_index` and `byte_offset`, of the
Content-Length answer, within the run's timeout (a server still waiting for chunks after the
last one has not answered).
"""

from __future__ import annotations

from collections.abc import Callable

from mixbatch_conformance.checks._shared.chunking import framing_answer
from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

BOUNDARY = "mb-chunk-sizes-5e0b"
#: Octets of the data chunks in turn: sizes whose hex has a letter, one of them a letter alone.
CHUNK_OCTETS = (15, 26)
#: (what, how a data chunk's size is written, the last chunk's line before its CRLF).
SPELLINGS: tuple[tuple[str, Callable[[int], str], str], ...] = (
    ("sizes in lower-case hex", lambda n: f"{n:x}", "0"),
    ("sizes in upper-case hex", lambda n: f"{n:X}", "0"),
    ("sizes with leading zeros", lambda n: f"{n:06x}", "0"),
    ("sizes in upper-case hex with leading zeros", lambda n: f"{n:04X}", "0"),
    ("a last chunk of three zeros", lambda n: f"{n:x}", "000"),
    ("sizes with leading zeros and a last chunk of zeros", lambda n: f"{n:03X}", "00"),
)


def _chunked(body: bytes, size: Callable[[int], str], last: str) -> bytes:
    out, at, k = bytearray(), 0, 0
    while at < len(body):
        chunk = body[at : at + CHUNK_OCTETS[k % len(CHUNK_OCTETS)]]
        out += size(len(chunk)).encode("ascii") + b"\r\n" + chunk + b"\r\n"
        at, k = at + len(chunk), k + 1
    return bytes(out) + last.encode("ascii") + b"\r\n\r\n"


@checker(
    "chunk-size-spellings-answered-as-content-length",
    ("MB-INTER-5",),
    "A batch, and one missing its close delimiter, sent chunked with chunk sizes in lower-case and upper-case hex (f, 1a, F, 1A), with leading zeros, and with a last chunk of several zeros get the status and parts, or problem, the same content gets framed by Content-Length.",
    state=State.READ_ONLY,
    direct_only=(
        "an intermediary removes the chunked coding and forwards the content in framing of its "
        "own, so the chunk sizes as written never reach the server"
    ),
)
def chunk_size_spellings(ctx: Context, judge: Judge) -> None:
    if ctx.settings.http2:
        judge.not_applicable("HTTP/2 has no chunked coding: the chunk sizes never leave the client")
    ok, nf = ok_and_not_found(ctx, judge)
    whole = compose_batch([ok, nf], BOUNDARY)
    # The same parts without the close delimiter: incomplete (spec 3.1.5), so refused wherever
    # the chunked framing ends.
    cut = whole[: whole.rindex(f"--{BOUNDARY}--".encode())].rstrip(b"\r\n")
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    chunked_head = [*head, ("Transfer-Encoding", "chunked")]
    for label, body in (("a batch", whole), ("a batch missing its close delimiter", cut)):
        framed = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body))
        want = framing_answer(framed)
        judge.note(f"{label} framed by Content-Length: {want!r}")
        for what, size, last in SPELLINGS:
            content = _chunked(body, size, last)
            request = ctx.raw_request("POST", ctx.batch_path, chunked_head, content)
            # The content ends with its last chunk and the empty trailer section: a server that
            # waits for more has misread the framing, so silence is judged, not a time-out.
            ex = ctx.send_within(judge, request, ctx.timeout)
            got = framing_answer(ex.response) if ex.response is not None else ex.error
            # MB-INTER-5: "accept batch request content framed by the chunked transfer coding
            # (RFC 9112 §7.1) and answer it as it answers the same content framed by
            # `Content-Length`"; RFC 9112 §7.1: "chunk-size = 1*HEXDIG", "last-chunk =
            # 1*("0") [ chunk-ext ] CRLF".
            judge.expect(f"{label} sent chunked with {what}", got, [want], "MB-INTER-5")
