"""Turns on the event loop for the batches in flight, so that large batches cannot starve small
requests (MB-SEC-1: a server bounds the work of one batch).

Theory of operation
-------------------
Receiving and running a batch is CPU work on the one event loop the server has. Each batch works
in slices and yields to the loop between them (``Clock.due`` / ``Clock.pass_turn``). Yielding
alone is not enough: with k large batches in flight, every turn of the loop runs k slices before a
small request gets its next step, and a small batch needs several steps (read, parse, run, write),
so its latency grows with k.

So a batch that has used more than ``LIGHT_WORK`` of loop time is *heavy*, and heavy batches take
their slices through one queue: ``Turns`` wakes one heavy batch per turn of the loop, from a
callback it schedules with ``call_soon``. Whatever else is ready in that turn (a standalone GET,
a small batch, a write) runs beside at most one heavy slice of ``HEAVY_SLICE``, however many
heavy batches are in flight; the heavy batches still share the loop fairly among themselves,
first come, first served. Nothing is held across an await: a heavy batch that waits for the
network simply is not in the queue, so a slow client cannot stall the others.

A light batch (most batches) never touches the queue: it yields with ``sleep(0)`` after a slice
of ``SLICE``, as before.
"""

from __future__ import annotations

import asyncio
from collections import deque

__all__ = ["HEAVY_SLICE", "LIGHT_WORK", "SLICE", "UNCONTENDED", "Clock", "Turns"]

#: Loop time after which a batch yields; a light batch's slice.
SLICE = 0.001
#: Loop time a batch may use before it counts as heavy: a 10-part batch never gets there.
LIGHT_WORK = 0.005
#: A heavy batch's slice while anything else wants the loop: one of them runs per turn of the
#: loop, beside everything else ready.
HEAVY_SLICE = 0.0001
#: A heavy batch that got its turn back within this long had the loop to itself: nothing else was
#: ready. Its slices then double (up to SLICE), so a lone large batch pays for few turns.
UNCONTENDED = 0.00005


class Turns:
    """The queue heavy batches take their slices from; one per server."""

    def __init__(self) -> None:
        self._waiting: deque[asyncio.Future[None]] = deque()
        self._granting = False

    def clock(self) -> Clock:
        """A fresh clock for one batch, started now."""
        return Clock(self, asyncio.get_running_loop())

    async def turn(self, loop: asyncio.AbstractEventLoop) -> None:
        """Wait until this batch may run its next heavy slice."""
        waiter: asyncio.Future[None] = loop.create_future()
        self._waiting.append(waiter)
        if not self._granting:
            self._granting = True
            loop.call_soon(self._grant, loop)
        await waiter

    def _grant(self, loop: asyncio.AbstractEventLoop) -> None:
        # One waiter per turn of the loop: the woken batch runs in the next turn, and this
        # callback, scheduled after it, wakes the next one then.
        while self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done():  # a cancelled batch left its future behind
                waiter.set_result(None)
                break
        if self._waiting:
            loop.call_soon(self._grant, loop)
        else:
            self._granting = False


class Clock:
    """One batch's use of the loop: when to yield, and how."""

    def __init__(self, turns: Turns, loop: asyncio.AbstractEventLoop) -> None:
        self._turns = turns
        self._loop = loop
        self._started = loop.time()
        self._used = 0.0
        self._slice = SLICE
        self._slice_end = self._started + SLICE

    @property
    def heavy(self) -> bool:
        return self._used >= LIGHT_WORK

    def due(self) -> bool:
        """True when the current slice is spent and the batch should ``pass_turn``."""
        return self._loop.time() >= self._slice_end

    async def pass_turn(self) -> None:
        """Yield to the loop: a light batch for one turn, a heavy one until its turn comes."""
        yielded = self._loop.time()
        self._used += yielded - self._started
        if not self.heavy:
            await asyncio.sleep(0)
            self._started = self._loop.time()
            self._slice_end = self._started + SLICE
            return
        await self._turns.turn(self._loop)
        self._started = self._loop.time()
        alone = self._started - yielded < UNCONTENDED
        self._slice = min(self._slice * 2, SLICE) if alone else HEAVY_SLICE
        self._slice_end = self._started + self._slice
