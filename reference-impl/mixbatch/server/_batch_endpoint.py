"""The batch endpoint: ``POST /batch`` runs a multipart/mixed batch, ``OPTIONS`` describes it.

Order of decisions for a POST, every refusal a problem+json before anything runs:

    1. Batch-Mode lists a mode not offered -> 501 (MB-PROC-7, MB-PROC-12, MB-PROC-17); the
       modes offered are ``atomic`` (with a store) and ``references``
    2. Content-Type not a batch      -> 415 + Accept-Post (MB-WIRE-2), bad boundary 400 (MB-WIRE-4)
    3. Accept admits no representation -> 406 (MB-STATUS-9)
    4. Content-Length over max_batch_bytes -> 413 (MB-STATUS-3)
    5. no room in the server's batch budget -> 503 + Retry-After (MB-LIMIT-6; a chunked batch
       may also meet it while its content arrives)
    6. whole envelope received and validated (``_envelope.receive``) -> 400 / 413 / 431
    7. 200 (multipart) or 207 (XML, JSON) begins; parts run one at a time, in order, each
       through the same router as a standalone request (thesis ch. 5.2, MB-SUB-1), and each
       result is written the moment it is ready (MB-PROC-4).

Parts run strictly in sequence (MB-PROC-2); MB-PROC-3 would allow running consecutive safe parts
concurrently, which this reference server does not do, keeping its behaviour easy to reason about.
The error policy comes from ``Prefer: batch-on-error`` (MB-PROC-5/6). A whole-batch timeout that
fires after the response began ends it with a ``Batch-Outcome: aborted`` part and the close
delimiter (MB-STATUS-6). The client's ``Authorization`` and ``Cookie`` fields are inherited by
parts without their own (MB-SUB-5); nothing else is (MB-SUB-6).

``Batch-Mode: atomic`` (§7.5) runs every part inside one store transaction (``_store``) and
writes the parts only once the batch committed or was rolled back (``_atomic``).
``Batch-Mode: references`` (§7.7) substitutes each part's ``$(N)`` references from the results
before it (``mixbatch.references``) and skips a part whose reference names nothing.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Mapping
from typing import Any

from mixbatch import references
from mixbatch._constants import INHERITED_FIELDS
from mixbatch._http.budget import BatchBudget, BudgetExhausted, HeldBody, busy_response
from mixbatch._http.content_coding import refuse_content_coding
from mixbatch._http.messages import BytesBody, Request, Response, SpooledBody, end_to_end
from mixbatch._http.negotiation import accept_of, batch_modes, batch_on_error, choose
from mixbatch._http.problems import PROBLEM_MEDIA_TYPE, from_error, problem, problem_body
from mixbatch._http.refusals import refuse_get_with_content
from mixbatch.codec import (
    PART_CONTROL_FIELDS,
    PROBLEM_TYPE_BASE,
    BatchWriter,
    Fields,
    LocalProtocolError,
    MixbatchError,
    parse_batch_content_type,
)
from mixbatch.envelope import check_declared_length

from . import _collector, _envelope, _inline
from ._capabilities import REPRESENTATIONS, SPEC_VERSION, capabilities_response
from ._config import ServerConfig
from ._envelope import Envelope, PartSpec
from ._multistatus import JSON_MEDIA_TYPE, XML_MEDIA_TYPE, JsonRenderer, XmlRenderer
from ._results import MultipartRenderer, PartResult, Renderer, Summary
from ._router import Route
from ._store import Store, StoreBusy, bound
from ._turns import Clock, Turns

__all__ = [
    "INHERITED_FIELDS",
    "BatchEndpoint",
    "SubRequestRunner",
]

_log = logging.getLogger("mixbatch.server")

#: Seconds rendered parts may wait before they go to the connection: finished parts reach the
#: client this promptly (MB-PROC-4) without one write per turn of the loop. Checked at the end
#: of each slice, when the connection gets to write anyway.
FLUSH_EVERY = 0.001
#: Rendered parts are handed to the connection once this many octets are waiting, so large
#: parts are not held in memory together (the connection writes at 64 KiB too).
_READY_MAX_BYTES = 64 * 1024

#: Distinct field sections whose end-to-end form is remembered; see ``_end_to_end``.
END_TO_END_CACHE_SIZE = 256

#: No field dropped: a part's own fields are all end-to-end already (the codec refused others).
_KEEP_ALL: frozenset[str] = frozenset()
#: The body of every part without content: it holds nothing, so one serves them all.
_NO_CONTENT = BytesBody()

SubRequestRunner = Callable[[Request, int], Response | Coroutine[Any, Any, Response]]
"""Runs one sub-request (with its part index, for logging) through the application router: its
response when the handler never waited, else a coroutine that finishes it."""


@functools.lru_cache(maxsize=END_TO_END_CACHE_SIZE)
def _end_to_end(fields: Fields | tuple[tuple[str, str], ...], drop: frozenset[str]) -> Fields:
    """``end_to_end(fields, drop=drop)``, remembered per distinct field section.

    Each part needs it twice (its request fields, its response's fields), and the parts of a
    batch mostly repeat the same few sections; ``Fields`` is immutable, so one can be shared.
    """
    return end_to_end(fields, drop=drop)


class BatchEndpoint:
    """The ``POST`` and ``OPTIONS`` handlers of one batch endpoint."""

    def __init__(
        self, run: SubRequestRunner, config: ServerConfig, store: Store | None = None
    ) -> None:
        self._run = run
        self._config = config
        self._store = store
        #: The Batch-Mode values offered: atomic needs a store to hold its transaction.
        self.modes = frozenset({references.MODE, *(("atomic",) if store is not None else ())})
        self.budget = BatchBudget(config.max_batches_in_flight, config.max_batch_bytes_in_flight)
        #: Batches share the event loop in slices; heavy ones one slice per turn (_turns).
        self.turns = Turns()
        self.path = config.batch_path
        self.route = Route(
            self.path,
            {"POST": self.post, "OPTIONS": self.options},
            on_unlisted=self.refuse,
            batch=True,
        )

    async def refuse(self, request: Request, params: Mapping[str, str]) -> Response:
        """Every other method: 405 with Allow (MB-METHOD-2), or 400 for a GET with content."""
        refused = refuse_get_with_content(request)
        if refused is not None:
            return refused
        # MB-METHOD-2: "A server answers other methods on the batch endpoint with 405 and an
        # Allow field."
        return problem(
            405,
            "method-not-allowed",
            f"{request.method} is not allowed on the batch endpoint; use POST",
            requirement="MB-METHOD-2",
            headers=[("Allow", self.route.allow())],
        )

    async def options(self, request: Request, params: Mapping[str, str]) -> Response:
        # MB-LIMIT-2: "OPTIONS on the batch endpoint returns the capabilities document and
        # Accept-Post: multipart/mixed".
        return capabilities_response(
            self._config.limits,
            self.path,
            self.route.allow(),
            batches_in_flight=self.budget.max_batches,
        )

    async def post(self, request: Request, params: Mapping[str, str]) -> Response:
        deadline = asyncio.get_running_loop().time() + self._config.batch_timeout
        listed = request.headers.get_all("Batch-Mode")
        # MB-PROC-17: "read Batch-Mode as a comma-separated list of modes" (case-sensitive).
        modes = batch_modes(listed)
        unknown = sorted(modes - self.modes)
        if unknown:
            # MB-PROC-7: "A server that does not offer the atomic profile answers Batch-Mode:
            # atomic with 501 before any part runs."
            return problem(
                501,
                "batch-mode-unsupported",
                f"Batch-Mode {', '.join(listed)!r} lists {unknown!r}, which this server does "
                f"not offer (it offers {', '.join(sorted(self.modes))})",
                # MB-PROC-12: any other Batch-Mode value the server does not implement, likewise.
                requirement="MB-PROC-7" if "atomic" in unknown else "MB-PROC-12",
            )
        try:
            boundary = parse_batch_content_type(request.headers.get("Content-Type"))
        except MixbatchError as exc:
            extra = [("Accept-Post", "multipart/mixed")] if exc.status_hint == 415 else []
            return from_error(exc, headers=extra)
        refused = refuse_content_coding(request.headers.get_all("Content-Encoding"))
        if refused is not None:
            return refused
        chosen = choose(accept_of(request.headers), REPRESENTATIONS)
        if chosen is None:
            # MB-STATUS-9: "A server answers 406 when Accept admits none of the batch
            # representations it offers."
            return problem(
                406,
                "not-acceptable",
                f"Accept admits none of {', '.join(REPRESENTATIONS)}",
                requirement="MB-STATUS-9",
            )
        preference = batch_on_error(request.headers.get_all("Prefer"))
        stop_on_error = preference == "stop"
        try:
            check_declared_length(request.body.length, self._config.limits)
            ticket = self.budget.admit(request.body.length)
        except MixbatchError as exc:
            return from_error(exc)
        except BudgetExhausted as exc:
            return self._busy(exc)
        # From here until the batch ends, its parts are alive (_collector).
        young = _collector.hold()

        def release() -> None:
            ticket.release()
            young.release()

        try:
            clock = self.turns.clock()
            async with asyncio.timeout_at(deadline):
                envelope = await _envelope.receive(
                    request,
                    boundary,
                    limits=self._config.limits,
                    spool_threshold=self._config.spool_memory_threshold,
                    batch_paths=(self.path,),
                    ticket=ticket,
                    clock=clock,
                )
        except MixbatchError as exc:
            release()
            return from_error(exc)
        except BudgetExhausted as exc:
            release()
            return self._busy(exc)
        except TimeoutError:
            release()
            return problem(
                408,
                "batch-timeout",
                f"the batch did not arrive within {self._config.batch_timeout:g} s",
                requirement="MB-PROC-1",
            )
        except BaseException:
            release()
            raise
        fault = references.check(envelope.parts) if references.MODE in modes else None
        if fault is not None:
            envelope.close()
            release()
            return from_error(fault)
        renderer = self._renderer(chosen)
        # MB-MULTI-10: Vary: Accept, since the representation depends on it. MB-INTER-4: a
        # sender SHOULD include Cache-Control: no-transform in batch responses.
        headers = [
            ("Content-Type", renderer.content_type),
            ("Vary", "Accept"),
            ("Cache-Control", "no-transform"),
        ]
        if preference in ("stop", "continue"):
            headers.append(("Preference-Applied", f"batch-on-error={preference}"))
        response = Response(renderer.status, headers)
        if request.accepts_trailers:
            headers.append(("Trailer", "Batch-Summary"))
        earlier: list[references.Earlier] | None = [] if references.MODE in modes else None
        if "atomic" in modes:
            stream = self._atomic(request, envelope, renderer, deadline, response, earlier)
        else:
            stream = self._stream(
                request, envelope, renderer, stop_on_error, deadline, response, clock, earlier
            )
        response.body = HeldBody(stream, envelope.close, release)
        return response

    def _busy(self, exc: BudgetExhausted) -> Response:
        return busy_response(exc, self._config.busy_retry_after)

    def _renderer(self, media_type: str) -> Renderer:
        if media_type == XML_MEDIA_TYPE:
            return XmlRenderer()
        if media_type == JSON_MEDIA_TYPE:
            return JsonRenderer(SPEC_VERSION)
        return MultipartRenderer(BatchWriter())

    @staticmethod
    def _inherited(batch: Request) -> list[tuple[str, list[tuple[str, str]]]]:
        """The batch's own fields that parts may inherit (MB-SUB-5), read once per batch."""
        inherited = []
        for name in INHERITED_FIELDS:
            values = batch.headers.get_all(name)
            if values:
                inherited.append((name, [(name, value) for value in values]))
        return inherited

    def _subrequest(
        self,
        batch: Request,
        inherited: list[tuple[str, list[tuple[str, str]]]],
        envelope: Envelope,
        part: PartSpec,
        resolved: tuple[str, Fields] | None = None,
    ) -> Request:
        own = part.fields
        fields = _end_to_end(own.pairs if resolved is None else resolved[1].pairs, _KEEP_ALL)
        if inherited:
            extra = [pair for name, pairs in inherited if own.get(name) is None for pair in pairs]
            if extra:
                fields = Fields([*fields, *extra])
        length = part.length
        return Request(
            part.method,
            part.target if resolved is None else resolved[0],
            fields,
            SpooledBody(envelope.spool, part.start, length) if length else _NO_CONTENT,
            batch.scheme,
            batch.authority,
        )

    def _prepare(
        self,
        batch: Request,
        inherited: list[tuple[str, list[tuple[str, str]]]],
        envelope: Envelope,
        part: PartSpec,
        earlier: list[references.Earlier] | None = None,
    ) -> Request | PartResult:
        """The part's sub-request, or its result already when a reference in it names nothing."""
        resolved = None
        if earlier is not None:
            try:
                resolved = references.resolve(
                    part,
                    earlier,
                    base=batch.path,
                    scheme=batch.scheme,
                    authority=batch.authority,
                    batch_paths=(self.path,),
                )
            except references.Unresolved as exc:
                return _unresolved(part, exc)
        return self._subrequest(batch, inherited, envelope, part, resolved)

    def _start(
        self,
        batch: Request,
        inherited: list[tuple[str, list[tuple[str, str]]]],
        envelope: Envelope,
        part: PartSpec,
        earlier: list[references.Earlier] | None,
        loop: asyncio.AbstractEventLoop,
    ) -> PartResult | asyncio.Task[PartResult]:
        """Run the part at once: its result when it never waited, with no task, no timer armed
        and no event-loop round trip (most parts), else the task that finishes it (it waits, or
        its content streams). A handler that answers at once is a plain call; one that is a
        coroutine runs up to its first real wait (_inline)."""
        request = self._prepare(batch, inherited, envelope, part, earlier)
        if isinstance(request, PartResult):
            return request
        answer = self._run(request, part.index)
        if isinstance(answer, Response):
            response = answer
        else:
            started = _inline.start(answer, loop)
            if not started[0]:
                return asyncio.Task(_completed(part, request, started[1]), loop=loop)
            response = started[1]
        if isinstance(response.body, bytes):
            return _result_of(part, request, response, response.body)
        return asyncio.Task(_completed(part, request, response), loop=loop)

    async def _result(
        self,
        batch: Request,
        inherited: list[tuple[str, list[tuple[str, str]]]],
        envelope: Envelope,
        part: PartSpec,
        earlier: list[references.Earlier] | None = None,
    ) -> PartResult:
        request = self._prepare(batch, inherited, envelope, part, earlier)
        if isinstance(request, PartResult):
            return request
        return await _completed(part, request, self._run(request, part.index))

    async def _stream(
        self,
        batch: Request,
        envelope: Envelope,
        renderer: Renderer,
        stop_on_error: bool,
        deadline: float,
        response: Response,
        clock: Clock,
        earlier: list[references.Earlier] | None = None,
    ) -> AsyncIterator[bytes]:
        # Rendered parts wait in ``ready`` and go to the connection together, which costs one
        # chunk (one h11 event, one write) for many small parts instead of one each. They are
        # handed over whenever the next part is about to wait, past _READY_MAX_BYTES, and at
        # the end of a slice (when the loop is yielded to, and the connection writes) once
        # FLUSH_EVERY has passed since the last hand-over, so a finished part is never held
        # back behind a slow one (MB-PROC-4) and short slices do not mean small writes.
        ready: list[bytes] = [renderer.start()]
        ready_bytes = 0
        summary = Summary()
        stopped = False
        loop = asyncio.get_running_loop()
        inherited = self._inherited(batch)
        flush_at = loop.time() + FLUSH_EVERY
        try:
            for part in envelope.parts:
                if stopped:
                    # MB-RESP-5: "A part that did not run carries Batch-Outcome: skipped and no
                    # Http-Status-Code."
                    result = PartResult(part.index, part.target, part.content_id, None, "skipped")
                else:
                    started = self._start(batch, inherited, envelope, part, earlier, loop)
                    if isinstance(started, PartResult):
                        result = started
                    else:
                        task = started
                        try:
                            if ready:
                                yield b"".join(ready)
                                ready.clear()
                                ready_bytes = 0
                            async with asyncio.timeout_at(deadline):
                                await task
                        except TimeoutError:
                            aborted = self._aborted(part.index)
                            summary.add(aborted)
                            ready.append(renderer.part(aborted))
                            break
                        finally:
                            # The client went away (the generator is closed at the yield) or
                            # the batch timed out: the part must not run on unobserved.
                            task.cancel()
                        result = task.result()
                        del task  # it holds the result too
                    del started
                    # MB-PROC-6: with batch-on-error=stop, every part after the first with
                    # status 400 or above is skipped.
                    stopped = stop_on_error and result.status is not None and result.status >= 400
                if earlier is not None:
                    earlier.append(_earlier(result))
                try:
                    chunk = renderer.part(result)
                except LocalProtocolError:
                    result, chunk = self._render(renderer, result, part)
                summary.add(result)
                # From here the sub-response lives on in ``chunk`` alone: a large body is held
                # once, not also by its result while the next part runs.
                del result
                if len(chunk) >= _READY_MAX_BYTES:
                    # A large part goes out as a chunk of its own rather than being copied
                    # into one with the parts before it.
                    if ready:
                        yield b"".join(ready)
                        ready.clear()
                        ready_bytes = 0
                    yield chunk
                else:
                    ready.append(chunk)
                    ready_bytes += len(chunk)
                del chunk
                due = clock.due()
                if ready and (ready_bytes >= _READY_MAX_BYTES or (due and loop.time() >= flush_at)):
                    yield b"".join(ready)
                    ready.clear()
                    ready_bytes = 0
                    flush_at = loop.time() + FLUSH_EVERY
                if due:
                    await clock.pass_turn()
            if batch.accepts_trailers:
                # MB-STATUS-8: an optional trailer counting parts by outcome, sent only to a
                # client that said it accepts trailers (TE: trailers).
                response.trailers.append(("Batch-Summary", summary.as_field()))
            ready.append(renderer.end(summary))
            yield b"".join(ready)
        finally:
            envelope.close()

    async def _atomic(
        self,
        batch: Request,
        envelope: Envelope,
        renderer: Renderer,
        deadline: float,
        response: Response,
        earlier: list[references.Earlier] | None,
    ) -> AsyncIterator[bytes]:
        """An atomic batch (§7.5): every part in one transaction, the parts written once the
        outcome is known (§7.3), because it decides how each part is marked."""
        assert self._store is not None
        inherited = self._inherited(batch)
        transaction = self._store.transaction()
        results: list[PartResult] = []
        failed = False
        busy: str | None = None
        committed = False
        try:
            try:
                async with asyncio.timeout_at(deadline):
                    await transaction.begin()
                    context = bound(transaction)
                    for part in envelope.parts:
                        task = asyncio.Task(
                            self._result(batch, inherited, envelope, part, earlier),
                            context=context,
                        )
                        try:
                            result = await task
                        finally:
                            task.cancel()
                        results.append(result)
                        if earlier is not None:
                            earlier.append(_earlier(result))
                        # A failing part, or one skipped for its reference (MB-PROC-21), ends
                        # the batch uncommitted.
                        if result.outcome == "skipped" or (result.status or 0) >= 400:
                            failed = True
                            break
            except TimeoutError:
                pass
            except StoreBusy as exc:
                busy = f"the store stayed locked by another writer ({exc})"
            else:
                if not failed:
                    # MB-PROC-16: committed "before it sends the first response part". The
                    # commit is outside the timeout, so it is never cut off halfway.
                    await transaction.commit()
                    committed = True
            if not committed:
                # Undone before the answer goes out, so that a request sent after it meets
                # the state from before the batch.
                await transaction.rollback()
        finally:
            # Rolls back whatever did not commit; a no-op after the commit.
            transaction.close()
        summary = Summary()
        chunks = [renderer.start()]
        parts = envelope.parts
        for index, part in enumerate(parts):
            if index < len(results):
                result = results[index]
                last = index == len(results) - 1
                if not committed and not (failed and last):
                    # MB-PROC-8: "mark each part before the failing one Batch-Outcome:
                    # rolled-back with its real status"; MB-PROC-14 likewise before an abort.
                    result.outcome = "rolled-back"
            elif failed:
                # MB-PROC-8: "answer every later part Batch-Outcome: skipped".
                result = PartResult(part.index, part.target, part.content_id, None, "skipped")
            else:
                # MB-PROC-14: stopped before committing: the abort part names the first part
                # that did not run.
                aborted = self._aborted(index, busy)
                summary.add(aborted)
                chunks.append(renderer.part(aborted))
                break
            result, chunk = self._render(renderer, result, part)
            summary.add(result)
            chunks.append(chunk)
        if batch.accepts_trailers:
            response.trailers.append(("Batch-Summary", summary.as_field()))
        chunks.append(renderer.end(summary))
        envelope.close()
        yield b"".join(chunks)

    @staticmethod
    def _render(renderer: Renderer, result: PartResult, part: PartSpec) -> tuple[PartResult, bytes]:
        """The result's octets; a sub-response the writer refuses becomes that part's 500
        (without content when the part is a HEAD, like every HEAD sub-response)."""
        try:
            return result, renderer.part(result)
        except LocalProtocolError as exc:
            # A sub-response the writer refuses (say, a header value it cannot carry) is that
            # part's 500, never the batch's.
            _log.error("part %d cannot be written: %s", result.index, exc)
            result = PartResult(
                result.index,
                result.href,
                result.content_id,
                500,
                None,
                [("Content-Type", PROBLEM_MEDIA_TYPE)],
                b"" if part.method == "HEAD" else problem_body(exc.to_problem() | {"status": 500}),
            )
            return result, renderer.part(result)

    def _aborted(self, index: int, why: str | None = None) -> PartResult:
        # MB-STATUS-6: a server that must stop after the response began "writes a final part
        # with Batch-Outcome: aborted and a problem+json body, then the close delimiter".
        document = {
            "type": PROBLEM_TYPE_BASE + "batch-aborted",
            "title": "Batch aborted",
            "status": 503,
            "detail": (
                (why or f"the batch exceeded its time limit of {self._config.batch_timeout:g} s")
                + f"; part {index} and every later part did not complete"
            ),
            "requirement": "MB-STATUS-6",
            "part_index": index,
        }
        return PartResult(
            index,
            None,
            None,
            None,
            "aborted",
            [("Content-Type", PROBLEM_MEDIA_TYPE)],
            problem_body(document),
        )


async def _completed(
    part: PartSpec, request: Request, response: Awaitable[Response] | Response
) -> PartResult:
    """The part's result once its sub-response is there and its content read whole."""
    if not isinstance(response, Response):
        response = await response
    body = response.body
    if not isinstance(body, bytes):
        body = b"".join([bytes(chunk) async for chunk in body])
    return _result_of(part, request, response, body)


def _result_of(part: PartSpec, request: Request, response: Response, body: bytes) -> PartResult:
    # MB-RESP-4: the part carries the sub-response's fields less hop-by-hop and framing
    # fields, and never the part's own control fields.
    fields = _end_to_end(tuple(response.headers), PART_CONTROL_FIELDS)
    return PartResult(
        part.index, request.target, part.content_id, response.status, None, fields, body
    )


def _earlier(result: PartResult) -> references.Earlier:
    """What later parts may name of ``result`` (§7.7)."""
    return references.Earlier(result.status, result.outcome, result.href or "/", result.fields)


def _unresolved(part: PartSpec, exc: references.Unresolved) -> PartResult:
    # MB-PROC-20: "answer that part Batch-Outcome: skipped with an application/problem+json body
    # whose requirement is MB-PROC-20 and whose reference member is the reference as written".
    document = {
        "type": PROBLEM_TYPE_BASE + "reference-unresolved",
        "title": "Reference unresolved",
        "status": 424,
        "detail": exc.detail,
        "requirement": "MB-PROC-20",
        "reference": exc.reference,
        "part_index": part.index,
    }
    return PartResult(
        part.index,
        part.target,
        part.content_id,
        None,
        "skipped",
        [("Content-Type", PROBLEM_MEDIA_TYPE)],
        problem_body(document),
    )
