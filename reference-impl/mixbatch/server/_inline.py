"""Running a part at once, in the batch's own turn of the event loop, with no task unless it waits.

Most parts of a batch never wait: routing a GET of an in-memory resource and building its answer
is plain computation. A task per part, even an eager one (``eager_start=True``), costs about as
much as routing the part. ``start`` instead steps the part's coroutine once, in a copy of the
current context as a task would run it, and when the coroutine finishes in that step returns its
result with no task at all. When it waits, a task carries it on from that wait: the task's
coroutine (``_carry_on``) hands the task the very future the part is waiting for, then drives
the part's coroutine on, passing each result and exception (cancellation included) through. So
a part that waits behaves as it did inside its own task, and the caller waits for, cancels and
reads that task as before.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Coroutine, Generator
from typing import Any, Literal

__all__ = ["Started", "start"]

type Started[T] = tuple[Literal[True], T] | tuple[Literal[False], asyncio.Task[T]]


def start[T](coro: Coroutine[Any, Any, T], loop: asyncio.AbstractEventLoop) -> Started[T]:
    """``(True, result)`` when ``coro`` finished without waiting, else ``(False, task)``, a task
    (in the same context) that carries it on from its first wait. An exception ``coro`` raises
    before it waits propagates from here."""
    context = contextvars.copy_context()
    try:
        waiting = context.run(coro.send, None)
    except StopIteration as done:
        return True, done.value
    return False, asyncio.Task(_carry_on(coro, waiting), loop=loop, context=context)


class _Waiting:
    """Awaiting it yields, to the task that runs ``_carry_on``, what the part's coroutine yielded:
    the future it waits for (or None, a bare yield), so the task waits for that future."""

    __slots__ = ("_waiting",)

    def __init__(self, waiting: object) -> None:
        self._waiting = waiting

    def __await__(self) -> Generator[Any, None, None]:
        yield self._waiting


async def _carry_on[T](coro: Coroutine[Any, Any, T], waiting: object) -> T:
    while True:
        try:
            await _Waiting(waiting)
        except BaseException as exc:  # cancellation too: the part sees it at its own await
            try:
                waiting = coro.throw(exc)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]
        else:
            try:
                waiting = coro.send(None)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]
