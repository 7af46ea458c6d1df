"""Streaming in order (spec 7.3, MB-PROC-4): part 0 arrives before a slow part 1 finishes.

Theory of operation: MB-PROC-4 (SHOULD) asks a server to "write each response part as soon as
that part and every part before it are complete, without waiting for later parts". The check
sends [ok, delay] and reads the answer as it arrives, noting when part 0 is complete and when
the close delimiter arrives; a streaming server delivers part 0 well before the delay is over.
Part 0 is complete when the delimiter after it has arrived, or, when its head carries a
`Content-Length`, as soon as that many body octets have: RFC 2046 §5.1.1 makes the CRLF and
dash-boundary that follow a part the start of the next delimiter, which a server may well write
only with the part it opens. An intermediary may buffer a whole response,
so the check is judged on a direct connection only, over plain HTTP/1.1. It waits out the slow
part, so it is in the standard tier.

`parts-streamed-on-every-path` asks the same of the batch under `Prefer: batch-on-error=stop`
(where the target offers the error-policy profile), of the batch whose quick part is a POST to
the echo resource (a write by its method, though the echo keeps no state), of the batch sent
with `Connection: close` (an answer the connection's end delimits needs no length either), of
the batch sent chunked and of the batch whose quick part is a HEAD of `ok`, whose response part
has no content: a server that holds its answer on one of those paths (waiting for the outcome
as an atomic batch must, or for a transaction, or for the end of the request's chunks before it
starts writing, or pushing a part out only when it writes a body) breaks the recommendation
there alone. The HEAD part is complete once its header section has arrived, whatever framing
field it carries. The batch is also sent with `Accept-Encoding: gzip`, then `deflate`: a server
may answer in that content coding (RFC 9110 §12.5.3), and the client removes it before parsing
(MB-INTER-2), so the timed reader removes it as the octets arrive (`zlib.decompressobj`) and
looks for part 0 in what they decode to. A compressor that is not flushed after each part holds
a complete part until the batch ends, which breaks the recommendation as holding the part does.
An answer without a content coding is judged as the plain batch is; one with a coding the reader
cannot remove is noted and not judged.

`parts-streamed-over-http10` sends the same [ok, delay] batch with an HTTP/1.0 request line.
The spec fixes nothing of the batch request's version, and a server may refuse HTTP/1.0 (RFC
9112 §2.3 lets it answer 505), so whether the server answers an HTTP/1.0 batch as a multipart
batch is learnt from that answer, and one it does not is not judged. One it does answer is
held to MB-PROC-4 as over HTTP/1.1: the recommendation names no version, and its prose names
chunked transfer coding only as one way a response "needs no total length up front". An
HTTP/1.0 response needs none either when the close of the connection ends it (RFC 9112 §6.3,
the last rule), so a server that holds the answer whole to send it with a Content-Length,
because its client cannot take the chunked coding, breaks the recommendation on that path.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable
from typing import NamedTuple

import h11

from mixbatch_conformance.checks._shared.arrivals import arrivals, quick_and_slow
from mixbatch_conformance.checks._shared.chunking import chunked_content
from mixbatch_conformance.checks._shared.versions import with_version
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.validator import parse_media_type

__all__ = ["part0_complete"]

#: How long the slow part waits; part 0 must arrive this much earlier, less the margin.
DELAY_MS = 1500
MARGIN_S = 0.5
BOUNDARY = "mb-stream-4c1e9a7f02d3b658"
#: The content codings a batch is sent accepting, one at a time, for the answer to take.
ACCEPTED_CODINGS = ("gzip", "deflate")
BUFFERING_INTERMEDIARY = "an intermediary may buffer a whole response before it forwards any of it"


#: The wbits of `zlib.decompressobj` for each content coding the timed reader removes as it
#: reads (RFC 9110 §8.4.1: gzip and x-gzip are the gzip format, deflate the zlib format).
_GZIP_WBITS = 16 + zlib.MAX_WBITS
_INFLATE_WBITS: dict[str, int] = {
    "gzip": _GZIP_WBITS,
    "x-gzip": _GZIP_WBITS,
    "deflate": zlib.MAX_WBITS,
}
#: Codings an answer may name that change nothing.
_NO_CODING = frozenset({"", "identity"})


class _Inflater:
    """Removes one content coding from octets as they arrive: whatever the octets so far
    decode to, nothing held back beyond what the coding itself holds."""

    def __init__(self, coding: str) -> None:
        self.coding = coding
        self._z = zlib.decompressobj(_INFLATE_WBITS[coding])
        self._first = True

    def decode(self, data: bytes) -> bytes:
        out: list[bytes] = []
        while data:
            if self._z.eof:
                if self.coding == "deflate" or not data.strip(b"\x00"):
                    break
                # RFC 1952 §2.2: "A gzip file consists of a series of members".
                self._z = zlib.decompressobj(_GZIP_WBITS)
            if self._first and self.coding == "deflate" and data[0] & 0x0F != 8:
                # RFC 9110 §8.4.1.2 has deflate zlib-wrapped; some servers send it raw.
                self._z = zlib.decompressobj(-zlib.MAX_WBITS)
            self._first = False
            out.append(self._z.decompress(data))
            data = self._z.unused_data if self._z.eof else b""
        return b"".join(out)


def _inflaters(codings: list[str]) -> list[_Inflater] | None:
    """What removes `codings` (as listed, applied in that order) in the order to remove them,
    or None when one is none the reader can remove."""
    out: list[_Inflater] = []
    for coding in reversed(codings):
        if coding in _NO_CODING:
            continue
        if coding not in _INFLATE_WBITS:
            return None
        out.append(_Inflater(coding))
    return out


class Timed(NamedTuple):
    """An answer read as it arrived."""

    #: The content received.
    content: bytes
    #: Seconds until part 0 was complete, and until the close delimiter (None: never).
    first: float | None
    last: float | None
    #: The status and lower-cased media type of the answer (None when no head arrived).
    status: int | None = None
    media: str | None = None
    #: The content codings of the answer, as listed in its Content-Encoding (lower-cased).
    codings: tuple[str, ...] = ()
    #: Whether the answer names a content coding its octets were left in: one the reader
    #: cannot remove, or octets that do not decode.
    undecoded: bool = False


def _timed_read(
    ctx: Context, request: bytes, complete: Callable[[bytes, bytes], bool] | None = None
) -> Timed:
    """The content received, and the seconds until part 0 was complete (by `complete`,
    `part0_complete` unless given) and until the end. Content codings the answer names
    (gzip, x-gzip, deflate) are removed from the octets as they arrive, so part 0 is found
    as soon as the octets received decode to it."""
    complete = complete or part0_complete
    status: int | None = None
    media: str | None = None
    codings: list[str] = []
    inflaters: list[_Inflater] | None = []
    undecoded = False
    content = bytearray()
    first = last = None
    dash = b""
    for now, arrival in arrivals(ctx, request):
        if isinstance(arrival, h11.Response):
            status = arrival.status_code
            for name, value in arrival.headers:
                if name == b"content-encoding":
                    text = value.decode("latin-1").lower()
                    codings += [c.strip() for c in text.split(",") if c.strip()]
                if name == b"content-type":
                    try:
                        media, params = parse_media_type(value.decode("latin-1"))
                    except ValueError:
                        params = {}
                    dash = b"--" + params.get("boundary", "").encode("latin-1")
            inflaters = _inflaters(codings)
            undecoded = inflaters is None
        elif isinstance(arrival, bytes):
            data = arrival
            try:
                for inflater in inflaters or ():
                    data = inflater.decode(data)
            except zlib.error:
                # Octets that do not decode are read as they are, as the suite's client
                # reads a coding it cannot remove.
                inflaters, undecoded, data = None, True, arrival
            content += data
            if first is None and dash and complete(bytes(content), dash):
                first = now
            if dash and (b"\r\n" + dash + b"--") in content:
                last = now
                break
        else:
            break
    return Timed(bytes(content), first, last, status, media, tuple(codings), undecoded)


_CONTENT_LENGTH = re.compile(rb"(?im)^content-length:[ \t]*([0-9]+)[ \t]*\r?$")


def part0_complete(content: bytes, dash: bytes) -> bool:
    """Whether the first part of `content` has arrived whole (see the module docstring)."""
    start = content.find(dash)
    if start < 0:
        return False
    if content.find(b"\r\n" + dash, start + len(dash)) >= 0:
        return True
    head_end = content.find(b"\r\n\r\n", start)
    if head_end < 0:
        return False
    lengths = _CONTENT_LENGTH.findall(content[start:head_end])
    if len(lengths) != 1:
        return False
    return len(content) - (head_end + 4) >= int(lengths[0])


def part0_head_complete(content: bytes, dash: bytes) -> bool:
    """Whether the header section of the first part of `content` has arrived whole: all of a
    part whose body is empty by its method (HEAD), whatever framing field it carries."""
    start = content.find(dash)
    return start >= 0 and content.find(b"\r\n\r\n", start) >= 0


def _expect_streamed(
    ctx: Context,
    judge: Judge,
    request: bytes,
    label: str = "",
    requirement: str | None = None,
    complete: Callable[[bytes, bytes], bool] | None = None,
) -> None:
    """Send `request`, a batch whose part 0 is quick and whose part 1 takes `DELAY_MS`, and
    expect its part 0 written before the slow part finished (`label` begins each line)."""
    _judge_timed(judge, _timed_read(ctx, request, complete), label, requirement)


def _judge_timed(judge: Judge, timed: Timed, label: str, requirement: str | None) -> None:
    """Expect the answer `timed` to have its part 0 complete before the slow part finished."""
    data, first, last = timed.content, timed.first, timed.last
    judge.require_true(
        f"{label}complete answer",
        first is not None and last is not None,
        f"{len(data)} octets: {data[:80]!r}",
        "a multipart answer with its close delimiter",
        "MB-STATUS-1",
    )
    assert first is not None
    assert last is not None
    # MB-PROC-4: "SHOULD write each response part as soon as that part and every part before
    # it are complete, without waiting for later parts".
    judge.expect_true(
        f"{label}part 0 before the slow part finished",
        first <= last - DELAY_MS / 1000 + MARGIN_S,
        f"part 0 complete at {first:.2f} s, the answer at {last:.2f} s",
        f"part 0 at least {DELAY_MS / 1000 - MARGIN_S:g} s before the end (SHOULD)",
        requirement,
    )


def _quick_and_slow(
    ctx: Context, judge: Judge, version: str = "HTTP/1.1"
) -> tuple[SubRequest, SubRequest]:
    """A quick part (a GET of `ok`) and a slow one (the delay resource for `DELAY_MS`)."""
    return quick_and_slow(ctx, judge, DELAY_MS, version)


@checker(
    "parts-streamed-in-order",
    ("MB-PROC-4",),
    "A part that is complete is written before a slower later part finishes.",
    tier="standard",
    state=State.READ_ONLY,
    direct_only=BUFFERING_INTERMEDIARY,
)
def parts_streamed(ctx: Context, judge: Judge) -> None:
    body = compose_batch(list(_quick_and_slow(ctx, judge)), BOUNDARY)
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    request = ctx.raw_request("POST", ctx.batch_path, head, body)
    _expect_streamed(ctx, judge, request)


@checker(
    "parts-streamed-on-every-path",
    ("MB-PROC-4",),
    "A quick part is written before a slower later part finishes in a batch under batch-on-error=stop, in one whose quick part is a POST, in one that asks to close the connection, in one sent chunked, in one accepting gzip or deflate (its answer read through the content coding as it arrives), and in one whose quick part is a HEAD, whose response part has no content.",
    tier="standard",
    state=State.READ_ONLY,
    direct_only=BUFFERING_INTERMEDIARY,
)
def parts_streamed_on_every_path(ctx: Context, judge: Judge) -> None:
    ok, slow = _quick_and_slow(ctx, judge)
    echo = ctx.path(ctx.resource(judge, "echo"))
    post = SubRequest("POST", f"{echo}?mb-stream=post", (("Content-Type", "text/plain"),), b"mb")
    ctype = ("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")
    plain = compose_batch([ok, slow], BOUNDARY)
    paths: list[tuple[str, list[tuple[str, str]], bytes]] = []
    if ctx.target.claims("error-policy"):
        paths.append(
            ("under batch-on-error=stop", [ctype, ("Prefer", "batch-on-error=stop")], plain)
        )
    paths.append(("a POST first", [ctype], compose_batch([post, slow], BOUNDARY)))
    # A server that holds the answer whole when the connection ends after it (to send it with
    # a Content-Length) holds its parts on that path alone.
    paths.append(("asking to close the connection", [ctype, ("Connection", "close")], plain))
    chunked = chunked_content(plain, 64)[0]
    paths.append(("sent chunked", [ctype, ("Transfer-Encoding", "chunked")], chunked))
    for what, head, body in paths:
        # MB-PROC-4 holds whatever the batch's policy, its parts' methods or the framing of its
        # content; only an atomic batch waits (spec 7.3).
        request = ctx.raw_request("POST", ctx.batch_path, head, body)
        _expect_streamed(ctx, judge, request, f"{what}: ", "MB-PROC-4")
    for coding in ACCEPTED_CODINGS:
        # The answer may take a content coding the client accepts (RFC 9110 §12.5.3), which
        # "A client MUST remove ... from a batch response before parsing it as
        # `multipart/mixed`" (MB-INTER-2); MB-PROC-4 holds of the parts it decodes to, so a
        # compressor that keeps the octets of a complete part until the batch ends holds the
        # part. An answer without a coding is judged as it is.
        request = ctx.raw_request(
            "POST", ctx.batch_path, [ctype, ("Accept-Encoding", coding)], plain
        )
        timed = _timed_read(ctx, request)
        if timed.undecoded:
            judge.note(
                f"asking for {coding}: answered with Content-Encoding "
                f"{', '.join(timed.codings)}, which the timed reader cannot remove"
            )
            continue
        named = ", ".join(timed.codings) or "no content coding"
        judge.note(f"asking for {coding}: answered with {named}")
        _judge_timed(judge, timed, f"accepting {coding}: ", "MB-PROC-4")
    # A response part without content (RFC 9110 §9.3.2: a HEAD response has none) is complete
    # once its header section is written: MB-PROC-4 asks the same of it as of a part with a
    # body. Its header section alone is judged, since a server may write the CRLF that ends
    # the empty body only with the next delimiter.
    head_ok = SubRequest("HEAD", ok.target)
    request = ctx.raw_request(
        "POST", ctx.batch_path, [ctype], compose_batch([head_ok, slow], BOUNDARY)
    )
    _expect_streamed(ctx, judge, request, "a HEAD part first: ", "MB-PROC-4", part0_head_complete)


@checker(
    "parts-streamed-over-http10",
    ("MB-PROC-4",),
    "A batch sent over HTTP/1.0 that the server answers in multipart/mixed has its quick part written before a slower later part finishes, the answer delimited by the connection's close rather than held for a Content-Length.",
    tier="standard",
    state=State.READ_ONLY,
    direct_only=BUFFERING_INTERMEDIARY,
)
def parts_streamed_over_http10(ctx: Context, judge: Judge) -> None:
    ok, slow = _quick_and_slow(ctx, judge, "HTTP/1.0")
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    request = ctx.raw_request("POST", ctx.batch_path, head, compose_batch([ok, slow], BOUNDARY))
    timed = _timed_read(ctx, with_version(request, "1.0"))
    if timed.status != 200 or timed.media != "multipart/mixed":
        # Nothing in the spec makes a server take an HTTP/1.0 batch (RFC 9112 §2.3 lets it
        # refuse the version): an answer that is no multipart batch is not judged.
        judge.not_applicable(
            f"the server answers an HTTP/1.0 batch {timed.status} {timed.media}, "
            "not as a multipart batch"
        )
    # MB-PROC-4 names no version: an HTTP/1.0 answer ended by the connection's close needs no
    # total length up front (RFC 9112 §6.3), so it streams as a chunked one does.
    _judge_timed(judge, timed, "over HTTP/1.0: ", "MB-PROC-4")
