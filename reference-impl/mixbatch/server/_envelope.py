"""Receiving a batch envelope whole, validating it, and spooling its part bodies.

MB-PROC-1: "A server does not run any part before it has received and validated the whole
envelope." ``receive`` therefore reads the request content to its end through the codec's
``BatchParser`` (Role.REQUEST: framing, part header syntax, Http-Method, Content-Id, forbidden
fields, limits), resolves every target against the batch's own URI (MB-PART-5, MB-SUB-2) and
refuses nested batches (MB-SUB-4). Any error rejects the whole batch before anything ran.

Part bodies go to one ``SpooledTemporaryFile`` as they arrive: up to the configured threshold
in memory, beyond it on disk, so even a batch at the octet limit never sits in RAM. Each part
keeps only its offset and length into the spool.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Collection
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

from ._messages import Request

__all__ = ["Envelope", "PartSpec", "receive"]

#: A Content-Id field line inside a part header section (the section starts at a line start).
_CONTENT_ID_LINE = re.compile(rb"\r\n((?i:content-id)[ \t]*:)")


def _spool(threshold: int) -> IO[bytes]:
    # The file outlives this call: Envelope.close() closes it once the batch has run.
    return tempfile.SpooledTemporaryFile(max_size=threshold)


@dataclass(slots=True)
class PartSpec:
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

    parts: list[PartSpec] = field(default_factory=list)
    spool: IO[bytes] = field(default_factory=lambda: _spool(1024 * 1024))

    def close(self) -> None:
        self.spool.close()


class _Receiver:
    """Turns parser events into ``PartSpec`` entries and spooled bodies.

    It also keeps a short window of the most recent raw content, enough to hold one whole part
    header section, so that a fault found in a Content-Id value after the codec accepted it
    (off-origin or nested target) is reported at the Content-Id line's first octet, as
    vector.schema.json's offset rules ask; the codec's start event gives only the section's.
    """

    def __init__(
        self,
        request: Request,
        envelope: Envelope,
        batch_paths: Collection[str],
        window: int,
    ) -> None:
        self._request = request
        self._envelope = envelope
        self._batch_paths = batch_paths
        self._position = 0
        self._window = bytearray()
        self._window_base = 0
        self._window_size = window
        self.ended = False

    def remember(self, chunk: bytes | bytearray | memoryview) -> None:
        self._window += chunk
        excess = len(self._window) - self._window_size - len(chunk)
        if excess > 0:
            del self._window[:excess]
            self._window_base += excess

    def _content_id_offset(self, section: int) -> int:
        start = section - self._window_base
        if start < 0:
            return section
        # Start at the CRLF that ends the delimiter line, so a first-line Content-Id matches.
        found = _CONTENT_ID_LINE.search(self._window, max(0, start - 2))
        return self._window_base + found.start(1) if found else section

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
                self.ended = True

    def _start(self, event: RequestPartStart) -> PartSpec:
        request = self._request
        if len(event.fields.get_all("Content-Length")) > 1:
            # MB-WIRE-20: "A receiver rejects a part with more than one Content-Length field
            # line". Checked here as well because the codec lets equal repeated values through.
            raise RemoteProtocolError(
                "request part has more than one Content-Length field line",
                requirement="MB-WIRE-20",
                slug="content-length-mismatch",
                title="Part Content-Length mismatch",
                part_index=event.index,
                offset=event.offset,
            )
        try:
            target = resolve_target(
                request.path, event.target, scheme=request.scheme, authority=request.authority
            )
        except RemoteProtocolError as exc:
            exc.part_index = event.index
            if exc.offset is None:
                exc.offset = self._content_id_offset(event.offset)
            raise
        # MB-SUB-4: "A server rejects a part whose target is a batch endpoint with 400, so
        # batches do not nest."
        if target.partition("?")[0] in self._batch_paths:
            raise RemoteProtocolError(
                f"part target {event.target!r} resolves to the batch endpoint {target!r}",
                requirement="MB-SUB-4",
                slug="nested-batch",
                title="Nested batch",
                part_index=event.index,
                offset=self._content_id_offset(event.offset),
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
    request: Request,
    boundary: str,
    *,
    limits: Limits,
    spool_threshold: int,
    batch_paths: Collection[str],
) -> Envelope:
    """Read and validate the whole batch; raises ``MixbatchError`` (nothing has run)."""
    declared = request.body.length
    if declared is not None and declared > limits.max_batch_bytes:
        # Refuse before reading a single octet of an announced oversized batch.
        raise LimitExceeded(
            f"Content-Length {declared} is over the limit of {limits.max_batch_bytes} octets",
            limit="max_batch_bytes",
            value=limits.max_batch_bytes,
        )
    envelope = Envelope(spool=_spool(spool_threshold))
    try:
        parser = BatchParser(boundary, Role.REQUEST, limits)
        receiver = _Receiver(request, envelope, batch_paths, limits.max_part_header_bytes + 256)
        async for chunk in request.body.stream():
            receiver.remember(chunk)
            receiver.handle(parser.feed(chunk))
        receiver.handle(parser.feed_eof())
    except BaseException:
        envelope.close()
        raise
    return envelope
