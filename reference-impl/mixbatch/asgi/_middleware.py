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

This module holds the endpoint itself: its options, checked when it is built, and every
decision up to the 200. The batch's answer is written by ``_batch_run`` (streamed, or after the
transaction for ``Batch-Mode: atomic``, spec §7.5), and each part is answered by ``_part_run``:
``$(N)`` and ``$(N:Field)`` substituted for ``Batch-Mode: references`` (spec §7.7),
``authorize_part`` asked (a refused part is answered 403 and never reaches the app), then the
part run through the whole app. ``Prefer: batch-on-error=stop`` skips the parts after the first
failure (MB-PROC-6). A batch that runs past ``batch_timeout`` ends with an abort part
(MB-STATUS-6, MB-SEC-1).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

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
from mixbatch._http.content_coding import SUPPORTED_CODINGS, unsupported_codings
from mixbatch._http.negotiation import batch_modes
from mixbatch._http.origin import host_fault
from mixbatch.codec import (
    Fields,
    Limits,
    RemoteProtocolError,
    is_token,
    parse_batch_content_type,
)
from mixbatch.envelope import SPOOL_IN_MEMORY_BYTES

from . import _atomic
from ._atomic import TransactionHook
from ._batch_run import run_atomic_batch, run_batch
from ._envelope import ClientGone, declared_too_large, receive_envelope
from ._part_run import Authorizer, Batch, PartRequest, authority
from ._replies import (
    ALLOW,
    CAPABILITIES_MEDIA_TYPE,
    accepts_multipart,
    capabilities,
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

#: The Batch-Mode values and the profiles that offer them. "atomic" needs the application's
#: transactions (``transaction=``); the XML and JSON forms are not offered, and collection-get
#: and conditional belong to the app.
_MODE_PROFILES = {references.MODE: "references", _atomic.MODE: "atomic"}
#: Seconds one batch may run; the same bound as the reference server's (MB-SEC-1).
BATCH_TIMEOUT = 120.0
#: Part bodies up to this total stay in memory; beyond it they spill to a temporary file.
SPOOL_MEMORY_THRESHOLD = SPOOL_IN_MEMORY_BYTES


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
        hosts = headers.get_all("Host")
        fault = host_fault(hosts) if hosts else None
        if fault is not None:
            # Spec 3.2.2: the base URI is "built from its `Host`", and "a batch request without
            # a valid `Host` is already a bad HTTP/1.1 request (RFC 9112 §3.2) and is answered
            # 400". An ASGI server passes the field on unchecked; one it leaves out (HTTP/1.0,
            # HTTP/2's :authority) is the server's to judge.
            problem = problem_document(400, "invalid-host", fault, requirement="MB-PART-5")
            await send_problem(send, problem)
            return
        listed = headers.get_all("Batch-Mode")
        # MB-PROC-17: "read Batch-Mode as a comma-separated list of modes".
        modes = batch_modes(listed)
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
        if len(headers.get_all("Content-Type")) > 1:
            # Spec 3.1.1: "A batch request with more than one `Content-Type` field line ... is
            # refused before any part runs: 400 under this requirement" (MB-WIRE-4).
            problem = problem_document(
                400,
                "repeated-content-type",
                "the batch request carries more than one Content-Type field line",
                requirement="MB-WIRE-4",
            )
            await send_problem(send, problem)
            return
        try:
            boundary = parse_batch_content_type(headers.get("Content-Type"))
        except RemoteProtocolError as exc:
            extra = [("Accept-Post", "multipart/mixed")] if exc.status_hint == 415 else []
            await send_problem(send, exc, extra)
            return
        unsupported = unsupported_codings(headers.get_all("Content-Encoding"))
        if unsupported:
            # MB-INTER-6: 415 with Accept-Encoding for a coding not decoded, every member of
            # every line read; spec 5.3: "A 415 for an unsupported content coding ... names
            # MB-WIRE-2".
            problem = problem_document(
                415,
                "unsupported-content-coding",
                f"the batch has content coding {', '.join(unsupported)!r}; send it without one",
                requirement="MB-WIRE-2",
            )
            await send_problem(send, problem, [("Accept-Encoding", ", ".join(SUPPORTED_CODINGS))])
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
                authority=authority(scope, headers),
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
            batch = Batch(scope, headers, envelope, base, modes)
            if _atomic.MODE in modes:
                await run_atomic_batch(self, batch, send)
            else:
                await run_batch(self, batch, send)
        finally:
            envelope.close()


def _declared(content_length: str | None) -> int | None:
    """The declared content length charged on admission; None (chunked) is charged as it
    arrives. A malformed value was refused before (``declared_too_large``)."""
    value = (content_length or "").strip()
    return int(value) if value.isdigit() else None


def _fields(scope: Scope) -> Fields:
    """The request's fields, each value without the whitespace around it: RFC 9112 §5.1 has a
    parser exclude it, and some ASGI servers hand it on (the whitespace after a value)."""
    return Fields(
        (k.decode("latin-1"), v.decode("latin-1").strip(" \t")) for k, v in scope.get("headers", [])
    )
