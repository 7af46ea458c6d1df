"""Receiving a batch whole and validating it before anything goes upstream (MB-PROXY-3).

MB-PROXY-3: "A batching proxy MUST receive and validate the whole envelope, as a batch server
does under MB-PROC-1, before it forwards any part." ``receive`` reads the request content to
its end through the codec's ``BatchParser`` in ``Role.REQUEST`` (framing, part header syntax,
Http-Method, Content-Id, forbidden fields, CONNECT/TRACE, limits), resolves each target against
the batch's own URI with ``resolve_target`` (MB-PART-5, same origin: MB-SUB-2), refuses nested
batches (MB-SUB-4) and parts that try to name another authority through a header field. Any
error rejects the whole batch while nothing has been forwarded.

Bodies go to one ``SpooledTemporaryFile`` (memory up to a threshold, then disk); each part keeps
its offset and length into it and is read back only when the part is forwarded.

This mirrors what ``mixbatch.server`` does in its private ``_envelope`` module; the two differ in
the proxy's extra refusal of authority-changing fields.
"""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import IO

from mixbatch.codec import (
    BatchEnd,
    BatchParser,
    Event,
    Fields,
    LimitExceeded,
    Limits,
    PartData,
    PartEnd,
    RemoteProtocolError,
    RequestPartStart,
    Role,
    resolve_target,
)

__all__ = ["AUTHORITY_FIELDS", "SPOOL_MEMORY_THRESHOLD", "Envelope", "PartSpec", "receive"]

#: Part bodies up to this total stay in memory; beyond it they spill to a temporary file.
SPOOL_MEMORY_THRESHOLD = 1024 * 1024

#: Fields by which a request can tell an origin (or a framework behind it) to act as if it had
#: been sent to another host, scheme or path. Host itself is forbidden by the codec (MB-PART-9);
#: these ask for the same thing in other words, so a part carrying one is refused (MB-SUB-2 in
#: spirit: "a scheme or authority other than the batch request's own"; MB-PROXY-1: one origin).
AUTHORITY_FIELDS = frozenset(
    {
        "forwarded",
        "x-forwarded-host",
        "x-forwarded-proto",
        "x-forwarded-port",
        "x-forwarded-server",
        "x-forwarded-scheme",
        "x-host",
        "x-http-host-override",
        "x-original-host",
        "x-original-url",
        "x-rewrite-url",
    }
)


def _new_spool() -> IO[bytes]:
    # The file outlives this call: Envelope.close() closes it once the batch has been answered.
    return tempfile.SpooledTemporaryFile(max_size=SPOOL_MEMORY_THRESHOLD)


@dataclass(slots=True)
class PartSpec:
    """One validated sub-request: its body is ``spool[start:start+length]``."""

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

    parts: list[PartSpec] = field(default_factory=list)
    spool: IO[bytes] = field(default_factory=lambda: _new_spool())

    def body(self, part: PartSpec) -> bytes:
        self.spool.seek(part.start)
        return self.spool.read(part.length)

    def close(self) -> None:
        self.spool.close()


def authority_field(fields: Fields) -> str | None:
    """The first field of ``fields`` that would change the request's authority, if any."""
    for name, _value in fields:
        if name.lower() in AUTHORITY_FIELDS:
            return name
    return None


class _Receiver:
    def __init__(self, envelope: Envelope, path: str, scheme: str, authority: str) -> None:
        self._envelope = envelope
        self._path = path
        self._scheme = scheme
        self._authority = authority
        self._position = 0

    def handle(self, events: list[Event]) -> None:
        envelope = self._envelope
        for event in events:
            if isinstance(event, PartData):
                envelope.spool.write(event.data)
                self._position += len(event.data)
            elif isinstance(event, RequestPartStart):
                envelope.parts.append(self._start(event))
            elif isinstance(event, PartEnd):
                envelope.parts[-1].length = event.length
            elif isinstance(event, BatchEnd):
                pass

    def _start(self, event: RequestPartStart) -> PartSpec:
        try:
            target = resolve_target(
                self._path, event.target, scheme=self._scheme, authority=self._authority
            )
        except RemoteProtocolError as exc:
            exc.part_index = event.index
            exc.offset = event.offset if exc.offset is None else exc.offset
            raise
        # MB-SUB-4: "A server rejects a part whose target is a batch endpoint with 400, so
        # batches do not nest."
        if target.partition("?")[0] == self._path:
            raise RemoteProtocolError(
                f"part target {event.target!r} resolves to the batch endpoint {target!r}",
                requirement="MB-SUB-4",
                slug="nested-batch",
                title="Nested batch",
                part_index=event.index,
                offset=event.offset,
            )
        name = authority_field(event.fields)
        if name is not None:
            raise RemoteProtocolError(
                f"part field {name!r} would send the sub-request to another authority than "
                "the proxy's one origin",
                requirement="MB-SUB-2",
                slug="cross-origin-target",
                title="Target outside the batch's origin",
                part_index=event.index,
                offset=event.offset,
            )
        return PartSpec(
            event.index,
            event.method,
            event.target,
            target,
            event.fields,
            event.offset,
            self._position,
        )


async def receive(
    content: AsyncIterator[bytes | bytearray | memoryview],
    boundary: str,
    *,
    path: str,
    scheme: str,
    authority: str,
    declared_length: int | None,
    limits: Limits,
) -> Envelope:
    """Read and validate the whole batch; raises ``MixbatchError`` while nothing was forwarded."""
    if declared_length is not None and declared_length > limits.max_batch_bytes:
        # Refuse before reading a single octet of an announced oversized batch.
        raise LimitExceeded(
            f"Content-Length {declared_length} is over the limit of "
            f"{limits.max_batch_bytes} octets",
            limit="max_batch_bytes",
            value=limits.max_batch_bytes,
        )
    envelope = Envelope()
    try:
        parser = BatchParser(boundary, Role.REQUEST, limits)
        receiver = _Receiver(envelope, path, scheme, authority)
        async for chunk in content:
            receiver.handle(parser.feed(chunk))
        receiver.handle(parser.feed_eof())
    except BaseException:
        envelope.close()
        raise
    return envelope
