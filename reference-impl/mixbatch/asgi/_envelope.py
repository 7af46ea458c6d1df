"""Receiving a batch over ASGI ``receive``, validating all of it, and spooling the bodies.

MB-PROC-1: "A server MUST NOT run any part before it has received the whole batch request and
validated its whole envelope: framing, every part header section, every target and every
limit." So the whole request content is read through the codec's ``BatchParser`` in
``Role.REQUEST`` (framing, field syntax, Http-Method, Content-Id, forbidden fields, limits),
every target is resolved against the batch request's URI (MB-PART-5, same origin: MB-SUB-2),
and a target naming the batch endpoint is refused (MB-SUB-4). Only then does a part run.

Part bodies go to one ``SpooledTemporaryFile``: in memory up to a threshold, on disk beyond,
so a batch at the octet limit never sits in RAM whole. A part keeps its offset and length.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from typing import IO

from mixbatch.codec import (
    BatchParser,
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

from ._types import Receive

__all__ = ["ClientGone", "Envelope", "Part", "declared_too_large", "receive_envelope"]


class ClientGone(Exception):
    """The client disconnected before the batch request was complete."""


@dataclass(slots=True)
class Part:
    """One validated sub-request; its body is ``spool[start : start + length]``."""

    index: int
    method: str
    content_id: str
    target: str
    fields: Fields
    start: int
    length: int = 0


@dataclass(slots=True)
class Envelope:
    """The whole valid batch: parts in order and the spool that holds their bodies."""

    spool: IO[bytes]
    parts: list[Part] = field(default_factory=list)

    def body(self, part: Part) -> bytes:
        self.spool.seek(part.start)
        return self.spool.read(part.length)

    def close(self) -> None:
        self.spool.close()


def _spool(threshold: int) -> IO[bytes]:
    # The file outlives this call: Envelope.close() closes it once the batch has run.
    return tempfile.SpooledTemporaryFile(max_size=threshold)


async def receive_envelope(
    receive: Receive,
    boundary: str,
    *,
    base: str,
    scheme: str,
    authority: str,
    batch_path: str,
    limits: Limits,
    spool_threshold: int,
) -> Envelope:
    """Read and validate the whole batch; raises ``RemoteProtocolError`` and runs nothing."""
    envelope = Envelope(_spool(spool_threshold))
    parser = BatchParser(boundary, Role.REQUEST, limits)
    position = 0
    try:
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise ClientGone("the client went away before the batch was complete")
            if message["type"] != "http.request":
                continue
            chunk = message.get("body", b"")
            more = bool(message.get("more_body", False))
            events = parser.feed(chunk) if chunk else []
            if not more:
                events += parser.feed_eof()
            for event in events:
                if isinstance(event, PartData):
                    envelope.spool.write(event.data)
                    position += len(event.data)
                elif isinstance(event, RequestPartStart):
                    target = _resolve(event, base, scheme, authority, batch_path)
                    envelope.parts.append(
                        Part(
                            event.index, event.method, event.target, target, event.fields, position
                        )
                    )
                elif isinstance(event, PartEnd):
                    envelope.parts[-1].length = event.length
    except BaseException:
        envelope.close()
        raise
    return envelope


def _resolve(
    event: RequestPartStart, base: str, scheme: str, authority: str, batch_path: str
) -> str:
    lengths = event.fields.get_all("Content-Length")
    if len(lengths) > 1:
        # MB-WIRE-20: "A receiver rejects a part with more than one Content-Length field line";
        # the codec lets equal repeats through, so the middleware checks the count itself.
        raise RemoteProtocolError(
            f"part has {len(lengths)} Content-Length field lines",
            requirement="MB-WIRE-20",
            slug="content-length-mismatch",
            title="Part Content-Length repeated",
            part_index=event.index,
            offset=event.offset,
        )
    try:
        # MB-SUB-8: "<*>" is refused outright; resolve_target rejects the asterisk-form.
        target = resolve_target(base, event.target, scheme=scheme, authority=authority)
    except RemoteProtocolError as exc:
        exc.part_index = event.index
        exc.offset = event.offset if exc.offset is None else exc.offset
        raise
    # MB-SUB-4: "A server MUST answer 400 to a batch request in which any part's target is a
    # batch endpoint, so that batches do not nest."
    if target.partition("?")[0] == batch_path:
        raise RemoteProtocolError(
            f"part target {event.target!r} resolves to the batch endpoint {target!r}",
            requirement="MB-SUB-4",
            slug="nested-batch",
            title="Nested batch",
            part_index=event.index,
            offset=event.offset,
        )
    return target


def declared_too_large(content_length: str | None, limits: Limits) -> LimitExceeded | None:
    """A 413 error when the declared Content-Length is already over ``max_batch_bytes``."""
    if content_length is None or not content_length.isdigit():
        return None
    if int(content_length) > limits.max_batch_bytes:
        return LimitExceeded(
            f"Content-Length {content_length} is over the limit of {limits.max_batch_bytes} octets",
            limit="max_batch_bytes",
            value=limits.max_batch_bytes,
        )
    return None
