"""``BatchMiddleware``: give any ASGI application a spec-conformant batch endpoint.

    app = BatchMiddleware(app, path="/batch")

Requests to other paths go to the application untouched. At ``path``:

    OPTIONS            -> 200 capabilities document, Accept-Post, Allow (MB-LIMIT-2)
    other than POST    -> 405 + Allow (MB-METHOD-2)
    POST, in order, every refusal a problem+json before any part runs (MB-STATUS-4):
      Batch-Mode       -> 501 for a mode not offered (MB-PROC-7, MB-PROC-12, MB-PROC-17);
                          ``references`` is offered by default, ``atomic`` with ``transaction``
      Content-Type     -> 415 + Accept-Post (MB-WIRE-2), or 400 for a bad boundary (MB-WIRE-4)
      Content-Encoding -> 415 + Accept-Encoding: identity (spec §10.1)
      Accept           -> 406 unless it admits multipart/mixed (MB-STATUS-9)
      budget           -> 503 + Retry-After when the batches held at once are over
                          ``max_batches_in_flight`` or ``max_batch_bytes_in_flight`` (MB-LIMIT-6)
      envelope         -> whole batch received and validated first (MB-PROC-1): 400/413/431,
                          and 400 for a reference that does not look back (MB-PROC-19)
    then 200 multipart/mixed: each part runs in request order through the whole wrapped app
    (MB-SUB-1, MB-PROC-2), and each response part is sent the moment it is ready (MB-PROC-4).

``Batch-Mode: references`` substitutes ``$(N)`` and ``$(N:Field)`` from the answers before each
part by the rules the reference server uses (``mixbatch.references``, spec §7.7).
``Batch-Mode: atomic`` runs every part inside the application's ``transaction()`` and writes the
parts once it committed or rolled back (``_atomic``, spec §7.5).

``authorize_part`` may refuse a part: the part is answered 403 and never reaches the app.
``Prefer: batch-on-error=stop`` skips the parts after the first failure (MB-PROC-6). A batch
that runs past ``batch_timeout`` ends with an abort part (MB-STATUS-6, MB-SEC-1).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from mixbatch import references
from mixbatch._constants import ASGI_DEFAULT_PROFILES as DEFAULT_PROFILES
from mixbatch._constants import ASGI_PROFILES as SUPPORTED_PROFILES
from mixbatch._constants import INHERITED_FIELDS
from mixbatch._http.budget import (
    BUSY_RETRY_AFTER,
    MAX_BATCH_BYTES_IN_FLIGHT,
    MAX_BATCHES_IN_FLIGHT,
    BatchBudget,
    BudgetExhausted,
    Ticket,
    busy_document,
)
from mixbatch._http.negotiation import batch_on_error
from mixbatch.codec import (
    PROBLEM_TYPE_BASE,
    BatchWriter,
    Fields,
    Limits,
    LocalProtocolError,
    RemoteProtocolError,
    is_token,
    parse_batch_content_type,
)
from mixbatch.envelope import SPOOL_IN_MEMORY_BYTES

from . import _atomic
from ._atomic import Answer, TransactionHook
from ._dispatch import SubResponse, build_scope, run_part
from ._envelope import ClientGone, Envelope, Part, declared_too_large, receive_envelope
from ._replies import (
    ALLOW,
    CAPABILITIES_MEDIA_TYPE,
    PROBLEM_MEDIA_TYPE,
    accepts_multipart,
    capabilities,
    problem_bytes,
    problem_document,
    send_problem,
    send_whole,
)
from ._types import ASGIApp, Receive, Scope, Send

__all__ = [
    "BATCH_TIMEOUT",
    "DEFAULT_PROFILES",
    "SPOOL_MEMORY_THRESHOLD",
    "SUPPORTED_PROFILES",
    "BatchMiddleware",
    "PartRequest",
    "TransactionHook",
]

_log = logging.getLogger("mixbatch.asgi")

#: The Batch-Mode values and the profiles that offer them. "atomic" needs the application's
#: transactions (``transaction=``); the XML and JSON forms are not offered, and collection-get
#: and conditional belong to the app.
_MODE_PROFILES = {references.MODE: "references", _atomic.MODE: "atomic"}
#: Seconds one batch may run; the same bound as the reference server's (MB-SEC-1).
BATCH_TIMEOUT = 120.0
#: Part bodies up to this total stay in memory; beyond it they spill to a temporary file.
SPOOL_MEMORY_THRESHOLD = SPOOL_IN_MEMORY_BYTES
#: Parts run back to back yield to the event loop this often, so other requests get a turn.
_YIELD_EVERY = 32


@dataclass(frozen=True, slots=True)
class PartRequest:
    """What ``authorize_part`` sees: one sub-request about to run, and the batch's scope."""

    index: int
    method: str
    target: str
    headers: Fields
    scope: Scope


Authorizer = Callable[[PartRequest], bool | Awaitable[bool]]


class BatchMiddleware:
    """An ASGI middleware that answers batch requests at ``path`` by running each part through
    ``app``. See the module docstring for the order of decisions."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        path: str = "/batch",
        limits: Limits | None = None,
        profiles: Iterable[str] = DEFAULT_PROFILES,
        inherit_headers: Sequence[str] = INHERITED_FIELDS,
        authorize_part: Authorizer | None = None,
        batch_timeout: float = BATCH_TIMEOUT,
        spool_threshold: int = SPOOL_MEMORY_THRESHOLD,
        max_batches_in_flight: int = MAX_BATCHES_IN_FLIGHT,
        max_batch_bytes_in_flight: int = MAX_BATCH_BYTES_IN_FLIGHT,
        busy_retry_after: int = BUSY_RETRY_AFTER,
        transaction: TransactionHook | None = None,
    ) -> None:
        if not isinstance(path, str) or not path.startswith("/") or "?" in path:
            raise ValueError(f"BatchMiddleware path must be an origin-form path, got {path!r}")
        if transaction is not None and not callable(transaction):
            raise ValueError(
                "BatchMiddleware transaction must be a callable returning an async context "
                f"manager, got {transaction!r}"
            )
        atomic = ["atomic"] if transaction is not None else []
        chosen = tuple(dict.fromkeys(["core", *profiles, *atomic]))
        unknown = [p for p in chosen if p not in SUPPORTED_PROFILES]
        if unknown:
            raise ValueError(
                f"BatchMiddleware profiles {unknown!r} are not offered; choose from {SUPPORTED_PROFILES}"
            )
        if "atomic" in chosen and transaction is None:
            raise ValueError(
                "BatchMiddleware profile 'atomic' needs transaction=, a callable returning the "
                "async context manager of one application transaction"
            )
        bad = [name for name in inherit_headers if not is_token(name)]
        if bad:
            raise ValueError(f"BatchMiddleware inherit_headers must be field names, got {bad!r}")
        if not batch_timeout > 0:
            raise ValueError(
                f"BatchMiddleware batch_timeout must be positive, got {batch_timeout!r}"
            )
        self.app = app
        self.path = path
        self.limits = limits or Limits()
        self.profiles = chosen
        self.transaction = transaction
        #: The Batch-Mode values offered (MB-PROC-17).
        self.modes = frozenset(m for m, profile in _MODE_PROFILES.items() if profile in chosen)
        self.inherit_headers = tuple(name.lower() for name in inherit_headers)
        self.authorize_part = authorize_part
        self.batch_timeout = batch_timeout
        self.spool_threshold = spool_threshold
        if isinstance(busy_retry_after, bool) or not busy_retry_after > 0:
            raise ValueError(
                f"BatchMiddleware busy_retry_after must be positive, got {busy_retry_after!r}"
            )
        try:
            #: The batches this endpoint holds at once (MB-LIMIT-6), counted as the server does.
            self.budget = BatchBudget(max_batches_in_flight, max_batch_bytes_in_flight)
        except ValueError:
            raise ValueError(
                "BatchMiddleware max_batches_in_flight and max_batch_bytes_in_flight must be "
                f"positive, got {max_batches_in_flight!r} and {max_batch_bytes_in_flight!r}"
            ) from None
        self.busy_retry_after = busy_retry_after

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != self.path:
            await self.app(scope, receive, send)
            return
        method = scope["method"]
        if method == "POST":
            await self._post(scope, receive, send)
        elif method == "OPTIONS":
            # MB-LIMIT-2: "OPTIONS on the batch endpoint returns the capabilities document and
            # Accept-Post: multipart/mixed" (and Allow).
            document = capabilities(self.limits, self.path, self.profiles)
            body = json.dumps(document, separators=(",", ":")).encode("ascii")
            headers = [
                ("Content-Type", CAPABILITIES_MEDIA_TYPE),
                ("Accept-Post", "multipart/mixed"),
                ("Allow", ALLOW),
            ]
            await send_whole(send, 200, headers, body)
        else:
            # MB-METHOD-2: "A server answers other methods on the batch endpoint with 405 and
            # an Allow field."
            problem = problem_document(
                405,
                "method-not-allowed",
                f"{method} is not allowed on the batch endpoint",
                requirement="MB-METHOD-2",
            )
            await send_problem(send, problem, [("Allow", ALLOW)])

    # -- POST ---------------------------------------------------------------------------------

    async def _post(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = _fields(scope)
        listed = headers.get_all("Batch-Mode")
        # MB-PROC-17: "read Batch-Mode as a comma-separated list of modes".
        modes = frozenset(m.strip() for m in ",".join(listed).split(",")) if listed else frozenset()
        unknown = sorted(modes - self.modes)
        if unknown:
            # MB-PROC-7: a server without the atomic profile answers Batch-Mode: atomic "with
            # 501 (Not Implemented) before any part runs"; MB-PROC-12 any other mode likewise.
            offered = ", ".join(sorted(self.modes)) or "none"
            problem = problem_document(
                501,
                "batch-mode-unsupported",
                f"Batch-Mode {', '.join(listed)!r} lists {unknown!r}, which this endpoint does "
                f"not offer (it offers {offered})",
                requirement="MB-PROC-7" if _atomic.MODE in unknown else "MB-PROC-12",
            )
            await send_problem(send, problem)
            return
        try:
            boundary = parse_batch_content_type(headers.get("Content-Type"))
        except RemoteProtocolError as exc:
            extra = [("Accept-Post", "multipart/mixed")] if exc.status_hint == 415 else []
            await send_problem(send, exc, extra)
            return
        coding = (headers.get("Content-Encoding") or "identity").strip().lower()
        if coding != "identity":
            problem = problem_document(
                415,
                "unsupported-content-coding",
                f"the batch has content coding {coding!r}; send it without one",
            )
            await send_problem(send, problem, [("Accept-Encoding", "identity")])
            return
        if not accepts_multipart(", ".join(headers.get_all("Accept")) or None):
            # MB-STATUS-9: "A server MUST answer 406 (Not Acceptable) to a batch request whose
            # Accept field admits none of the batch representations the server offers."
            problem = problem_document(
                406,
                "not-acceptable",
                "Accept does not admit multipart/mixed, the only batch representation offered here",
                requirement="MB-STATUS-9",
            )
            await send_problem(send, problem)
            return
        too_large = declared_too_large(headers.get("Content-Length"), self.limits)
        if too_large is not None:
            await send_problem(send, too_large)
            return
        try:
            ticket = self.budget.admit(_declared(headers.get("Content-Length")))
        except BudgetExhausted as exc:
            await self._busy(send, exc)
            return
        try:
            await self._receive_and_run(scope, receive, send, headers, boundary, ticket, modes)
        finally:
            ticket.release()

    async def _busy(self, send: Send, exc: BudgetExhausted) -> None:
        retry = str(self.busy_retry_after)
        await send_problem(
            send, busy_document(exc, self.busy_retry_after), [("Retry-After", retry)]
        )

    async def _receive_and_run(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        headers: Fields,
        boundary: str,
        ticket: Ticket,
        modes: frozenset[str],
    ) -> None:
        raw_path = scope.get("raw_path") or scope["path"].encode("utf-8")
        query = scope.get("query_string", b"")
        base = raw_path.decode("latin-1") + (f"?{query.decode('latin-1')}" if query else "")
        try:
            envelope = await receive_envelope(
                receive,
                boundary,
                base=base,
                scheme=scope.get("scheme", "http"),
                authority=_authority(scope, headers),
                batch_path=self.path,
                limits=self.limits,
                spool_threshold=self.spool_threshold,
                ticket=ticket,
            )
        except RemoteProtocolError as exc:
            await send_problem(send, exc)
            return
        except BudgetExhausted as exc:
            await self._busy(send, exc)
            return
        except ClientGone:
            return
        try:
            fault = references.check(envelope.parts) if references.MODE in modes else None
            if fault is not None:
                # MB-PROC-19: a reference that does not look back is a 400 before any part runs.
                await send_problem(send, fault)
                return
            batch = _Batch(scope, headers, envelope, base, modes)
            if _atomic.MODE in modes:
                await self._run_atomic(batch, send)
            else:
                await self._run(batch, send)
        finally:
            envelope.close()

    def _start(self, writer: BatchWriter, preference: str | None) -> dict[str, Any]:
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

    async def _run_atomic(self, batch: _Batch, send: Send) -> None:
        assert self.transaction is not None
        # §7.5: "An atomic batch implies the stop policy; a server names batch-on-error=stop in
        # Preference-Applied only when the client asked for it."
        asked = batch_on_error(batch.headers.get_all("Prefer"))
        preference = "stop" if asked == "stop" and "error-policy" in self.profiles else None
        deadline = asyncio.get_running_loop().time() + self.batch_timeout
        inherited = self._inherited(batch.headers)

        async def run(part: Part, earlier: Sequence[Answer]) -> Answer:
            return await self._answer(batch, inherited, part, earlier)

        outcome = await _atomic.run_atomic(batch.envelope.parts, self.transaction, run, deadline)
        writer = BatchWriter()
        await send(self._start(writer, preference))
        chunks = []
        for part in batch.envelope.parts:
            answer = _atomic.marked(outcome, part.index)
            if answer is None:
                chunks.append(self._abort(writer, part, outcome.abort_status, outcome.abort_detail))
                break
            chunks.append(self._write(writer, part, answer))
        chunks.append(writer.close())
        await send({"type": "http.response.body", "body": b"".join(chunks), "more_body": False})

    def _inherited(self, headers: Fields) -> list[tuple[str, str]]:
        return [(name, value) for name, value in headers if name.lower() in self.inherit_headers]

    async def _answer(
        self,
        batch: _Batch,
        inherited: list[tuple[str, str]],
        part: Part,
        earlier: Sequence[Answer],
    ) -> Answer:
        """Part ``part`` run through the app, its references substituted first (§7.7)."""
        target, fields = part.target, part.fields
        if references.MODE in batch.modes:
            scope = batch.scope
            try:
                resolved = references.resolve(
                    part,
                    [references.Earlier(a.status, a.outcome, a.target, a.headers) for a in earlier],
                    base=batch.base,
                    scheme=scope.get("scheme", "http"),
                    authority=_authority(scope, batch.headers),
                    batch_paths=(self.path,),
                )
            except references.Unresolved as exc:
                return _unresolved(part, exc)
            if resolved is not None:
                target, fields = resolved
        result = await self._part(
            batch.scope, batch.headers, inherited, batch.envelope, part, target, fields
        )
        return Answer(result.status, result.headers, result.body, None, target)

    async def _run(self, batch: _Batch, send: Send) -> None:
        headers, envelope = batch.headers, batch.envelope
        preference = batch_on_error(headers.get_all("Prefer"))
        if "error-policy" not in self.profiles and preference == "stop":
            preference = None  # a preference the endpoint does not honour is ignored (RFC 7240)
        writer = BatchWriter()
        await send(self._start(writer, preference))
        deadline = asyncio.get_running_loop().time() + self.batch_timeout
        inherited = self._inherited(headers)
        answers: list[Answer] = []
        stopped = False
        for part in envelope.parts:
            if stopped:
                # MB-RESP-5: a part that never ran carries Batch-Outcome: skipped, no status.
                answer = Answer(None, outcome="skipped", target=part.target)
            else:
                try:
                    async with asyncio.timeout_at(deadline):
                        answer = await self._answer(batch, inherited, part, answers)
                except TimeoutError:
                    chunk = self._abort(writer, part)
                    await _send_body(send, chunk)
                    break
                # MB-PROC-6: with batch-on-error=stop, every part after the first failure
                # skips. MB-PROC-20: a part skipped for its reference "did not fail".
                stopped = preference == "stop" and (answer.status or 0) >= 400
            if references.MODE in batch.modes:
                answers.append(answer)
            chunk = self._write(writer, part, answer)
            await _send_body(send, chunk)
            if part.index % _YIELD_EVERY == _YIELD_EVERY - 1:
                await asyncio.sleep(0)
        await send({"type": "http.response.body", "body": writer.close(), "more_body": False})

    async def _part(
        self,
        scope: Scope,
        headers: Fields,
        inherited: list[tuple[str, str]],
        envelope: Envelope,
        part: Part,
        target: str,
        part_fields: Fields,
    ) -> SubResponse:
        own = {name.lower() for name, _ in part_fields}
        fields = list(part_fields)
        # MB-SUB-5: outer credentials apply to a part without its own; a part's own field
        # replaces them. MB-SUB-6: no other outer field is applied.
        fields += [(n, v) for n, v in inherited if n.lower() not in own]
        body = envelope.body(part)
        if body and "content-length" not in own:
            fields.append(("Content-Length", str(len(body))))
        if self.authorize_part is not None:
            request = PartRequest(part.index, part.method, target, Fields(fields), scope)
            allowed = self.authorize_part(request)
            if inspect.isawaitable(allowed):
                allowed = await allowed
            if not allowed:
                document = problem_document(
                    403,
                    "part-forbidden",
                    f"part {part.index} ({part.method} {target}) is not authorised",
                    requirement="MB-SUB-1",
                )
                document["part_index"] = part.index
                return SubResponse(
                    403, [("Content-Type", PROBLEM_MEDIA_TYPE)], problem_bytes(document)
                )
        host = [("Host", _authority(scope, headers))]
        sub_scope = build_scope(scope, part.method, target, host + fields)
        return await run_part(self.app, sub_scope, body)

    def _write(self, writer: BatchWriter, part: Part, answer: Answer) -> bytes:
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
        self, writer: BatchWriter, part: Part, status: int = 503, detail: str | None = None
    ) -> bytes:
        # MB-STATUS-6: a final part "with Batch-Outcome: aborted, Content-Type:
        # application/problem+json and a problem document naming in part_index the first part
        # it does not answer, and then the close delimiter".
        document: dict[str, Any] = {
            "type": PROBLEM_TYPE_BASE + "batch-aborted",
            "title": "Batch aborted",
            "status": status,
            "detail": detail or f"the batch ran past its time limit of {self.batch_timeout:g} s",
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


@dataclass(frozen=True, slots=True)
class _Batch:
    """One batch request being answered: its scope, fields, envelope, base URI and modes."""

    scope: Scope
    headers: Fields
    envelope: Envelope
    base: str
    modes: frozenset[str]


def _unresolved(part: Part, exc: references.Unresolved) -> Answer:
    # MB-PROC-20: "The answer is Batch-Outcome: skipped with an application/problem+json body
    # whose requirement is MB-PROC-20 and whose reference member is the reference as written".
    document = problem_document(
        424,
        "reference-unresolved",
        exc.detail,
        title="Reference unresolved",
        requirement="MB-PROC-20",
        part_index=part.index,
        reference=exc.reference,
    )
    body = problem_bytes(document)
    return Answer(None, [("Content-Type", PROBLEM_MEDIA_TYPE)], body, "skipped", part.target)


async def _send_body(send: Send, chunk: bytes) -> None:
    await send({"type": "http.response.body", "body": chunk, "more_body": True})


def _declared(content_length: str | None) -> int | None:
    """The declared content length charged on admission; None (chunked) is charged as it
    arrives. A malformed value was refused before (``declared_too_large``)."""
    value = (content_length or "").strip()
    return int(value) if value.isdigit() else None


def _fields(scope: Scope) -> Fields:
    return Fields((k.decode("latin-1"), v.decode("latin-1")) for k, v in scope.get("headers", []))


def _authority(scope: Scope, headers: Fields) -> str:
    host = headers.get("Host")
    if host:
        return host
    server = scope.get("server")
    if server:
        name, port = server[0], server[1]
        default = 443 if scope.get("scheme") == "https" else 80
        return name if port in (None, default) else f"{name}:{port}"
    return "localhost"
