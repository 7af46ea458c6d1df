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
from typing import IO, ClassVar

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
    numeral_over,
    resolve_part_target,
    shown_numeral,
)

__all__ = [
    "INLINE_PART_BYTES",
    "SPOOL_IN_MEMORY_BYTES",
    "TARGET_MEMO_MAX_CHARS",
    "TARGET_MEMO_SIZE",
    "Envelope",
    "EnvelopeReader",
    "Part",
    "check_declared_length",
]

#: Part bodies stay in memory up to 1 MiB per batch; beyond that they spool to disk.
SPOOL_IN_MEMORY_BYTES = 1024 * 1024
#: A part whose method, target, Content-Id and fields take more than this, counted as Python
#: objects (``_HEAD_OVERHEAD``, ``_FIELD_OVERHEAD``), waits in the spool instead of in memory:
#: 10,000 parts then hold at most about 10 MiB however dense their header sections are.
INLINE_PART_BYTES = 1024
#: Distinct Content-Id references one reader remembers the resolved target of: the parts of a
#: batch mostly name a few targets, and past these the codec's own cache still answers.
TARGET_MEMO_SIZE = 64
#: Only references up to this long are remembered, so a reader's memo stays under about 32 KiB.
TARGET_MEMO_MAX_CHARS = 256
#: What a ``str`` and a (name, value) tuple cost beyond their characters (CPython 3.12, 64-bit).
_STR_OVERHEAD = 49
_FIELD_OVERHEAD = 56 + 8 + 2 * _STR_OVERHEAD
#: What a part's method, Content-Id and target cost beyond their characters.
_HEAD_OVERHEAD = 3 * _STR_OVERHEAD
#: Separates the method, Content-Id, target and field lines of a packed record. No element
#: holds a CR or LF: fields passed the field-line grammar, the rest are tokens and URI chars.
_SEP = "\r\n"

_Header = tuple[str, str, str, Fields]
_new_part = object.__new__
#: Where each header attribute of a part sits in a ``_Header``.
_HEADER_POSITION = {"method": 0, "content_id": 1, "target": 2, "fields": 3}


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

    A small part holds ``method``, ``content_id``, ``target`` and ``fields`` as plain
    attributes, read at the cost of any slot; a part packed into the spool (see
    ``INLINE_PART_BYTES``) is a ``_PackedPart``, which reads them back from there instead.
    """

    __slots__ = ("content_id", "fields", "index", "length", "method", "offset", "start", "target")

    #: True when the part's header waits in the spool rather than in memory.
    packed: ClassVar[bool] = False

    method: str
    content_id: str
    target: str
    fields: Fields

    def __init__(
        self,
        index: int,
        method: str,
        content_id: str,
        target: str,
        fields: Fields,
        offset: int,
        start: int,
        length: int = 0,
    ) -> None:
        self.index = index
        self.method = method
        self.content_id = content_id
        self.target = target
        self.fields = fields
        self.offset = offset
        self.start = start
        self.length = length

    def __repr__(self) -> str:
        return (
            f"Part(index={self.index}, method={self.method!r}, target={self.target!r}, "
            f"start={self.start}, length={self.length})"
        )


class _PackedPart(Part):
    """A part whose header objects wait packed in the envelope's spool: its ``method``,
    ``content_id``, ``target`` and ``fields`` slots stay empty, so reading one falls through
    to ``__getattr__``, which reads the record back."""

    __slots__ = ("_at", "_envelope", "_size")

    packed: ClassVar[bool] = True

    def __init__(
        self, envelope: Envelope, index: int, at: int, size: int, offset: int, start: int
    ) -> None:
        self._envelope = envelope
        #: Where the packed record starts in the spool, and its size.
        self._at = at
        self._size = size
        self.index = index
        self.offset = offset
        self.start = start
        self.length = 0

    def __getattr__(self, name: str) -> str | Fields:
        position = _HEADER_POSITION.get(name)
        if position is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return self._envelope.record(self, self._at, self._size)[position]


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

    def record(self, part: Part, at: int, size: int) -> _Header:
        """The header objects of a part packed into the spool, ``size`` octets from ``at``."""
        last = self._last
        if last is not None and last[0] is part:
            return last[1]
        self.spool.seek(at)
        header = _unpack(self.spool.read(size))
        self._last = (part, header)
        return header

    def close(self) -> None:
        """Close the spool and drop the parts. A packed part refers to its envelope and the
        envelope to its parts: left alone, the cycle waits for a full collection, and every
        collection until then walks past the batch's parts."""
        self._last = None
        self.parts.clear()
        self.spool.close()


def check_declared_length(content_length: int | str | None, limits: Limits) -> None:
    """Raise 413 when an announced Content-Length is already over ``max_batch_bytes``, so an
    oversized batch is refused before a single octet of it is read (MB-STATUS-3)."""
    # ASCII digits only (str.isdigit takes "²"); anything else declares no length here.
    numeral = content_length if isinstance(content_length, str) else str(content_length)
    if content_length is None or not (numeral.isascii() and numeral.isdigit()):
        return
    if numeral_over(numeral, limits.max_batch_bytes):
        raise LimitExceeded(
            f"Content-Length {shown_numeral(numeral)} is over the limit of "
            f"{limits.max_batch_bytes} octets",
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
        "_targets",
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
        #: Content-Id reference -> the target ``resolve_part_target`` accepted it as. Base,
        #: scheme, authority and batch paths are fixed per reader, so the reference alone
        #: decides; a refusal is never remembered, it raises afresh with its own part's index.
        self._targets: dict[str, str] = {}

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
        # Every part of a batch passes through here, so the common case (a small part without
        # content, whose target this reader resolved before) costs a few look-ups and one Part.
        if not events:
            return
        envelope = self._envelope
        spool = envelope.spool
        parts = envelope.parts
        targets = self._targets
        position = self._position
        if spool.tell() != position:
            spool.seek(position)  # a record was read back in between
        for event in events:
            if isinstance(event, RequestPartStart):
                reference = event.target
                target = targets.get(reference)
                if target is None:
                    target = self._resolve(event)
                method, fields = event.method, event.fields
                # About what holding these objects costs, in octets; counting stops once past
                # INLINE_PART_BYTES.
                size = _HEAD_OVERHEAD + len(method) + len(reference) + len(target)
                for name, value in fields.pairs:
                    size += _FIELD_OVERHEAD + len(name) + len(value)
                    if size > INLINE_PART_BYTES:
                        break
                if size <= INLINE_PART_BYTES:
                    # Part(...) spelled out: CPython 3.12 calls a class's Python __init__ at
                    # about twice the cost of the eight slot stores themselves.
                    part = _new_part(Part)
                    part.index = event.index
                    part.method = method
                    part.content_id = reference
                    part.target = target
                    part.fields = fields
                    part.offset = event.offset
                    part.start = position
                    part.length = 0
                    parts.append(part)
                    continue
                record = _pack(method, reference, target, fields)
                spool.write(record)
                at = position
                position += len(record)
                parts.append(
                    _PackedPart(envelope, event.index, at, len(record), event.offset, position)
                )
            elif isinstance(event, PartEnd):
                parts[-1].length = event.length
            elif isinstance(event, PartData):
                data = event.data
                spool.write(data)
                position += len(data)
        self._position = position

    def _resolve(self, event: RequestPartStart) -> str:
        """The part's checked target (``resolve_part_target``), remembered for later parts."""
        target = resolve_part_target(
            event,
            base=self._base,
            scheme=self._scheme,
            authority=self._authority,
            batch_paths=self._batch_paths,
        )
        reference = event.target
        if len(self._targets) < TARGET_MEMO_SIZE and len(reference) <= TARGET_MEMO_MAX_CHARS:
            self._targets[reference] = target
        return target
