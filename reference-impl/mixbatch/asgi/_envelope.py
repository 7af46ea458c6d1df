"""Receiving a batch over ASGI ``receive`` into the shared envelope reader.

``mixbatch.envelope`` does the work (MB-PROC-1: the whole envelope is received and validated
before any part runs; bodies are spooled); this adapter moves ASGI ``http.request`` messages
into the reader and notices a client that goes away.
"""

from __future__ import annotations

from mixbatch._http.budget import Ticket
from mixbatch.codec import LimitExceeded, Limits
from mixbatch.envelope import Envelope, EnvelopeReader, Part, check_declared_length

from ._types import Receive

__all__ = ["ClientGone", "Envelope", "Part", "declared_too_large", "receive_envelope"]


class ClientGone(Exception):
    """The client disconnected before the batch request was complete."""


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
    ticket: Ticket | None = None,
) -> Envelope:
    """Read and validate the whole batch; raises ``RemoteProtocolError`` and runs nothing, or
    ``BudgetExhausted`` when a chunked batch outgrows what ``ticket`` may charge."""
    reader = EnvelopeReader(
        boundary,
        base=base,
        scheme=scheme,
        authority=authority,
        batch_paths=(batch_path,),
        limits=limits,
        spool_threshold=spool_threshold,
    )
    received = 0
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
            if chunk:
                received += len(chunk)
                if ticket is not None:
                    ticket.charge(received)
                reader.feed(chunk)
    except BaseException:
        reader.abandon()
        raise
    return reader.finish()


def declared_too_large(content_length: str | None, limits: Limits) -> LimitExceeded | None:
    """A 413 error when the declared Content-Length is already over ``max_batch_bytes``."""
    try:
        check_declared_length(content_length, limits)
    except LimitExceeded as exc:
        return exc
    return None
