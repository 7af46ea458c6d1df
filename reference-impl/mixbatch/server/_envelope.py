"""The server's side of receiving a batch: stream the request body into the shared reader.

``mixbatch.envelope`` does the work (MB-PROC-1: whole envelope received and validated before
any part runs, bodies spooled); this adapter only refuses an announced oversized batch before
reading it, charges what arrives to the batch's budget ticket and moves the body's chunks into
the reader, yielding to the event loop between slices of that work.
"""

from __future__ import annotations

from collections.abc import Collection

from mixbatch._http.budget import Ticket
from mixbatch._http.messages import Request
from mixbatch.codec import Limits
from mixbatch.envelope import Envelope, EnvelopeReader, Part, check_declared_length

from ._turns import Clock, Turns

__all__ = ["FEED_BYTES", "Envelope", "PartSpec", "receive"]

#: A read of up to 256 KiB is validated in pieces of this size, so that dense header sections
#: (thousands of parts in one read) cannot hold the event loop for one whole read.
FEED_BYTES = 16 * 1024

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
    clock: Clock | None = None,
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
    # Validation yields to the event loop between slices, as running does (_turns).
    clock = clock or Turns().clock()
    try:
        async for chunk in request.body.stream():
            received += len(chunk)
            if ticket is not None:
                ticket.charge(received)
            view = memoryview(chunk)
            for start in range(0, len(view), FEED_BYTES):
                reader.feed(view[start : start + FEED_BYTES])
                if clock.due():
                    await clock.pass_turn()
    except BaseException:
        reader.abandon()
        raise
    return reader.finish()
