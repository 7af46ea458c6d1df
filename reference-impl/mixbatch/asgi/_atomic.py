"""Atomic batches (spec §7.5) over the application's own transactions.

The middleware cannot undo what an application did; the application can. So it hands the
middleware a *transaction hook*: a callable returning an async context manager that commits
when its block ends normally and rolls back when the block raises. An atomic batch runs every
part inside one ``async with transaction():``. The hook decides how the application's handlers
join the transaction: typically it opens a database transaction and puts the connection (or
session) in a ``contextvars.ContextVar`` that the handlers read. The parts run in the task
that entered the block, so every handler sees the variable the hook set.

    results = []
    async with transaction():            # the app's BEGIN
        for part in parts:               # each through the whole app (MB-SUB-1)
            results.append(await run(part))
            if it failed:                # status 400 or above, or an unresolved reference
                raise _Failed            # the app's ROLLBACK
    # leaving the block normally is the app's COMMIT

The parts are written only once the outcome is known (§7.3: the outcome decides every part),
so nothing is sent before the commit (MB-PROC-16) and each part can be marked as MB-PROC-8,
MB-PROC-14 and MB-PROC-21 require. What other requests see while the block is open
(MB-PROC-15) is the hook's isolation, which is why the ``atomic`` profile is offered only when
the application supplies one.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field

from mixbatch.envelope import Part

__all__ = ["MODE", "Answer", "AtomicRun", "TransactionHook", "marked", "run_atomic"]

_log = logging.getLogger("mixbatch.asgi")

#: The Batch-Mode token of the atomic profile.
MODE = "atomic"

TransactionHook = Callable[[], AbstractAsyncContextManager[object]]
"""Returns the context manager of one transaction: commit on a normal exit, roll back on an
exception (which it lets propagate)."""


@dataclass(slots=True)
class Answer:
    """One part's answer before it is written: a sub-response (``status`` set) or a part that
    did not run (``outcome`` ``"skipped"``, ``status`` None)."""

    status: int | None
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    outcome: str | None = None
    #: The target the part ran on, after any reference was substituted (§7.7).
    target: str = "/"

    @property
    def failed(self) -> bool:
        """Ends an atomic batch uncommitted: a status of 400 or above (MB-PROC-8), or a part
        skipped for a reference that names nothing (MB-PROC-21)."""
        return self.outcome == "skipped" or (self.status or 0) >= 400


@dataclass(slots=True)
class AtomicRun:
    """How an atomic batch ended: the answers of the parts that ran, and the outcome."""

    answers: list[Answer]
    committed: bool = False
    #: A part that failed ended the batch; it is the last of ``answers``.
    failed: bool = False
    #: Stopped before committing (MB-PROC-14): the abort part's index and status.
    aborted_at: int | None = None
    abort_status: int = 500
    abort_detail: str = ""


class _Failed(Exception):
    """Raised inside the transaction block so that the application's hook rolls back."""


async def run_atomic(
    parts: Sequence[Part],
    transaction: TransactionHook,
    run: Callable[[Part, Sequence[Answer]], Awaitable[Answer]],
    deadline: float,
) -> AtomicRun:
    """Run every part inside one transaction; never raises for a part or the hook failing."""
    outcome = AtomicRun([])
    answers = outcome.answers
    try:
        async with transaction():
            # The time limit is inside the block, so that the commit is never cut off halfway
            # and a timeout reaches the hook as an exception: it rolls back.
            async with asyncio.timeout_at(deadline):
                for part in parts:
                    answer = await run(part, answers)
                    answers.append(answer)
                    if answer.failed:
                        outcome.failed = True
                        raise _Failed
    except _Failed:
        pass
    except TimeoutError:
        # MB-STATUS-14: 503 when the server stops "out of its time budget".
        _stopped(outcome, len(parts), 503, "the batch ran past its time limit")
    except Exception as exc:
        # The hook failed to begin, to commit or to roll back: nothing is known to have
        # committed, and the batch machinery failed (MB-STATUS-14: 500).
        _log.exception("the transaction of an atomic batch failed")
        _stopped(outcome, len(parts), 500, f"the application's transaction failed ({exc!r})")
    else:
        # MB-PROC-16: committed "before it sends the first response part"; no part has been
        # sent yet.
        outcome.committed = not outcome.failed
    return outcome


def _stopped(outcome: AtomicRun, count: int, status: int, detail: str) -> None:
    if outcome.failed:
        # The failing part's own answer stands: the hook was rolling back already.
        return
    # MB-PROC-14: "end the response with the abort part ... naming the first part that did not
    # run". When every part ran and the commit itself failed, the last part goes unanswered
    # instead (MB-STATUS-6 allows an abort at the part that was running).
    outcome.aborted_at = min(len(outcome.answers), count - 1)
    outcome.abort_status = status
    outcome.abort_detail = detail
    del outcome.answers[outcome.aborted_at :]


def marked(outcome: AtomicRun, index: int) -> Answer | None:
    """Part ``index``'s answer as written, or None where the abort part goes instead."""
    answers = outcome.answers
    if outcome.aborted_at is not None and index >= outcome.aborted_at:
        return None
    if index < len(answers):
        answer = answers[index]
        failing = outcome.failed and index == len(answers) - 1
        if not outcome.committed and not failing:
            # MB-PROC-8: "mark each part before the failing one Batch-Outcome: rolled-back
            # with its real status"; MB-PROC-14 and MB-PROC-21 likewise.
            answer.outcome = "rolled-back"
        return answer
    # MB-PROC-8: "answer every later part Batch-Outcome: skipped".
    return Answer(None, outcome="skipped")
