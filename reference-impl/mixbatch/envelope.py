"""Receiving a batch envelope whole, validating it, and spooling its part bodies.

Every batch receiver in this package (the server, the batching proxy and the ASGI middleware)
reads a batch request the same way, so it lives here once; each adapter only moves chunks from
its own transport into ``EnvelopeReader.feed``.

MB-PROC-1: "A server does not run any part before it has received and validated the whole
envelope." The reader runs the content through the codec's ``BatchParser`` (Role.REQUEST:
framing, part header syntax, Http-Method, Content-Id, forbidden fields, limits) and checks every
target with ``resolve_part_target`` (MB-PART-5, MB-SUB-2, MB-SUB-4, MB-SUB-8). Any error
rejects the whole batch before anything ran.

Part bodies go to one ``SpooledTemporaryFile`` as they arrive: up to a threshold in memory,
beyond it on disk, so even a batch at the octet limit never sits in RAM. Each part keeps only
its offset and length into the spool.
"""

from __future__ import annotations

import tempfile
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import IO

from mixbatch.codec import (
    BatchParser,
    Event,
    Fields,
    LimitExceeded,
    Limits,
    PartData,
    PartEnd,
    RequestPartStart,
    Role,
    resolve_part_target,
)

__all__ = [
    "SPOOL_IN_MEMORY_BYTES",
    "Envelope",
    "EnvelopeReader",
    "Part",
    "check_declared_length",
]

#: Part bodies stay in memory up to 1 MiB per batch; beyond that they spool to disk.
SPOOL_IN_MEMORY_BYTES = 1024 * 1024


@dataclass(slots=True)
class Part:
    """One validated sub-request waiting to run; its body is ``spool[start:start+length]``."""

    index: int
    method: str
    content_id: str
    target: str
    fields: Fields
    offset: int
    start: int
    length: int = 0


@dataclass(slots=True)
class Envelope:
    """A whole, valid batch: its parts in order and the spool holding their bodies."""

    spool: IO[bytes]
    parts: list[Part] = field(default_factory=list)

    def body(self, part: Part) -> bytes:
        """The part's whole body, read back from the spool."""
        self.spool.seek(part.start)
        return self.spool.read(part.length)

    def close(self) -> None:
        self.spool.close()


def check_declared_length(content_length: int | str | None, limits: Limits) -> None:
    """Raise 413 when an announced Content-Length is already over ``max_batch_bytes``, so an
    oversized batch is refused before a single octet of it is read (MB-STATUS-3)."""
    if isinstance(content_length, str):
        content_length = int(content_length) if content_length.isdigit() else None
    if content_length is not None and content_length > limits.max_batch_bytes:
        raise LimitExceeded(
            f"Content-Length {content_length} is over the limit of {limits.max_batch_bytes} octets",
            limit="max_batch_bytes",
            value=limits.max_batch_bytes,
        )


class EnvelopeReader:
    """Feed a batch request's content in chunks; ``finish`` returns the validated envelope.

    ``base``, ``scheme`` and ``authority`` describe the batch request's own target; parts that
    resolve to one of ``batch_paths`` are nested batches. On any error the spool is closed.
    """

    __slots__ = (
        "_authority",
        "_base",
        "_batch_paths",
        "_envelope",
        "_parser",
        "_position",
        "_scheme",
    )

    def __init__(
        self,
        boundary: str,
        *,
        base: str,
        scheme: str,
        authority: str,
        batch_paths: Collection[str],
        limits: Limits,
        spool_threshold: int = SPOOL_IN_MEMORY_BYTES,
    ) -> None:
        self._parser = BatchParser(boundary, Role.REQUEST, limits)
        # The spool outlives this call: Envelope.close() (or abandon()) closes it.
        spool = tempfile.SpooledTemporaryFile(max_size=spool_threshold)  # noqa: SIM115
        self._envelope = Envelope(spool)
        self._base, self._scheme, self._authority = base, scheme, authority
        self._batch_paths = batch_paths
        self._position = 0

    def feed(self, chunk: bytes | bytearray | memoryview) -> None:
        try:
            self._handle(self._parser.feed(chunk))
        except BaseException:
            self.abandon()
            raise

    def finish(self) -> Envelope:
        """Say the content ended; the envelope is now whole and valid, and the caller owns it."""
        try:
            self._handle(self._parser.feed_eof())
        except BaseException:
            self.abandon()
            raise
        return self._envelope

    def abandon(self) -> None:
        """Drop the spool (the request failed or the client went away)."""
        self._envelope.close()

    def _handle(self, events: list[Event]) -> None:
        envelope = self._envelope
        for event in events:
            if isinstance(event, PartData):
                envelope.spool.write(event.data)
                self._position += len(event.data)
            elif isinstance(event, RequestPartStart):
                target = resolve_part_target(
                    event,
                    base=self._base,
                    scheme=self._scheme,
                    authority=self._authority,
                    batch_paths=self._batch_paths,
                )
                envelope.parts.append(
                    Part(
                        event.index,
                        event.method,
                        event.target,
                        target,
                        event.fields,
                        event.offset,
                        self._position,
                    )
                )
            elif isinstance(event, PartEnd):
                envelope.parts[-1].length = event.length
