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
    RequestPartStart,
    Role,
    resolve_part_target,
)

from ._messages import Request

__all__ = ["Envelope", "PartSpec", "receive"]


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
    """Turns parser events into ``PartSpec`` entries and spooled bodies."""

    def __init__(self, request: Request, envelope: Envelope, batch_paths: Collection[str]) -> None:
        self._request = request
        self._envelope = envelope
        self._batch_paths = batch_paths
        self._position = 0
        self.ended = False

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
        target = resolve_part_target(
            event,
            base=request.path,
            scheme=request.scheme,
            authority=request.authority,
            batch_paths=self._batch_paths,
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
        receiver = _Receiver(request, envelope, batch_paths)
        async for chunk in request.body.stream():
            receiver.handle(parser.feed(chunk))
        receiver.handle(parser.feed_eof())
    except BaseException:
        envelope.close()
        raise
    return envelope
