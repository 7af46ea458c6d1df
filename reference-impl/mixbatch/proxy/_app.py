"""The proxy application: the batch endpoint, and pass-through for every other request.

``ProxyApp`` is the callable ``mixbatch._http.Server`` hands each request to, so the proxy
reuses the reference server's connection handling (h11, keep-alive, pipelining order,
back-pressure, timeouts) and adds only what a proxy does differently:

    target in absolute-form   -> same scheme and authority as the proxy's own (its public
                                 origin when one is set, else the authority the request is
                                 addressed to, RFC 9112 §3.2.2), else 400 (``_http.targets``);
                                 answered from the one origin, so no open forward proxy
    target in no form at all  -> 400 ("batch" is not "/batch"; ``_http.targets`` too)
    the batch path            -> OPTIONS: capabilities; POST: the batch (``_batch``);
                                 anything else 405 with Allow (MB-METHOD-2)
    any other target          -> forwarded unchanged to the one origin and its answer streamed
                                 back, except CONNECT and TRACE (405); fields that would
                                 change the authority (X-Forwarded-Host ...) are dropped

A batch POST is decided in the reference server's order, every refusal a problem+json before
anything is forwarded: Batch-Mode (501, MB-PROC-7), media type (415/400), content coding (415,
the server's own ``refuse_content_coding``), Accept (406, MB-STATUS-9), then the whole envelope
(400/413/431, MB-PROXY-3; content that cannot be read is the server's ``from_body_error``), then
200 and the parts.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

import h11

from mixbatch._http import (
    BodyReadError,
    BodyTooLarge,
    Request,
    Response,
    ResponseCut,
    refuse_content_coding,
    refuse_get_with_content,
    refuse_repeated_field,
)
from mixbatch._http.budget import BatchBudget, BudgetExhausted, HeldBody, busy_response
from mixbatch._http.negotiation import accept_of
from mixbatch._http.targets import origin_form
from mixbatch.codec import MixbatchError, parse_batch_content_type
from mixbatch.envelope import check_declared_length

from . import _envelope
from ._batch import BatchRun
from ._config import ProxyConfig
from ._documents import (
    body_error_response,
    capabilities_response,
    error_response,
    problem_response,
)
from ._headers import VIA_VALUE, accepts_multipart, batch_on_error, end_to_end
from ._upstream import UpstreamConnection, UpstreamError, UpstreamPool, UpstreamRequest

__all__ = ["REFUSED_METHODS", "ProxyApp"]

_log = logging.getLogger("mixbatch.proxy")

#: MB-SUB-3 refuses these in parts; the proxy refuses them alone as well: CONNECT would make it
#: a tunnel to anywhere, TRACE would reflect the client's credentials.
REFUSED_METHODS = frozenset({"CONNECT", "TRACE"})
#: Upstream response fields the serving connection writes itself (one Date, one Server).
_CONNECTION_OWNED = ("Date", "Server")
_CONTENT_METHODS = frozenset({"POST", "PUT", "PATCH"})


class ProxyApp:
    """Routes each request to the batch endpoint or through to the origin."""

    def __init__(self, config: ProxyConfig, pool: UpstreamPool | None = None) -> None:
        self.config = config
        self.pool = pool or UpstreamPool(config)
        #: The batches this proxy holds at once (MB-LIMIT-6), as the reference server counts them.
        self.budget = BatchBudget(config.max_batches_in_flight, config.max_batch_bytes_in_flight)

    async def aclose(self) -> None:
        await self.pool.aclose()

    async def __call__(self, request: Request) -> Response:
        # The host turns an absolute-form target into origin-form and refuses a target in no
        # form; asked again here for an app called directly (tests), where it is a no-op.
        target = origin_form(request.target, scheme=request.scheme, authority=request.authority)
        if isinstance(target, Response):
            return target
        if target.partition("?")[0] == self.config.batch_path:
            return await self._batch_endpoint(request)
        return await self._pass_through(request, target)

    # -- the batch endpoint -----------------------------------------------------------------

    async def _batch_endpoint(self, request: Request) -> Response:
        # The server's router refuses a repeated singleton field (two Content-Type lines) before
        # anything else; the proxy reads Content-Type itself here, so it asks the same first.
        refused = refuse_repeated_field(request.headers, batch=True)
        if refused is not None:
            return refused
        if request.method == "OPTIONS":
            # MB-LIMIT-2: "OPTIONS on the batch endpoint returns the capabilities document and
            # Accept-Post: multipart/mixed".
            return capabilities_response(self.config.limits, self.config.batch_path)
        if request.method != "POST":
            refused = refuse_get_with_content(request)
            if refused is not None:
                return refused
            # MB-METHOD-2: "A server answers other methods on the batch endpoint with 405 and
            # an Allow field."
            return problem_response(
                405,
                "method-not-allowed",
                f"{request.method} is not allowed on the batch endpoint",
                requirement="MB-METHOD-2",
                headers=[("Allow", "OPTIONS, POST")],
            )
        return await self._batch(request)

    async def _batch(self, request: Request) -> Response:
        mode = request.headers.get("Batch-Mode")
        if mode is not None:
            # MB-PROC-7 / MB-PROC-12: a Batch-Mode the proxy does not implement (it cannot undo
            # what the origin did, so it has no atomic profile) is answered 501 first.
            return problem_response(
                501,
                "batch-mode-unsupported",
                f"Batch-Mode {mode!r} is not offered by this proxy",
                requirement="MB-PROC-12",
            )
        try:
            boundary = parse_batch_content_type(request.headers.get("Content-Type"))
        except MixbatchError as exc:
            extra = [("Accept-Post", "multipart/mixed")] if exc.status_hint == 415 else []
            return error_response(exc, extra)
        # The server's own verdict on Content-Encoding (415 + Accept-Encoding, MB-INTER-6): a
        # proxy that read a coded batch as raw multipart would forward what the client never
        # meant as parts.
        refused = refuse_content_coding(request.headers.get_all("Content-Encoding"))
        if refused is not None:
            return refused
        if not accepts_multipart(accept_of(request.headers)):
            # MB-STATUS-9: "A server answers 406 when Accept admits none of the batch
            # representations it offers."
            return problem_response(
                406,
                "not-acceptable",
                "Accept admits multipart/mixed, the one representation this proxy offers, "
                "with no positive quality",
                requirement="MB-STATUS-9",
            )
        preference = batch_on_error(request.headers.get_all("Prefer"))
        try:
            check_declared_length(request.body.length, self.config.limits)
            ticket = self.budget.admit(request.body.length)
        except MixbatchError as exc:
            return error_response(exc)
        except BudgetExhausted as exc:
            return busy_response(exc, self.config.busy_retry_after)
        try:
            envelope = await _envelope.receive(
                request.body.stream(),
                boundary,
                path=self.config.batch_path,
                scheme=request.scheme,
                authority=request.authority,
                declared_length=request.body.length,
                limits=self.config.limits,
                ticket=ticket,
            )
        except MixbatchError as exc:
            ticket.release()
            return error_response(exc)
        except BudgetExhausted as exc:
            ticket.release()
            return busy_response(exc, self.config.busy_retry_after)
        except (BodyReadError, BodyTooLarge) as exc:
            # The client's fault (malformed chunked framing, gone inside the content, too slow):
            # answered as the server answers the same octets, and nothing for the error log.
            ticket.release()
            return body_error_response(exc)
        except BaseException:
            ticket.release()
            raise
        run = BatchRun(
            self.pool, self.config, envelope, request.headers, stop_on_error=preference == "stop"
        )
        headers = [
            ("Content-Type", run.writer.content_type),
            # MB-INTER-4: "A sender SHOULD include Cache-Control: no-transform".
            ("Cache-Control", "no-transform"),
        ]
        if preference is not None:
            headers.append(("Preference-Applied", f"batch-on-error={preference}"))
        if request.accepts_trailers:
            headers.append(("Trailer", "Batch-Summary"))
        response = Response(200, headers)
        response.body = HeldBody(
            run.stream(response, request.accepts_trailers), ticket.release, run.close
        )
        return response

    # -- pass-through -----------------------------------------------------------------------

    async def _pass_through(self, request: Request, target: str) -> Response:
        if request.method in REFUSED_METHODS:
            return problem_response(
                405, "method-not-forwarded", f"this proxy does not forward {request.method}"
            )
        # A standalone request may be as large as one part, so whatever works in a batch also
        # works alone; content is read whole because the origin gets it with Content-Length.
        try:
            body = await request.body.read(self.config.limits.max_part_bytes)
        except (BodyReadError, BodyTooLarge) as exc:
            return body_error_response(exc)
        # A client's claims about the authority (X-Forwarded-Host, Forwarded ...) are dropped, not
        # forwarded: the origin must see the one authority the proxy stands for. (In a part the
        # same fields reject the batch, since a part's fields are all its own, MB-PART-8.)
        passed = end_to_end(request.headers, drop=_envelope.AUTHORITY_FIELDS)
        headers = [("Host", self.config.upstream.authority), *passed]
        headers.append(("Via", VIA_VALUE))
        if body or request.method in _CONTENT_METHODS:
            headers.append(("Content-Length", str(len(body))))
        forwarded = UpstreamRequest(request.method, target, headers, body)
        stack = contextlib.AsyncExitStack()
        try:
            connection = await stack.enter_async_context(self.pool.connection())
            machine = connection.write(forwarded)
            await connection.flush()
            async with asyncio.timeout(self.config.subrequest_timeout):
                head = await connection.read_head(machine)
        except TimeoutError:
            await stack.aclose()
            return problem_response(
                504,
                "gateway-timeout",
                f"the origin did not answer within {self.config.subrequest_timeout:g} s",
            )
        except UpstreamError as exc:
            await stack.aclose()
            return problem_response(502, "bad-gateway", str(exc))
        except BaseException:
            await stack.aclose()
            raise
        raw = list(head.headers)
        fields = end_to_end(raw, drop=_CONNECTION_OWNED)
        length = next((v for n, v in raw if n.lower() == "content-length"), None)
        if length is not None:
            fields.append(("Content-Length", length))
        response = Response(head.status, fields)
        if request.method == "HEAD" or head.status in (204, 304):
            try:
                async for _ in self._timed(connection, machine):
                    pass
            finally:
                await stack.aclose()
            return response
        response.body = self._relay(connection, machine, stack)
        return response

    async def _timed(
        self, connection: UpstreamConnection, machine: h11.Connection
    ) -> AsyncIterator[bytes]:
        chunks = connection.read_body(machine)
        while True:
            try:
                async with asyncio.timeout(self.config.subrequest_timeout):
                    chunk = await anext(chunks)
            except StopAsyncIteration:
                return
            except TimeoutError:
                connection.close()
                raise UpstreamError("the origin stopped sending the response content") from None
            yield chunk

    async def _relay(
        self,
        connection: UpstreamConnection,
        machine: h11.Connection,
        stack: contextlib.AsyncExitStack,
    ) -> AsyncIterator[bytes]:
        """The origin's content as it arrives; a failure mid-way cuts the client's response."""
        complete = False
        try:
            async for chunk in self._timed(connection, machine):
                yield chunk
            complete = True
        except UpstreamError as exc:
            # The origin's fault: the host cuts the client's response and logs one line.
            complete = True  # said by ResponseCut, not again below
            connection.close()
            raise ResponseCut(f"the origin's response ended early: {exc}") from exc
        finally:
            if not complete:
                connection.close()
                _log.warning("pass-through response from the origin ended early")
            await stack.aclose()
