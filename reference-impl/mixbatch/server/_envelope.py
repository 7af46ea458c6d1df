"""The server's side of receiving a batch: stream the request body into the shared reader.

``mixbatch.envelope`` does the work (MB-PROC-1: whole envelope received and validated before
any part runs, bodies spooled); this adapter only refuses an announced oversized batch before
reading it, charges what arrives to the batch's budget ticket and moves the body's chunks into
the reader.
"""

from __future__ import annotations

from collections.abc import Collection

from mixbatch.codec import Limits
from mixbatch.envelope import Envelope, EnvelopeReader, Part, check_declared_length

from ._budget import Ticket
from ._messages import Request

__all__ = ["Envelope", "PartSpec", "receive"]

#: The server's name for a validated part waiting to run.
PartSpec = Part


async def receive(
    request: Request,
    boundary: str,
    *,
    limits: Limits,
    spool_threshold: int,
    batch_paths: Collection[str],
    ticket: Ticket | None = None,
) -> Envelope:
    """Read and validate the whole batch; raises ``MixbatchError`` (nothing has run), or
    ``BudgetExhausted`` when a chunked batch outgrows what ``ticket`` may charge."""
    check_declared_length(request.body.length, limits)
    reader = EnvelopeReader(
        boundary,
        base=request.path,
        scheme=request.scheme,
        authority=request.authority,
        batch_paths=batch_paths,
        limits=limits,
        spool_threshold=spool_threshold,
    )
    received = 0
    try:
        async for chunk in request.body.stream():
            received += len(chunk)
            if ticket is not None:
                ticket.charge(received)
            reader.feed(chunk)
    except BaseException:
        reader.abandon()
        raise
    return reader.finish()
