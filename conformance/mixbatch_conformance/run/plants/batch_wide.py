"""Planted violations that carry over a batch, or over requests, what belongs to one part or
one request: a per-part limit counted over the whole batch, and a refused batch that keeps
its place in the budget of batches in flight (a refusal its HTTP reader gives, to chunked
content whose framing it cannot read, among them: the relay tells the plant of each). Chunked
framing read too leniently (a bare LF or one octet of two wrong after chunk data, an empty line
before a chunk-size) or too strictly (a bound on the number of chunks) is planted here as well
(MB-INTER-5).

The per-part limits here are the reference server's defaults (spec 9.1's table), which the
self-test's target publishes; each plant refuses a batch whose parts add up past the limit
while every part keeps within it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import boundary_of, is_batch, parts_of, refuses
from mixbatch_conformance.transport.relay import Behaviour, RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: Spec 9.1's reference defaults, the limits the self-test's target publishes.
PART_FIELDS = 100
PART_HEADER_BYTES = 8192
PART_BYTES = 16 * 1024 * 1024
#: The reference server's published max_batches_in_flight.
BATCHES_IN_FLIGHT = 8


def _summed(
    measure: Callable[[list[tuple[str, str]], bytes], int], limit: int
) -> Callable[[RelayRequest], bool]:
    """A batch whose parts each measure within `limit` and together over it."""

    def pred(req: RelayRequest) -> bool:
        b = boundary_of(req)
        parts = parts_of(req.body, b) if b and is_batch(req) else None
        sizes = [measure(list(fields), body) for fields, body in parts or []]
        return bool(sizes) and max(sizes) <= limit < sum(sizes)

    return pred


def _fields(fields: list[tuple[str, str]], body: bytes) -> int:
    return len(fields)


def _header_bytes(fields: list[tuple[str, str]], body: bytes) -> int:
    return sum(len(f"{n}: {v}\r\n") for n, v in fields)


def _body_bytes(fields: list[tuple[str, str]], body: bytes) -> int:
    return len(body)


#: The client fields a part inherits from the batch request (spec 8.2).
_INHERITED = ("authorization", "cookie")


def _with_inherited(fields: list[tuple[str, str]], req: RelayRequest) -> list[tuple[str, str]]:
    """A part's field lines with the batch request's inherited fields it lacks added, as a
    server that counts a sub-request's fields instead of its part header section sees them."""
    own = {n.lower() for n, _ in fields}
    extra = [(n, v) for n, v in req.headers if n.lower() in _INHERITED and n.lower() not in own]
    return [*fields, *extra]


def _inherited_over(
    measure: Callable[[list[tuple[str, str]], bytes], int], limit: int
) -> Callable[[RelayRequest], bool]:
    """A batch with a part within `limit` that its inherited fields take over it."""

    def pred(req: RelayRequest) -> bool:
        b = boundary_of(req)
        parts = parts_of(req.body, b) if b and is_batch(req) else None
        return any(
            measure(list(f), body) <= limit < measure(_with_inherited(list(f), req), body)
            for f, body in parts or []
        )

    return pred


class _SlotKeptByRefusals:
    """A server that gives a batch's slot back only after the batch has run: each refusal
    keeps one, and once the budget is spent every batch is answered 503."""

    def __init__(self, keeping: frozenset[int] | None = None) -> None:
        #: The refusal statuses that keep their slot (None: every 4xx and 5xx).
        self.keeping = keeping
        self.kept = 0

    def __call__(self, req: RelayRequest, resp: RelayResponse) -> None:
        if req.method != "POST":
            return
        if self.kept >= BATCHES_IN_FLIGHT:
            resp.status = 503
            resp.headers = [("Content-Type", "application/problem+json"), ("Retry-After", "1")]
            doc = {"type": "about:blank", "title": "planted budget", "status": 503}
            resp.body = json.dumps(doc).encode()
        elif resp.status >= 400 and (self.keeping is None or resp.status in self.keeping):
            self.kept += 1

    def unreadable(self) -> None:
        """A request whose framing could not be read, refused 400, keeps its slot too."""
        self.kept += 1


#: A server whose only refusals that keep their slot are those its HTTP reader gives.
_FRAMING_REFUSALS = _SlotKeptByRefusals(frozenset())

#: The planted reader's bound on the chunks of one request, a guard against tiny chunks.
_MOST_CHUNKS = 4096
#: A bare LF where chunk data ends and the last chunk begins (a batch's content ends in CRLF).
_BARE_LF_LAST_CHUNK = re.compile(rb"\r\n\n(0+\r\n)")


#: The two octets after the last chunk's data with one of them wrong (X then LF, CR then X).
_ONE_OCTET_WRONG_LAST_CHUNK = re.compile(rb"\r\n(?:[^\r\n]\n|\r[^\n])(0+\r\n)")


def _half_crlf_after_chunk_data_taken(data: bytes) -> bytes:
    """The client's octets with two octets after the last chunk's data of which only one is
    CR or LF in its place read as CRLF, as a reader that refuses only when both are wrong."""
    return _ONE_OCTET_WRONG_LAST_CHUNK.sub(rb"\r\n\r\n\1", data)


#: An empty line where a chunk-size is due (after the header section or after chunk data).
_EMPTY_LINE_BEFORE_SIZE = re.compile(rb"\r\n\r\n\r\n([0-9a-fA-F]+\r\n)")


def _empty_lines_before_sizes_skipped(data: bytes) -> bytes:
    """The client's octets with an empty line before a chunk-size left out, as a chunk reader
    that skips empty lines before a size, as before a request line, reads them."""
    return _EMPTY_LINE_BEFORE_SIZE.sub(rb"\r\n\r\n\1", data)


def _bare_lf_after_chunk_data_mended(data: bytes) -> bytes:
    """The client's octets with a bare LF after the last chunk's data read as CRLF, as a chunk
    reader that takes that CRLF with its line reader (which allows a bare LF) reads it."""
    return _BARE_LF_LAST_CHUNK.sub(rb"\r\n\r\n\1", data)


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    P(
        "part-fields-counted-over-batch",
        "MB-LIMIT-5 field lines counted over the batch",
        ("part-fields-counted-per-part",),
        on_response=refuses(_summed(_fields, PART_FIELDS), 431, "MB-LIMIT-5"),
    ),
    P(
        "part-header-bytes-counted-over-batch",
        "MB-LIMIT-1 header octets counted over the batch",
        ("part-header-bytes-counted-per-part",),
        on_response=refuses(_summed(_header_bytes, PART_HEADER_BYTES), 431, "MB-STATUS-3"),
    ),
    P(
        "part-fields-counted-with-inherited",
        "MB-LIMIT-5 a part's inherited Authorization and Cookie counted against max_part_fields",
        ("part-fields-counted-per-part",),
        on_response=refuses(_inherited_over(_fields, PART_FIELDS), 431, "MB-LIMIT-5"),
    ),
    P(
        "part-header-bytes-counted-with-inherited",
        "MB-LIMIT-1 a part's inherited Authorization and Cookie counted against its header octets",
        ("part-header-bytes-counted-per-part",),
        on_response=refuses(_inherited_over(_header_bytes, PART_HEADER_BYTES), 431, "MB-STATUS-3"),
    ),
    P(
        "part-bytes-counted-over-batch",
        "MB-LIMIT-1 body octets counted over the batch",
        ("part-bytes-counted-per-part",),
        on_response=refuses(_summed(_body_bytes, PART_BYTES), 413, "MB-STATUS-3"),
    ),
    P(
        "inflight-slot-kept-by-refusals",
        "MB-LIMIT-6 refusals keep their slot",
        ("refusals-hold-no-batch-budget",),
        caught_by=("WARN", "FAIL"),
        on_response=_SlotKeptByRefusals(),
    ),
    P(
        "inflight-slot-kept-by-mode-refusals",
        "MB-LIMIT-6 a 501 for Batch-Mode keeps its slot",
        ("refusals-hold-no-batch-budget",),
        caught_by=("WARN", "FAIL"),
        on_response=_SlotKeptByRefusals(frozenset({501})),
    ),
    P(
        "inflight-slot-kept-by-framing-refusals",
        "MB-LIMIT-6 a 400 for chunked content whose framing cannot be read keeps its slot",
        ("refusals-hold-no-batch-budget",),
        caught_by=("WARN", "FAIL"),
        on_unreadable=_FRAMING_REFUSALS.unreadable,
        on_response=_FRAMING_REFUSALS,
    ),
    P(
        "chunk-fault-refused-as-limit",
        "MB-INTER-5 a batch whose chunked framing is broken refused 413, as though over a limit",
        ("broken-chunked-framing-refused-400",),
        on_unreadable=lambda: 413,
    ),
    P(
        "chunk-data-bare-lf-accepted",
        "MB-INTER-5 chunk data ended by a bare LF read as ended by CRLF",
        ("broken-chunked-framing-refused-400",),
        behaviour=Behaviour(client_octets=_bare_lf_after_chunk_data_mended),
    ),
    P(
        "empty-lines-before-chunk-size-skipped",
        "MB-INTER-5 an empty line where a chunk-size is due skipped, not refused",
        ("broken-chunked-framing-refused-400",),
        behaviour=Behaviour(client_octets=_empty_lines_before_sizes_skipped),
    ),
    P(
        "chunk-data-end-checked-one-octet",
        "MB-INTER-5 the CRLF after chunk data refused only when both of its octets are wrong",
        ("broken-chunked-framing-refused-400",),
        behaviour=Behaviour(client_octets=_half_crlf_after_chunk_data_taken),
    ),
    P(
        "chunk-count-bounded",
        "MB-INTER-5 chunked content of more than 4,096 chunks refused 400, whatever its octets",
        ("chunked-batch-answered-as-content-length",),
        on_response=refuses(lambda r: len(r.chunks) > _MOST_CHUNKS, 400, "MB-INTER-5"),
    ),
    P(
        "inflight-slot-kept-by-header-refusals",
        "MB-LIMIT-6 a 431 keeps its slot",
        ("refusals-hold-no-batch-budget",),
        caught_by=("WARN", "FAIL"),
        on_response=_SlotKeptByRefusals(frozenset({431})),
    ),
)
