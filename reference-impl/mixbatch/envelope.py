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
beyond it on disk, so even a batch at the octet limit never sits in RAM. A part's header
section goes there too unless it is small: a part whose method, target and fields take more
than ``INLINE_PART_BYTES`` as Python objects is packed into one record in the spool and read
back when the part is used. Every field line costs a tuple and two strings, several times its
octets on the wire, and a batch holds up to ``max_parts`` parts until the last one ran, so a
held part costs at most about that many octets, whatever its header section holds.
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
    "INLINE_PART_BYTES",
    "SPOOL_IN_MEMORY_BYTES",
    "Envelope",
    "EnvelopeReader",
    "Part",
    "check_declared_length",
]

#: Part bodies stay in memory up to 1 MiB per batch; beyond that they spool to disk.
SPOOL_IN_MEMORY_BYTES = 1024 * 1024
#: A part whose method, target, Content-Id and fields take more than this, counted as Python
#: objects (``_held_bytes``), waits in the spool instead of in memory: 10,000 parts then hold at
#: most about 10 MiB however dense their header sections are.
INLINE_PART_BYTES = 1024
#: What a ``str`` and a (name, value) tuple cost beyond their characters (CPython 3.12, 64-bit).
_STR_OVERHEAD = 49
_FIELD_OVERHEAD = 56 + 8 + 2 * _STR_OVERHEAD
#: Separates the method, Content-Id, target and field lines of a packed record. No element
#: holds a CR or LF: fields passed the field-line grammar, the rest are tokens and URI chars.
_SEP = "\r\n"

_Header = tuple[str, str, str, Fields]


def _held_bytes(method: str, content_id: str, target: str, fields: Fields) -> int:
    """About what holding these objects costs, in octets."""
    size = 3 * _STR_OVERHEAD + len(method) + len(content_id) + len(target)
    for name, value in fields:
        size += _FIELD_OVERHEAD + len(name) + len(value)
        if size > INLINE_PART_BYTES:
            break
    return size


def _pack(method: str, content_id: str, target: str, fields: Fields) -> bytes:
    lines = [method, content_id, target]
    lines.extend(f"{name}:{value}" for name, value in fields)
    return _SEP.join(lines).encode("latin-1")


def _unpack(record: bytes) -> _Header:
    method, content_id, target, *lines = record.decode("latin-1").split(_SEP)
    pairs = []
    for line in lines:
        # A field name is a token, which holds no ":", so the first one ends it.
        name, _, value = line.partition(":")
        pairs.append((name, value))
    return method, content_id, target, Fields(pairs)


class Part:
    """One validated sub-request waiting to run; its body is ``spool[start:start+length]``.

    ``method``, ``content_id``, ``target`` and ``fields`` are held in memory for a small part,
    or read back from the envelope's spool for one packed there (see ``INLINE_PART_BYTES``).
    """

    __slots__ = ("_envelope", "_header", "index", "length", "offset", "start")

    def __init__(
        self,
        envelope: Envelope,
        index: int,
        header: _Header | tuple[int, int],
        offset: int,
        start: int,
        length: int = 0,
    ) -> None:
        self._envelope = envelope
        #: The header objects, or (position, size) of their packed record in the spool.
        self._header = header
        self.index = index
        self.offset = offset
        self.start = start
        self.length = length

    def _load(self) -> _Header:
        header = self._header
        if len(header) == 4:
            return header
        return self._envelope.record(self, header)

    @property
    def method(self) -> str:
        return self._load()[0]

    @property
    def content_id(self) -> str:
        return self._load()[1]

    @property
    def target(self) -> str:
        return self._load()[2]

    @property
    def fields(self) -> Fields:
        return self._load()[3]

    @property
    def packed(self) -> bool:
        """True when the part's header waits in the spool rather than in memory."""
        return len(self._header) != 4

    def __repr__(self) -> str:
        return (
            f"Part(index={self.index}, method={self.method!r}, target={self.target!r}, "
            f"start={self.start}, length={self.length})"
        )


@dataclass(slots=True)
class Envelope:
    """A whole, valid batch: its parts in order and the spool holding their bodies."""

    spool: IO[bytes]
    parts: list[Part] = field(default_factory=list)
    #: The part whose packed record was read last, and its objects: parts are used one after
    #: another, so this one entry saves reading a record again for each attribute.
    _last: tuple[Part, _Header] | None = None

    def body(self, part: Part) -> bytes:
        """The part's whole body, read back from the spool."""
        self.spool.seek(part.start)
        return self.spool.read(part.length)

    def record(self, part: Part, where: tuple[int, int]) -> _Header:
        """The header objects of a part packed into the spool."""
        last = self._last
        if last is not None and last[0] is part:
            return last[1]
        self.spool.seek(where[0])
        header = _unpack(self.spool.read(where[1]))
        self._last = (part, header)
        return header

    def close(self) -> None:
        self._last = None
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
        spool = envelope.spool
        if events and spool.tell() != self._position:
            spool.seek(self._position)  # a record was read back in between
        for event in events:
            if isinstance(event, PartData):
                spool.write(event.data)
                self._position += len(event.data)
            elif isinstance(event, RequestPartStart):
                target = resolve_part_target(
                    event,
                    base=self._base,
                    scheme=self._scheme,
                    authority=self._authority,
                    batch_paths=self._batch_paths,
                )
                method, content_id, fields = event.method, event.target, event.fields
                header: _Header | tuple[int, int] = (method, content_id, target, fields)
                if _held_bytes(method, content_id, target, fields) > INLINE_PART_BYTES:
                    record = _pack(method, content_id, target, fields)
                    spool.write(record)
                    header = (self._position, len(record))
                    self._position += len(record)
                envelope.parts.append(
                    Part(envelope, event.index, header, event.offset, self._position)
                )
            elif isinstance(event, PartEnd):
                envelope.parts[-1].length = event.length
