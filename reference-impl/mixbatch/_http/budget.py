"""The server-wide budget for batches in flight (MB-LIMIT-6, MB-SEC-1).

The codec's limits bound one batch; nothing in them bounds how many a server holds at once. A
batch is held from the moment its request is admitted until its response ends (or the request
fails): its envelope is received whole before any part runs (MB-PROC-1), so a server that takes
every batch it is sent holds all of them together. ``BatchBudget`` counts two things:

    batches in flight        at most ``max_batches``
    octets of batch content  at most ``max_bytes``: the declared Content-Length when there is
                             one, charged on admission; a chunked batch is charged as it
                             arrives

A batch that does not fit is answered 503 with ``Retry-After`` before any part of it runs: on
admission when its Content-Length or the batch count says so, else while its content arrives.
A batch the server holds alone always fits: the limits of one batch bound it, and a budget
smaller than ``max_batch_bytes`` must not refuse, again and again, a batch within the limits.
MB-LIMIT-6: a server "SHOULD answer a batch request beyond that budget with 503 (Service
Unavailable) and a Retry-After field before any part of it runs"; MB-STATUS-12 allows exactly
that 5xx. What one held batch costs in memory is bounded by the envelope (``INLINE_PART_BYTES``
a part, ``SPOOL_IN_MEMORY_BYTES`` of bodies); the budget multiplies that by ``max_batches``.

The reference server, the batching proxy and the ASGI middleware each keep one budget with
these defaults and options of their own, refuse with the same ``busy_document``, and hold a
ticket until the batch's response has ended (``HeldBody``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

from mixbatch.codec import MAX_BATCH_BYTES

from .messages import Response
from .problems import from_document, problem_document

__all__ = [
    "BUSY_RETRY_AFTER",
    "MAX_BATCHES_IN_FLIGHT",
    "MAX_BATCH_BYTES_IN_FLIGHT",
    "BatchBudget",
    "BudgetExhausted",
    "HeldBody",
    "Ticket",
    "busy_document",
    "busy_response",
]

#: Batches held at once: each costs at most about 15 MiB of memory held (10,000 parts of
#: INLINE_PART_BYTES and a 1 MiB spool), so eight stay near 128 MiB.
MAX_BATCHES_IN_FLIGHT = 8
#: Octets of batch content held at once: two batches at max_batch_bytes (64 MiB), which bounds
#: the spool files and the reception work as well as the memory.
MAX_BATCH_BYTES_IN_FLIGHT = 2 * MAX_BATCH_BYTES
#: Seconds a refused client is asked to wait: about what a batch at the limits takes to run.
BUSY_RETRY_AFTER = 2


class BudgetExhausted(Exception):
    """A batch does not fit in the budget (answered 503 with Retry-After)."""

    def __init__(self, detail: str, *, limit: str, value: int) -> None:
        super().__init__(detail)
        self.detail = detail
        self.limit = limit
        self.value = value


class Ticket:
    """One admitted batch's share of the budget, until ``release``."""

    __slots__ = ("_budget", "_held", "_released")

    def __init__(self, budget: BatchBudget, held: int) -> None:
        self._budget = budget
        self._held = held
        self._released = False

    @property
    def held(self) -> int:
        """Octets charged so far."""
        return self._held

    def charge(self, received: int) -> None:
        """Charge up to ``received`` octets of content in all; raises ``BudgetExhausted``."""
        extra = received - self._held
        if extra > 0:
            self._budget._take(extra, alone=self._budget.batches == 1)
            self._held = received

    def release(self) -> None:
        """Give the batch's share back; a second call does nothing."""
        if not self._released:
            self._released = True
            self._budget._give(self._held)


class BatchBudget:
    """Counts the batches one server holds and the octets of their content."""

    def __init__(
        self,
        max_batches: int = MAX_BATCHES_IN_FLIGHT,
        max_bytes: int = MAX_BATCH_BYTES_IN_FLIGHT,
    ) -> None:
        if max_batches < 1 or max_bytes < 1:
            raise ValueError(f"a batch budget must be positive, got {max_batches}, {max_bytes}")
        self.max_batches = max_batches
        self.max_bytes = max_bytes
        self.batches = 0
        self.bytes = 0

    def admit(self, declared: int | None) -> Ticket:
        """A ticket for a batch of ``declared`` octets (None: chunked, charged as it arrives);
        raises ``BudgetExhausted`` when it does not fit."""
        if self.batches >= self.max_batches:
            raise BudgetExhausted(
                f"the server holds {self.batches} batches, its limit",
                limit="max_batches_in_flight",
                value=self.max_batches,
            )
        cost = declared or 0
        self._take(cost, alone=self.batches == 0)
        self.batches += 1
        return Ticket(self, cost)

    def _take(self, octets: int, *, alone: bool) -> None:
        if not alone and self.bytes + octets > self.max_bytes:
            raise BudgetExhausted(
                f"{octets} more octets of batch content would put the server over the "
                f"{self.max_bytes} it holds at once ({self.bytes} held)",
                limit="max_batch_bytes_in_flight",
                value=self.max_bytes,
            )
        self.bytes += octets

    def _give(self, octets: int) -> None:
        self.bytes -= octets
        self.batches -= 1


def busy_document(exc: BudgetExhausted, retry_after: int) -> dict[str, Any]:
    """The 503 problem document for a batch the budget refused."""
    # MB-LIMIT-6: a batch beyond the budget is answered "with 503 (Service Unavailable) and
    # a Retry-After field before any part of it runs" -- the 5xx MB-STATUS-12 allows.
    return problem_document(
        503,
        "server-busy",
        f"{exc.detail}; nothing in this batch ran, send it again in {retry_after} s",
        requirement="MB-LIMIT-6",
        # Not "limit": that member names a limit of one batch, answered 413 or 431.
        budget=exc.limit,
        budget_value=exc.value,
    )


def busy_response(exc: BudgetExhausted, retry_after: int) -> Response:
    """``busy_document`` as a response, with its Retry-After field."""
    return from_document(
        busy_document(exc, retry_after), headers=[("Retry-After", str(retry_after))]
    )


class HeldBody:
    """A streaming response body that holds what its batch holds (a budget ticket, an
    envelope's spool) until it ends or is closed, even when closed before it started, when a
    generator's own ``finally`` would never run."""

    __slots__ = ("_releases", "_stream")

    def __init__(self, stream: AsyncIterator[bytes], *releases: Callable[[], None]) -> None:
        self._stream = stream
        self._releases = releases

    def __aiter__(self) -> HeldBody:
        return self

    async def __anext__(self) -> bytes:
        try:
            return await self._stream.__anext__()
        except BaseException:
            self._release()
            raise

    async def aclose(self) -> None:
        try:
            aclose = getattr(self._stream, "aclose", None)
            if aclose is not None:
                await aclose()
        finally:
            self._release()

    def _release(self) -> None:
        releases, self._releases = self._releases, ()
        for release in releases:
            release()
