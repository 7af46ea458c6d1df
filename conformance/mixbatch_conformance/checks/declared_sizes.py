"""A batch that declares more octets than 32 bits count is refused as over `max_batch_bytes`
(spec 9.1, MB-STATUS-3, MB-INTER-5).

Theory of operation: a batch's `Content-Length`, and in chunked content each chunk-size, is a
number with no upper bound in its grammar, and RFC 9110 §8.6 has a recipient "anticipate
potentially large decimal numerals and prevent parsing errors due to integer conversion
overflows" (RFC 9112 §7.1 says the same of the hexadecimal chunk-size). A server that reads the
length into a 32-bit integer, or a float, takes a length past 2^32 (or 2^53) for an invalid one
and answers 400, where the batch is over `max_batch_bytes` and MB-STATUS-3 asks 413 naming that
limit; for chunked content MB-INTER-5 adds that "its limits count the content's octets whatever
frames them". The check declares 2^32, 5 * 10^9, 2^53 + 1 and 10^18 - 1 octets in
`Content-Length`, then a chunk-size of 2^32, 2^53 + 1 and 16^15 - 1: spec 9.1 has a server
read a declared size of up to 18 decimal or 15 hexadecimal digits as the number it is, and
lets it refuse a longer one as unreadable, as HTTP stacks in wide use do past 2^63 - 1. Spec 9.1 lets a server refuse by the declared size ("a
server may refuse by it in the same way"), so the check sends the head and waits `HOLD_S` for
such an answer; without one it streams preamble text in 64 KiB pieces until an answer begins,
up to `max_batch_bytes` + 1 octets, after which the content is over the limit whatever was
declared, and 1 MiB more for a server that reads on and discards before it answers. A case
with no answer by then (the server reads on, or ends the connection without one) is noted,
not judged: spec 9.1 fixes the answer, not when it comes. An intermediary
may wait for the declared content before it forwards anything, so the check runs direct only.
It is N/A without a published `max_batch_bytes`, or with one larger than the suite sends.

`limit-batch-bytes-declared-under-expect-continue` sends only the head of a batch declaring one
octet over `max_batch_bytes`, and 2^32, with `Expect: 100-continue`, and waits `EXPECT_WAIT_S` for
a final answer. RFC 9110 §10.1.1 lets a server answer such a request "with a final status code"
instead of the 100; the size is the fault, so that status is MB-STATUS-3's 413 naming
`max_batch_bytes`, not the 417 of an expectation the server cannot meet. A server that sends the
100, or no answer, waits for the content: that case is not judged.
"""

from __future__ import annotations

from collections.abc import Iterator

from mixbatch_conformance.checks._shared.limit_cases import (
    BOUNDARY,
    MAX_SEND_BYTES,
    judge_refusal,
    published_limit,
)
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import exchange_until_answered

__all__: list[str] = []

#: Declared content lengths past what 32 bits and 53 bits (a double's integers) hold, and the
#: largest of the 18 digits spec 9.1 has every server read: each a valid `Content-Length`
#: (RFC 9110 §8.6: 1*DIGIT).
DECLARED_LENGTHS = (2**32, 5 * 10**9, 2**53 + 1, 10**18 - 1)
#: Chunk-sizes past 32 and 53 bits, and the largest of the 15 hexadecimal digits spec 9.1 has
#: every server read, in the hexadecimal RFC 9112 §7.1 writes them.
CHUNK_SIZES = (2**32, 2**53 + 1, 16**15 - 1)
#: Seconds the check waits for a refusal given by the declared size before it sends content.
HOLD_S = 1.0
#: Octets of content sent at a time, the answer looked for after each.
PIECE_OCTETS = 64 * 1024
#: Octets sent beyond max_batch_bytes + 1 while no answer has begun: a server that reads on
#: and discards what follows a refusal before it answers has this much to read, four times the
#: 256 KiB Go's net/http discards and sixteen times the 64 KiB MB-PIPE-1 names.
EXTRA_OCTETS = 1024 * 1024
#: The octet the preamble sent after the head is made of: no dash-boundary, CR or LF can form
#: in it (MB-WIRE-9 has a receiver ignore the preamble).
PREAMBLE_OCTET = b"p"
#: The expectation a client sends with content it would rather not send in vain.
EXPECT = ("Expect", "100-continue")
#: The requirement a refusal of chunked content answers under besides MB-STATUS-3.
CHUNKED_RULE = "MB-INTER-5"


def _pieces(first: bytes, octets: int) -> Iterator[bytes]:
    """`first`, then `octets` octets of preamble, in pieces of PIECE_OCTETS."""
    yield first
    for start in range(0, octets, PIECE_OCTETS):
        yield PREAMBLE_OCTET * min(PIECE_OCTETS, octets - start)


def _head(ctx: Context, *framing: tuple[str, str]) -> bytes:
    fields = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}"), *framing]
    return ctx.raw_request("POST", ctx.batch_path, fields, None)


@checker(
    "limit-batch-bytes-declared-past-32-bits",
    ("MB-STATUS-3", "MB-INTER-5"),
    "A batch whose Content-Length declares 2^32, 5*10^9, 2^53+1 or 10^18-1 octets, or whose chunked content opens with a chunk-size of 2^32, 2^53+1 or 16^15-1, followed by more octets than max_batch_bytes, is refused 413 naming max_batch_bytes, never 400 for a length too large to read.",
    tier="standard",
    state=State.READ_ONLY,
    direct_only="an intermediary may wait for the whole declared content before it forwards "
    "the request, and the check sends little more than the published max_batch_bytes",
)
def declared_past_32_bits(ctx: Context, judge: Judge) -> None:
    limit = published_limit(ctx, judge, "max_batch_bytes")
    if limit + 1 > MAX_SEND_BYTES:
        judge.not_applicable(f"max_batch_bytes {limit} is more than the suite sends")
    octets = limit + 1 + EXTRA_OCTETS
    cases: list[tuple[str, bytes, bytes]] = []
    for n in DECLARED_LENGTHS:
        cases.append((f"Content-Length: {n}", _head(ctx, ("Content-Length", str(n))), b""))
    for n in CHUNK_SIZES:
        head = _head(ctx, ("Transfer-Encoding", "chunked"))
        cases.append((f"chunk-size {n:x}", head, f"{n:x}\r\n".encode()))
    judged = 0
    for what, head, first in cases:
        ex, sent = exchange_until_answered(
            ctx.host,
            ctx.port,
            head,
            _pieces(first, octets),
            HOLD_S,
            ctx.timeout_for(judge),
            ctx.tls,
        )
        judge.record(ex)
        judge.note(f"{what}: answered after {sent} octets of content")
        chunked = what.startswith("chunk")
        if ex.response is None:
            # Spec 9.1 fixes the answer, not the moment: a server that reads on past what the
            # suite sends, or ends the connection without a word, is not judged here.
            judge.note(f"{what}: no answer after {sent} octets ({ex.error}); not judged")
            continue
        judged += 1
        if chunked:
            # MB-INTER-5: "its limits count the content's octets whatever frames them".
            judge.expect(f"status for {what}", ex.response.status, {413}, CHUNKED_RULE)
        # MB-STATUS-3: "413 (Content Too Large)" naming the limit; a limit on the whole batch
        # has no byte_offset (spec 5.3).
        judge_refusal(ctx, judge, ex.response, 413, "max_batch_bytes", at=None, chunked=chunked)
    if not judged:
        judge.not_applicable("no batch declaring a size past 32 bits was answered")


#: Seconds the head under Expect: 100-continue is given to draw a final answer.
EXPECT_WAIT_S = 2.0


@checker(
    "limit-batch-bytes-declared-under-expect-continue",
    ("MB-STATUS-3",),
    "The head of a batch declaring one octet over max_batch_bytes, or 2^32, with Expect: 100-continue, when answered before its content, is refused 413 naming max_batch_bytes, never 417.",
    tier="standard",
    state=State.READ_ONLY,
    direct_only="an intermediary may answer the expectation itself or wait for the content",
)
def declared_under_expect_continue(ctx: Context, judge: Judge) -> None:
    if ctx.settings.http2:
        judge.not_applicable("the check writes an HTTP/1.1 head and no content")
    limit = published_limit(ctx, judge, "max_batch_bytes")
    judged = 0
    for n in (limit + 1, 2**32):
        what = f"Content-Length: {n} with Expect: 100-continue"
        head = _head(ctx, ("Content-Length", str(n)), EXPECT)
        (ex,) = ctx.send_many_within(judge, [head], EXPECT_WAIT_S)
        if ex.response is None:
            judge.note(f"{what}: no final answer without the content ({ex.error}); not judged")
            continue
        judged += 1
        # MB-STATUS-3: "413 (Content Too Large)" for a batch over max_batch_bytes; RFC 9110
        # §10.1.1 lets the server send that final status instead of the 100.
        judge.expect(f"status for {what}", ex.response.status, {413}, "MB-STATUS-3")
        judge_refusal(ctx, judge, ex.response, 413, "max_batch_bytes", at=None, chunked=False)
    if not judged:
        judge.not_applicable("no head under Expect: 100-continue drew a final answer by itself")
