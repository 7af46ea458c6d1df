"""Running one validated batch against the origin and streaming its answer in order.

Theory of operation. The envelope's parts are cut into runs: a run is either one unsafe part
or a maximal stretch of consecutive safe parts (GET, HEAD, OPTIONS). Runs execute one after
another, so the origin sees the effect of a sequential batch (MB-PROC-2 through MB-PROXY-1);
inside a safe run the parts go out as pipelines of at most ``max_pipeline_depth`` requests,
several pipelines at once up to the pool's connection bound (MB-PROC-3: "consecutive safe
sub-requests concurrently, returning their responses in order").

Every part owns a future. The scheduler task resolves it with the origin's response, a
``UpstreamError`` (502/504, MB-PROXY-2) or ``SKIPPED``; the response stream awaits the futures in
part order and writes each part the moment it and all earlier ones are ready (MB-PROC-4). A
semaphore of ``run_ahead`` permits keeps the scheduler at most that many parts ahead of the
writer, so a slow client bounds the proxy's memory rather than growing it. If the scheduler
dies, the writer ends the batch with a ``Batch-Outcome: aborted`` part and the close delimiter
(MB-STATUS-6); if the client goes away, the scheduler is cancelled.

With ``Prefer: batch-on-error=stop`` nothing runs ahead: parts go one at a time, so a part after
the first failure is reported ``skipped`` only when it truly never reached the origin (MB-RESP-5).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from enum import Enum

from mixbatch._constants import INHERITED_FIELDS
from mixbatch._http import Response
from mixbatch.codec import BatchWriter, Fields, LocalProtocolError

from ._config import ProxyConfig
from ._documents import PROBLEM_MEDIA_TYPE, problem_body, problem_document
from ._envelope import Envelope, PartSpec
from ._headers import PART_CONTROL_FIELDS, VIA_VALUE, end_to_end
from ._upstream import (
    Outcome,
    UpstreamError,
    UpstreamPool,
    UpstreamRequest,
    UpstreamResponse,
    exchange,
    pipeline,
)

__all__ = ["INHERITED_FIELDS", "SAFE_METHODS", "BatchRun", "Summary", "plan_runs"]

_log = logging.getLogger("mixbatch.proxy")

#: RFC 9110 §9.2.1 safe methods: the only ones the proxy pipelines or runs concurrently.
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
#: Methods whose requests carry content by definition; they get Content-Length even when empty.
_CONTENT_METHODS = frozenset({"POST", "PUT", "PATCH"})


class _Marker(Enum):
    SKIPPED = "skipped"
    ABORTED = "aborted"


SKIPPED = _Marker.SKIPPED
ABORTED = _Marker.ABORTED
PartOutcome = Outcome | _Marker


def plan_runs(parts: Sequence[PartSpec], *, sequential: bool) -> list[list[PartSpec]]:
    """Consecutive safe parts grouped in one run, every other part alone (all alone if
    ``sequential``)."""
    runs: list[list[PartSpec]] = []
    for part in parts:
        safe = not sequential and part.method in SAFE_METHODS
        if safe and runs and runs[-1][0].method in SAFE_METHODS:
            runs[-1].append(part)
        else:
            runs.append([part])
    return runs


@dataclass(slots=True)
class Summary:
    """Counts by outcome, as in the Batch-Summary trailer (MB-STATUS-8)."""

    ok: int = 0
    failed: int = 0
    skipped: int = 0

    def add(self, outcome: PartOutcome, status: int | None) -> None:
        if outcome is SKIPPED:
            self.skipped += 1
        elif status is not None and status >= 400:
            self.failed += 1
        else:
            self.ok += 1

    def as_field(self) -> str:
        return f"ok={self.ok}, failed={self.failed}, skipped={self.skipped}"


class BatchRun:
    """One batch in flight: its scheduler task and the in-order stream of its parts."""

    def __init__(
        self,
        pool: UpstreamPool,
        config: ProxyConfig,
        envelope: Envelope,
        batch_fields: Fields,
        *,
        stop_on_error: bool,
    ) -> None:
        self._pool = pool
        self._config = config
        self._envelope = envelope
        self._batch_fields = batch_fields
        self._stop_on_error = stop_on_error
        loop = asyncio.get_running_loop()
        self._futures: list[asyncio.Future[PartOutcome]] = [
            loop.create_future() for _ in envelope.parts
        ]
        self._window = asyncio.Semaphore(max(config.run_ahead, config.max_pipeline_depth))
        self.writer = BatchWriter()
        self.summary = Summary()

    # -- forwarding -------------------------------------------------------------------------

    def upstream_request(self, part: PartSpec) -> UpstreamRequest:
        """The standalone request for ``part`` (MB-PART-8, MB-PROXY-4, MB-SUB-5/6)."""
        fields = end_to_end(part.fields)
        for name in INHERITED_FIELDS:
            if part.fields.get(name) is None:
                fields.extend((name, value) for value in self._batch_fields.get_all(name))
        body = self._envelope.body(part)
        headers = [("Host", self._config.upstream.authority), *fields, ("Via", VIA_VALUE)]
        # MB-PROXY-4: "a Content-Length equal to the part body's length when the part has
        # content".
        if body or part.method in _CONTENT_METHODS:
            headers.append(("Content-Length", str(len(body))))
        return UpstreamRequest(part.method, part.target, headers, body)

    def _deliver(self, index: int, outcome: PartOutcome) -> None:
        future = self._futures[index]
        if not future.done():
            future.set_result(outcome)

    async def _run_safe(self, run: list[PartSpec]) -> None:
        depth = self._config.max_pipeline_depth
        tasks: list[asyncio.Task[None]] = []
        try:
            for start in range(0, len(run), depth):
                chunk = run[start : start + depth]
                for _ in chunk:
                    await self._window.acquire()
                requests = [self.upstream_request(part) for part in chunk]
                first = chunk[0].index

                def deliver(i: int, outcome: Outcome, first: int = first) -> None:
                    self._deliver(first + i, outcome)

                tasks.append(
                    asyncio.create_task(
                        pipeline(
                            self._pool,
                            requests,
                            deliver,
                            timeout=self._config.subrequest_timeout,
                            max_body=self._config.limits.max_part_bytes,
                        ),
                        name=f"mixbatch-proxy-pipeline-{first}",
                    )
                )
            await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()

    async def _run_one(self, part: PartSpec) -> Outcome:
        await self._window.acquire()
        outcome = await exchange(
            self._pool,
            self.upstream_request(part),
            timeout=self._config.subrequest_timeout,
            max_body=self._config.limits.max_part_bytes,
        )
        self._deliver(part.index, outcome)
        return outcome

    async def schedule(self) -> None:
        """Forward every part, run after run; resolve every future, whatever happens."""
        try:
            runs = plan_runs(self._envelope.parts, sequential=self._stop_on_error)
            stopped = False
            for run in runs:
                if stopped:
                    for part in run:
                        self._deliver(part.index, SKIPPED)
                    continue
                if run[0].method in SAFE_METHODS and not self._stop_on_error:
                    await self._run_safe(run)
                    continue
                outcome = await self._run_one(run[0])
                # MB-PROC-6: with batch-on-error=stop, every part after the first with status
                # 400 or above is skipped. A 502/504 part counts as a failure too.
                status = outcome.status
                stopped = self._stop_on_error and status >= 400
        finally:
            for index in range(len(self._futures)):
                self._deliver(index, ABORTED)

    # -- writing ----------------------------------------------------------------------------

    def _failure_part(self, part: PartSpec, error: UpstreamError) -> bytes:
        # MB-PROXY-2: "report an upstream connection failure or timeout for a part as that
        # part's response with status 502 (Bad Gateway) or 504 (Gateway Timeout)".
        document = problem_document(
            error.status,
            error.slug,
            str(error),
            title=error.title,
            requirement="MB-PROXY-2",
            part_index=part.index,
        )
        return self.writer.response_part(
            error.status,
            part.content_id,
            fields=[("Content-Type", PROBLEM_MEDIA_TYPE)],
            body=problem_body(document),
        )

    def render(self, part: PartSpec, outcome: Outcome) -> bytes:
        if isinstance(outcome, UpstreamError):
            return self._failure_part(part, outcome)
        assert isinstance(outcome, UpstreamResponse)
        # MB-RESP-4: "the sub-response's header fields, less hop-by-hop and framing fields".
        fields = end_to_end(outcome.headers, drop=PART_CONTROL_FIELDS)
        try:
            return self.writer.response_part(
                outcome.status, part.content_id, fields=fields, body=outcome.body
            )
        except LocalProtocolError as exc:
            # An answer the writer cannot carry (a field value it refuses, a body holding our
            # delimiter) is the origin's fault for this part: 502, never the batch's failure.
            return self._failure_part(
                part, UpstreamError(f"the origin's response cannot be carried in a part: {exc}")
            )

    def _aborted_part(self, index: int) -> bytes:
        # MB-STATUS-6: "writes a final part with Batch-Outcome: aborted and a problem+json
        # body, then the close delimiter".
        document = problem_document(
            503,
            "batch-aborted",
            f"the proxy could not finish the batch; part {index} and every later part did "
            "not complete",
            title="Batch aborted",
            requirement="MB-STATUS-6",
            part_index=index,
        )
        return self.writer.response_part(
            None,
            None,
            fields=[("Content-Type", PROBLEM_MEDIA_TYPE)],
            body=problem_body(document),
            outcome="aborted",
        )

    async def stream(self, response: Response, trailers: bool) -> AsyncIterator[bytes]:
        """The multipart body: parts in request order, each as soon as it is ready."""
        scheduler = asyncio.create_task(self.schedule(), name="mixbatch-proxy-batch")
        written = False
        try:
            for part, future in zip(self._envelope.parts, self._futures, strict=True):
                outcome = await future
                self._window.release()
                if not isinstance(outcome, _Marker):
                    self.summary.add(outcome, outcome.status)
                    yield self.render(part, outcome)
                    continue
                if outcome is ABORTED:
                    if (
                        scheduler.done()
                        and not scheduler.cancelled()
                        and scheduler.exception() is not None
                    ):
                        _log.error("batch scheduler failed", exc_info=scheduler.exception())
                    yield self._aborted_part(part.index)
                    break
                if outcome is SKIPPED:
                    self.summary.add(outcome, None)
                    # MB-RESP-5: "A part that did not run carries Batch-Outcome: skipped and no
                    # Http-Status-Code."
                    yield self.writer.response_part(None, part.content_id, outcome="skipped")
            if trailers:
                # MB-STATUS-8: the optional trailer, only to a client that sent TE: trailers.
                response.trailers.append(("Batch-Summary", self.summary.as_field()))
            yield self.writer.close()
            written = True
        finally:
            try:
                if not written:
                    # The client went away or the stream failed: nothing more is wanted upstream.
                    scheduler.cancel()
                # Once every part is written the scheduler only hands its connections back to
                # the pool (each checked at its message boundary); cancelling it there would
                # cost them.
                await asyncio.gather(scheduler, return_exceptions=True)
            finally:
                # A second cancellation while the scheduler winds down must not keep the spool.
                self._envelope.close()

    def close(self) -> None:
        """Drop the envelope's spool, also when the stream never started."""
        self._envelope.close()
