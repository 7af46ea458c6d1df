"""The asyncio client: ``AsyncBatchClient`` over asyncio streams, interpreting engine operations.

The twin of ``_sync``: the same ``BatchRun`` operations, performed with ``await``. Streaming is
an ``async for`` over ``AsyncResponseStream``; the result is available once it is exhausted.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from types import TracebackType

from ._engine import (
    BatchOptions,
    BatchRun,
    Emit,
    Endpoint,
    EndpointState,
    ReadBody,
    ReceiveHead,
    Send,
    Sleep,
)
from ._errors import ConnectionLost, TransportError
from ._http1 import End, Head, Http1Connection, HttpRequest
from ._model import (
    Batch,
    BatchResult,
    HeaderInput,
    SubRequest,
    SubResponse,
    header_pairs,
    requests_of,
)
from ._retry import RetryPolicy
from ._sync import TIMEOUT

__all__ = ["AsyncBatchClient", "AsyncResponseStream", "StreamTransport", "drive_async"]

_READ_SIZE = 64 * 1024


class StreamTransport:
    """One keep-alive HTTP/1.1 connection over asyncio streams, reopened when closed."""

    def __init__(self, endpoint: Endpoint, timeout: float = TIMEOUT) -> None:
        self._endpoint = endpoint
        self._timeout = timeout
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._conn: Http1Connection | None = None
        self.connections_opened = 0

    async def _open(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, Http1Connection]:
        await self.aclose()
        endpoint = self._endpoint
        context = ssl.create_default_context() if endpoint.scheme == "https" else None
        try:
            async with asyncio.timeout(self._timeout):
                reader, writer = await asyncio.open_connection(
                    endpoint.host, endpoint.port, ssl=context
                )
        except (OSError, TimeoutError) as exc:
            raise TransportError(f"cannot connect to {endpoint.authority}: {exc}") from exc
        conn = Http1Connection(endpoint.authority)
        self._reader, self._writer, self._conn = reader, writer, conn
        self.connections_opened += 1
        return reader, writer, conn

    async def send(self, requests: tuple[HttpRequest, ...]) -> None:
        reader, writer, conn = self._reader, self._writer, self._conn
        if (
            reader is None
            or writer is None
            or conn is None
            or not conn.keep_alive
            or (conn.outstanding == 0 and reader.at_eof())
        ):
            reader, writer, conn = await self._open()
        try:
            writer.write(conn.send(list(requests)))
            async with asyncio.timeout(self._timeout):
                await writer.drain()
        except (OSError, TimeoutError) as exc:
            await self.aclose()
            raise ConnectionLost(f"writing the request failed: {exc}") from exc

    async def _event(self) -> Head | bytes | End:
        reader, conn = self._reader, self._conn
        if reader is None or conn is None:
            raise ConnectionLost("the connection is closed")
        while True:
            event = conn.next_event()
            if isinstance(event, Head | bytes | End):
                return event
            try:
                async with asyncio.timeout(self._timeout):
                    data = await reader.read(_READ_SIZE)
            except (OSError, TimeoutError) as exc:
                await self.aclose()
                raise ConnectionLost(f"reading the response failed: {exc}") from exc
            conn.receive_data(data)

    async def receive_head(self) -> Head:
        event = await self._event()
        if not isinstance(event, Head):  # pragma: no cover - h11 orders its events
            raise ConnectionLost(f"expected a response head, got {event!r}")
        return event

    async def read_body(self) -> bytes:
        event = await self._event()
        if isinstance(event, End):
            if self._conn is not None and not self._conn.keep_alive:
                await self.aclose()
            return b""
        if isinstance(event, Head):  # pragma: no cover - h11 orders its events
            raise ConnectionLost("a second response head inside a body")
        return event

    async def aclose(self) -> None:
        writer = self._writer
        self._reader, self._writer, self._conn = None, None, None
        if writer is not None:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()


async def drive_async(
    run: BatchRun, transport: StreamTransport, sleep: Callable[[float], Awaitable[None]]
) -> AsyncIterator[SubResponse]:
    """Perform the operations ``run`` asks for; yield each sub-response it emits."""
    ops = run.ops()
    value: object = None
    error: ConnectionLost | None = None
    finished = False
    try:
        while True:
            try:
                op = ops.throw(error) if error is not None else ops.send(value)
            except StopIteration:
                finished = True
                return
            value, error = None, None
            try:
                if isinstance(op, Emit):
                    yield op.response
                elif isinstance(op, Send):
                    await transport.send(op.requests)
                elif isinstance(op, ReceiveHead):
                    value = await transport.receive_head()
                elif isinstance(op, ReadBody):
                    value = await transport.read_body()
                elif isinstance(op, Sleep):
                    await sleep(op.seconds)
            except ConnectionLost as exc:
                error = exc
    finally:
        if not finished:
            await transport.aclose()
            ops.close()


class AsyncResponseStream:
    """Sub-responses in request order as they arrive (``async for``); ``result`` at the end."""

    def __init__(self, run: BatchRun, responses: AsyncIterator[SubResponse]) -> None:
        self._run = run
        self._responses = responses

    def __aiter__(self) -> AsyncIterator[SubResponse]:
        return self

    async def __anext__(self) -> SubResponse:
        return await anext(self._responses)

    @property
    def result(self) -> BatchResult:
        if self._run.result is None:
            raise RuntimeError("the stream has not been read to its end")
        return self._run.result

    async def aclose(self) -> None:
        aclose = getattr(self._responses, "aclose", None)
        if aclose is not None:
            await aclose()

    async def __aenter__(self) -> AsyncResponseStream:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()


class AsyncBatchClient:
    """The asyncio twin of ``BatchClient``; the same arguments and results."""

    def __init__(
        self,
        url: str,
        *,
        headers: HeaderInput = None,
        timeout: float = TIMEOUT,
        retry: RetryPolicy | None = None,
        discover: bool = True,
        pipeline: bool = True,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.endpoint = Endpoint.from_url(url)
        self.state = EndpointState()
        self.transport = StreamTransport(self.endpoint, timeout)
        self._headers = header_pairs(headers)
        self._retry = retry or RetryPolicy()
        self._discover = discover
        self._pipeline = pipeline
        self._sleep = sleep

    def batch(self) -> Batch:
        return Batch()

    def stream(
        self,
        batch: Batch | list[SubRequest],
        *,
        stop_on_error: bool = False,
        atomic: bool = False,
        headers: HeaderInput = None,
    ) -> AsyncResponseStream:
        """Send ``batch``; ``async for`` over the result gets each sub-response as it arrives."""
        options = BatchOptions(
            stop_on_error,
            atomic,
            self._headers + header_pairs(headers),
            self._discover,
            self._pipeline,
            references=isinstance(batch, Batch) and batch.references,
        )
        run = BatchRun(self.endpoint, self.state, requests_of(batch), options, self._retry)
        return AsyncResponseStream(run, drive_async(run, self.transport, self._sleep))

    async def send(
        self,
        batch: Batch | list[SubRequest],
        *,
        stop_on_error: bool = False,
        atomic: bool = False,
        headers: HeaderInput = None,
    ) -> BatchResult:
        """Send ``batch`` and return every sub-response, in order."""
        stream = self.stream(batch, stop_on_error=stop_on_error, atomic=atomic, headers=headers)
        async for _ in stream:
            pass
        return stream.result

    async def aclose(self) -> None:
        await self.transport.aclose()

    async def __aenter__(self) -> AsyncBatchClient:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()
