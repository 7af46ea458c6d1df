"""The 200 multipart/mixed answer to one batch: its parts run in order and written.

A plain batch streams: the response head goes first, then each part the moment it is answered
(MB-PROC-4), with ``Prefer: batch-on-error=stop`` skipping the parts after the first failure
(MB-PROC-6) and a batch past ``batch_timeout`` ending with an abort part (MB-STATUS-6,
MB-SEC-1). An atomic batch (``_atomic``, spec §7.5) runs every part inside the application's
transaction first and writes the parts once it committed or rolled back, so nothing is sent
before the commit (MB-PROC-16).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any, Protocol

from mixbatch import references
from mixbatch._http.negotiation import batch_on_error
from mixbatch.codec import PROBLEM_TYPE_BASE, BatchWriter, LocalProtocolError

from . import _atomic
from ._atomic import Answer, TransactionHook
from ._envelope import Part
from ._part_run import Batch, PartEndpoint, answer_part, inherited_fields
from ._replies import PROBLEM_MEDIA_TYPE, problem_bytes
from ._types import Send

__all__ = ["BatchEndpoint", "run_atomic_batch", "run_batch"]

_log = logging.getLogger("mixbatch.asgi")

#: Parts run back to back yield to the event loop this often, so other requests get a turn.
_YIELD_EVERY = 32


class BatchEndpoint(PartEndpoint, Protocol):
    """What answering a batch reads of the batch endpoint (``BatchMiddleware`` has it all)."""

    @property
    def profiles(self) -> tuple[str, ...]: ...
    @property
    def batch_timeout(self) -> float: ...
    @property
    def transaction(self) -> TransactionHook | None: ...


async def run_batch(endpoint: BatchEndpoint, batch: Batch, send: Send) -> None:
    """Stream the answer of a batch that is not atomic, each part as soon as it is answered."""
    headers, envelope = batch.headers, batch.envelope
    preference = batch_on_error(headers.get_all("Prefer"))
    if "error-policy" not in endpoint.profiles and preference == "stop":
        preference = None  # a preference the endpoint does not honour is ignored (RFC 7240)
    writer = BatchWriter()
    await send(_start(writer, preference))
    deadline = asyncio.get_running_loop().time() + endpoint.batch_timeout
    inherited = inherited_fields(endpoint, headers)
    answers: list[Answer] = []
    stopped = False
    for part in envelope.parts:
        if stopped:
            # MB-RESP-5: a part that never ran carries Batch-Outcome: skipped, no status.
            answer = Answer(None, outcome="skipped", target=part.target)
        else:
            try:
                async with asyncio.timeout_at(deadline):
                    answer = await answer_part(endpoint, batch, inherited, part, answers)
            except TimeoutError:
                chunk = _abort(writer, part, endpoint.batch_timeout)
                await _send_body(send, chunk)
                break
            # MB-PROC-6: with batch-on-error=stop, every part after the first failure
            # skips. MB-PROC-20: a part skipped for its reference "did not fail".
            stopped = preference == "stop" and (answer.status or 0) >= 400
        if references.MODE in batch.modes:
            answers.append(answer)
        chunk = _write(writer, part, answer)
        await _send_body(send, chunk)
        if part.index % _YIELD_EVERY == _YIELD_EVERY - 1:
            await asyncio.sleep(0)
    await send({"type": "http.response.body", "body": writer.close(), "more_body": False})


async def run_atomic_batch(endpoint: BatchEndpoint, batch: Batch, send: Send) -> None:
    """Run an atomic batch inside the application's transaction, then write every part."""
    assert endpoint.transaction is not None
    # §7.5: "An atomic batch implies the stop policy; a server names batch-on-error=stop in
    # Preference-Applied only when the client asked for it."
    asked = batch_on_error(batch.headers.get_all("Prefer"))
    preference = "stop" if asked == "stop" and "error-policy" in endpoint.profiles else None
    deadline = asyncio.get_running_loop().time() + endpoint.batch_timeout
    inherited = inherited_fields(endpoint, batch.headers)

    async def run(part: Part, earlier: Sequence[Answer]) -> Answer:
        return await answer_part(endpoint, batch, inherited, part, earlier)

    outcome = await _atomic.run_atomic(batch.envelope.parts, endpoint.transaction, run, deadline)
    writer = BatchWriter()
    await send(_start(writer, preference))
    chunks = []
    for part in batch.envelope.parts:
        answer = _atomic.marked(outcome, part.index)
        if answer is None:
            chunks.append(
                _abort(
                    writer, part, endpoint.batch_timeout, outcome.abort_status, outcome.abort_detail
                )
            )
            break
        chunks.append(_write(writer, part, answer))
    chunks.append(writer.close())
    await send({"type": "http.response.body", "body": b"".join(chunks), "more_body": False})


def _start(writer: BatchWriter, preference: str | None) -> dict[str, Any]:
    start = [
        ("Content-Type", writer.content_type),
        ("Vary", "Accept"),
        # MB-INTER-4: "A sender SHOULD include Cache-Control: no-transform".
        ("Cache-Control", "no-transform"),
    ]
    if preference is not None:
        start.append(("Preference-Applied", f"batch-on-error={preference}"))
    return {
        "type": "http.response.start",
        "status": 200,
        "headers": [(k.lower().encode(), v.encode("latin-1")) for k, v in start],
    }


def _write(writer: BatchWriter, part: Part, answer: Answer) -> bytes:
    try:
        return writer.response_part(
            answer.status, part.content_id, answer.headers, answer.body, answer.outcome
        )
    except LocalProtocolError as exc:
        # A sub-response the writer refuses (a header value it cannot carry, say) is that
        # part's 500, never the batch's (MB-STATUS-5).
        _log.error("part %d cannot be written: %s", part.index, exc)
        document = exc.to_problem() | {"status": 500}
        return writer.response_part(
            500,
            part.content_id,
            [("Content-Type", PROBLEM_MEDIA_TYPE)],
            problem_bytes(document),
            "rolled-back" if answer.outcome == "rolled-back" else None,
        )


def _abort(
    writer: BatchWriter,
    part: Part,
    batch_timeout: float,
    status: int = 503,
    detail: str | None = None,
) -> bytes:
    # MB-STATUS-6: a final part "with Batch-Outcome: aborted, Content-Type:
    # application/problem+json and a problem document naming in part_index the first part
    # it does not answer, and then the close delimiter".
    document: dict[str, Any] = {
        "type": PROBLEM_TYPE_BASE + "batch-aborted",
        "title": "Batch aborted",
        "status": status,
        "detail": detail or f"the batch ran past its time limit of {batch_timeout:g} s",
        "requirement": "MB-STATUS-6",
        "part_index": part.index,
    }
    return writer.response_part(
        None,
        None,
        [("Content-Type", PROBLEM_MEDIA_TYPE)],
        problem_bytes(document),
        outcome="aborted",
    )


async def _send_body(send: Send, chunk: bytes) -> None:
    await send({"type": "http.response.body", "body": chunk, "more_body": True})
