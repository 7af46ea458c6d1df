"""Encoding sub-requests as parts and splitting them into batches within the server's limits.

MB-LIMIT-3: "A client that knows a server's limits MUST NOT send a batch that exceeds them; it
splits the work into several batches instead." Every part is encoded once with the codec's
``BatchWriter`` (CRLF framing, exact Content-Length, no folding, no forbidden fields: MB-WIRE-7,
MB-WIRE-15, MB-PART-7, MB-PART-9), and its exact size is measured. Then a greedy pass packs
consecutive parts into chunks: a chunk closes when one more part would break ``max_parts``,
``max_batch_bytes`` or the close delimiter's room. Order is kept because chunks are consecutive
runs and are sent one after another.

A part that cannot fit any batch (its body over ``max_part_bytes``, its header section over
``max_part_header_bytes``, or alone over ``max_batch_bytes``) travels as a standalone request,
which means exactly the same thing (thesis ch. 5.2: a part is a request).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mixbatch.codec import BatchWriter, Limits, LocalProtocolError, make_boundary

from ._model import SubRequest

__all__ = ["Chunk", "EncodedPart", "encode_parts", "join_parts", "plan_chunks"]

#: Attempts at a boundary that no body contains; with 144 random bits one always suffices.
_BOUNDARY_ATTEMPTS = 4


@dataclass(frozen=True, slots=True)
class EncodedPart:
    """One sub-request as the octets of its part (delimiter line first)."""

    index: int
    data: bytes
    header_bytes: int
    body_bytes: int


@dataclass(frozen=True, slots=True)
class Chunk:
    """Consecutive sub-requests sent together: ``batch`` True for one envelope, False for a
    part that must travel standalone."""

    indexes: tuple[int, ...]
    batch: bool


def encode_parts(
    requests: Sequence[SubRequest], indexes: Sequence[int]
) -> tuple[str, dict[int, EncodedPart]]:
    """A boundary and the encoded part of each of ``requests[i]`` for ``i`` in ``indexes``.

    Every part is encoded as a first part: its opening dash-boundary line, its header section,
    its body and the "CRLF --boundary" that ends it. ``join_parts`` drops the repeated opening
    dash-boundary of later parts, whose CRLF finishes the previous part's delimiter line. Raises ``LocalProtocolError`` for a sub-request the spec forbids.
    """
    for _attempt in range(_BOUNDARY_ATTEMPTS):
        boundary = make_boundary()
        framing = 2 * (len(boundary) + 4)  # "--" boundary CRLF, and CRLF "--" boundary
        try:
            encoded: dict[int, EncodedPart] = {}
            for index in indexes:
                request = requests[index]
                writer = BatchWriter(boundary)
                data = writer.request_part(
                    request.method, request.target, request.headers, request.body
                )
                header = len(data) - len(request.body) - framing
                encoded[index] = EncodedPart(index, data, header, len(request.body))
            return boundary, encoded
        except LocalProtocolError as exc:
            if exc.requirement != "MB-WIRE-6":
                raise
            # MB-WIRE-6: the delimiter may occur in no body; a fresh boundary avoids it.
    raise LocalProtocolError(  # pragma: no cover - needs 144-bit collisions four times running
        "no boundary avoids every body", requirement="MB-WIRE-6"
    )


#: What follows the last part's "CRLF --boundary": the "--" of the close delimiter and a CRLF.
_CLOSE = b"--\r\n"


def join_parts(boundary: str, parts: Sequence[EncodedPart]) -> bytes:
    """The multipart content of ``parts``, closed."""
    skip = len(boundary) + 2  # a later part's own "--" boundary
    return b"".join([parts[0].data, *(p.data[skip:] for p in parts[1:]), _CLOSE])


def plan_chunks(parts: Sequence[EncodedPart], boundary: str, limits: Limits | None) -> list[Chunk]:
    """Split ``parts`` (in order) into batches that respect ``limits`` (None: one batch)."""
    if limits is None:
        return [Chunk(tuple(p.index for p in parts), True)]
    close = len(_CLOSE)
    skip = len(boundary) + 2  # what join_parts drops from a part that is not first
    chunks: list[Chunk] = []
    current: list[int] = []
    size = close
    for part in parts:
        alone = close + len(part.data)
        if (
            part.body_bytes > limits.max_part_bytes
            or part.header_bytes > limits.max_part_header_bytes
            or alone > limits.max_batch_bytes
        ):
            if current:
                chunks.append(Chunk(tuple(current), True))
                current, size = [], close
            chunks.append(Chunk((part.index,), False))
            continue
        extra = len(part.data) - (skip if current else 0)
        if current and (len(current) >= limits.max_parts or size + extra > limits.max_batch_bytes):
            chunks.append(Chunk(tuple(current), True))
            current, size = [], close
            extra = len(part.data)
        current.append(part.index)
        size += extra
    if current:
        chunks.append(Chunk(tuple(current), True))
    return chunks
