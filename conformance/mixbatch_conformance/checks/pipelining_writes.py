"""Pipelining across writes (spec 11): the answers do not depend on how the octets were sent.

Theory of operation: a connection is a stream of octets, and where the client's writes end
says nothing about where its requests end. A server that reads a request through a buffer it
makes anew for each request (or that takes one read for one request) drops the octets of the
next requests that arrived with the end of the one before: they were received, and are never
answered. So each pipelined sequence (two GETs, a GET after a batch, a HEAD between a GET and a
batch, two batches with content and a GET after them) is sent on connections of its own,
written three ways: all in one write, one request a write, and cut in the middle of each head
and of each content (so that every write holds the end of one request and the start of the
next). Writes after the first wait `PAUSE_S`, so that each arrives in a read of its own. Every
request must be answered, in order, as it is answered alone on the same server (its status,
and a batch answer's number of parts). Two sequences carry heads of several KiB (each under
16 KiB), so that later heads straddle the 16, 32, 48 or 64 KiB a server's read buffer holds. A missing answer is waited for `ANSWER_S` only, and is a
broken expectation, not a silent target: the first connection that loses one ends the check
(the others would only wait out the same time). An intermediary may de-pipeline, so the check
runs direct only.
"""

from __future__ import annotations

import contextlib
import itertools
import socket
import time

from mixbatch_conformance.checks._shared.hops import PIPELINING_NEEDS_ONE_CONNECTION
from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.validator import parse_media_type, read_multipart
from mixbatch_conformance.transport.http import (
    Exchange,
    Response,
    ResponseError,
    connect,
    method_of,
    read_response,
)

BOUNDARY = "mb-pipe-writes-5c1d8e3a"
#: Seconds each answer is waited for once every request was written: far longer than a
#: server takes on loopback to answer these small requests, short enough that a lost answer
#: costs the check little.
ANSWER_S = 3.0
#: The octets of the field that pads each of five pipelined GETs, so that their heads (70 KB in
#: all) straddle 16, 32, 48 and 64 KiB while each stays under the 16 KiB Node's parser takes.
PAD_OCTETS = 14_000
#: The field that pads them.
PAD_FIELD = "X-Mb-Pad"
#: The field of the one head larger than 16 KiB: sent pipelined only to a server that answers
#: it 200 alone (Go's net/http takes 32 KiB by default here, Node's parser 16 KiB).
LARGE_PAD = 55_000
#: Seconds between two writes, so that the second arrives after the server read the first.
PAUSE_S = 0.03

Shape = tuple[int, int | None]


def _shape(resp: Response | None) -> Shape | None:
    """What an answer is compared by: its status, and a multipart answer's number of parts."""
    if resp is None:
        return None
    parts = None
    if resp.media_type == "multipart/mixed" and resp.body:
        with contextlib.suppress(ValueError):
            _, params = parse_media_type(resp.get("Content-Type") or "")
            parts = len(read_multipart(resp.body, params.get("boundary", "")).parts)
    return (resp.status, parts)


def _head_end(request: bytes) -> int:
    return request.index(b"\r\n\r\n") + 4


def _writes(requests: list[bytes], how: str) -> list[bytes]:
    """The octets of `requests`, in order, as the writes `how` names."""
    if how == "one write":
        return [b"".join(requests)]
    if how == "one request a write":
        return list(requests)
    # Cut in the middle of each head and of each content: each write but the first and the
    # last holds the end of one request and the start of the next.
    whole = b"".join(requests)
    cuts, at = [], 0
    for request in requests:
        head = _head_end(request)
        cuts.append(at + head // 2)
        if len(request) > head:
            cuts.append(at + head + (len(request) - head) // 2)
        at += len(request)
    bounds = [0, *cuts, len(whole)]
    return [whole[a:b] for a, b in itertools.pairwise(bounds) if b > a]


def _send_written(ctx: Context, requests: list[bytes], writes: list[bytes]) -> list[Exchange]:
    """Write `writes` on one connection, `PAUSE_S` apart, then read an answer for each request,
    each within `ANSWER_S`; an answer not read is an Exchange whose error says why."""
    sock = connect(ctx.host, ctx.port, ctx.timeout, ctx.tls)
    out: list[Exchange] = []
    try:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        err: str | None = None
        for i, piece in enumerate(writes):
            if i:
                time.sleep(PAUSE_S)
            try:
                sock.sendall(piece)
            except OSError as exc:
                # A server may answer and close; what it answered is still read below.
                err = f"send failed: {exc}"
                break
        sock.settimeout(ANSWER_S)
        reader = sock.makefile("rb")
        for request in requests:
            if out and out[-1].response is None:
                out.append(Exchange(request, None, out[-1].error))
                continue
            try:
                out.append(Exchange(request, read_response(reader, method_of(request))))
            except (ResponseError, OSError) as exc:
                why = f"{type(exc).__name__}: {exc}"
                if isinstance(exc, TimeoutError) or "timed out" in str(exc):
                    why = f"no answer within {ANSWER_S:g} s"
                raw = getattr(exc, "received", b"")
                out.append(Exchange(request, None, err or why, raw=raw))
        reader.close()
    finally:
        sock.close()
    return out


def _sequences(ctx: Context, judge: Judge) -> list[tuple[str, list[bytes]]]:
    ok, nf = ok_and_not_found(ctx, judge)
    mixed = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]

    def batch(*subs: SubRequest) -> bytes:
        body = compose_batch(subs, BOUNDARY)
        return ctx.raw_request("POST", ctx.batch_path, mixed, body)

    get_ok = ctx.raw_request("GET", ok.target)

    def padded(octets: int) -> bytes:
        return ctx.raw_request("GET", ok.target, [(PAD_FIELD, "p" * octets)])

    return [
        ("two GETs", [get_ok, get_ok]),
        # Heads that straddle the sizes a read buffer has (16, 32, 48 and 64 KiB): a reader
        # that moves the unread octets to the front of its buffer reads the next head from
        # there. Each head stays under 16 KiB, which HTTP stacks in wide use take whole.
        ("GETs with 6,000- and 12,000-octet fields", [padded(6_000), padded(12_000)]),
        ("five GETs with 14,000-octet fields", [padded(PAD_OCTETS)] * 5),
        # A head of 15,000 octets then one of 55,000: the second outgrows what is left of a
        # 64 KiB buffer and makes its reader move it. Sent only to a server that takes a
        # 55,000-octet head alone.
        ("GETs with 15,000- and 55,000-octet fields", [padded(15_000), padded(LARGE_PAD)]),
        ("a GET after a batch", [batch(nf, ok), get_ok]),
        (
            "a GET, a HEAD and a batch",
            [get_ok, ctx.raw_request("HEAD", ok.target), batch(nf)],
        ),
        ("two batches and a GET", [batch(ok), batch(nf, ok), get_ok]),
    ]


@checker(
    "pipelining-across-writes",
    ("MB-PIPE-1",),
    "Pipelined requests (two GETs, GETs whose heads straddle 16 to 64 KiB, a GET after a batch, a HEAD among them, batches with content) are each answered, in order and as alone, whether written in one write, one request a write, or cut in the middle of heads and contents.",
    profile="pipelining",
    tier="standard",
    state=State.READ_ONLY,
    direct_only=PIPELINING_NEEDS_ONE_CONNECTION,
)
def pipelining_across_writes(ctx: Context, judge: Judge) -> None:
    sequences = _sequences(ctx, judge)
    # Each distinct request alone first: what it gets pipelined is what it gets then. One of
    # the padded GETs that the server does not answer 200 alone (a head it refuses, perhaps
    # closing the connection at once) leaves its sequence out.
    padded = f"\r\n{PAD_FIELD}:".encode()
    alone: dict[bytes, Shape | None] = {}
    for _, requests in sequences:
        for request in requests:
            if request in alone:
                continue
            if padded in request:
                ex = ctx.send_within(judge, request, ctx.timeout_for(judge))
                alone[request] = _shape(ex.response)
            else:
                alone[request] = _shape(ctx.send(judge, request, as_written=True))
    for what, requests in list(sequences):
        if any(padded in r and alone[r] != (200, None) for r in requests):
            judge.note(f"{what}: not sent, a padded GET is not answered 200 alone")
            sequences.remove((what, requests))
    for what, requests in sequences:
        expected = [alone[r] for r in requests]
        for how in ("one write", "one request a write", "cut inside heads and contents"):
            exchanges = _send_written(ctx, requests, _writes(requests, how))
            for ex in exchanges:
                judge.record(ex)
            got = [_shape(ex.response) for ex in exchanges]
            answered = sum(ex.response is not None for ex in exchanges)
            # MB-PIPE-1: a server "MUST answer pipelined requests on a connection, batch
            # requests and other requests alike, in the order it received them"; a stream's
            # octets are received whatever writes carried them, so every request is answered,
            # and as it is answered alone.
            judge.expect(
                f"answers received, {what}, {how}",
                answered,
                {len(requests)},
                "MB-PIPE-1",
            )
            judge.expect(f"answers in order, {what}, {how}", got, [expected], "MB-PIPE-1")
            if answered < len(requests):
                lost = next(ex for ex in exchanges if ex.response is None)
                judge.note(f"{what}, {how}: {lost.error}; the other writings are not sent")
                return
