"""Test helpers: a server on a background event loop, and an exact-bytes HTTP client.

The server runs on its own loop in a daemon thread, so tests stay plain synchronous code and
talk to it over real loopback sockets. The client speaks through h11 (or raw bytes when a test
needs to send something h11 would refuse), and every socket has a timeout so no test can hang.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Callable, Coroutine, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import h11

from mixbatch.codec import (
    BatchParser,
    BatchWriter,
    PartData,
    PartEnd,
    ResponsePartStart,
    Role,
    parse_batch_content_type,
)
from mixbatch.server import App, Server, ServerConfig, build_app

T = TypeVar("T")

#: Every socket operation and cross-thread wait in the tests gives up after this many seconds.
IO_TIMEOUT = 10.0
#: A fixed clock (2023-11-14T22:13:20Z) so that Last-Modified values are reproducible.
FIXED_NOW = 1_700_000_000.0


def fixed_clock() -> float:
    return FIXED_NOW


class LoopThread:
    """An asyncio loop running in a daemon thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = IO_TIMEOUT) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        async def _cancel_rest() -> None:
            current = asyncio.current_task()
            rest = [t for t in asyncio.all_tasks() if t is not current]
            for task in rest:
                task.cancel()
            await asyncio.gather(*rest, return_exceptions=True)

        self.run(_cancel_rest())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(IO_TIMEOUT)
        self.loop.close()


@dataclass
class RunningServer:
    """A started server and the application behind it."""

    loop: LoopThread
    server: Server
    app: App
    config: ServerConfig
    stopped: bool = False

    @property
    def address(self) -> tuple[str, int]:
        return self.server.host, self.server.port

    @property
    def url(self) -> str:
        return self.server.url

    def connect(self) -> socket.socket:
        sock = socket.create_connection(self.address, timeout=IO_TIMEOUT)
        sock.settimeout(IO_TIMEOUT)
        return sock

    def client(self) -> HttpClient:
        return HttpClient(self.connect())

    def connection_count(self) -> int:
        async def count() -> int:
            return len(self.server.connections)

        return self.loop.run(count())

    def task_names(self) -> list[str]:
        async def names() -> list[str]:
            current = asyncio.current_task()
            return sorted(t.get_name() for t in asyncio.all_tasks() if t is not current)

        return self.loop.run(names())

    def stop(self, grace: float = 5.0) -> None:
        if not self.stopped:
            self.stopped = True
            self.loop.run(self.server.shutdown(grace), timeout=grace + IO_TIMEOUT)


def start_server(
    loop: LoopThread,
    config: ServerConfig | None = None,
    clock: Callable[[], float] = fixed_clock,
) -> RunningServer:
    config = config or ServerConfig(port=0)

    async def start() -> RunningServer:
        app = build_app(config, clock)
        server = Server(app, config)
        await server.start()
        return RunningServer(loop, server, app, config)

    return loop.run(start())


@dataclass
class Reply:
    """One response as a client saw it."""

    status: int
    headers: list[tuple[str, str]]
    body: bytes
    trailers: list[tuple[str, str]] = field(default_factory=list)
    reason: str = ""

    def header(self, name: str) -> str | None:
        lname = name.lower()
        return next((v for k, v in self.headers if k.lower() == lname), None)

    def header_all(self, name: str) -> list[str]:
        lname = name.lower()
        return [v for k, v in self.headers if k.lower() == lname]


def _text(pairs: Iterable[tuple[bytes, bytes]]) -> list[tuple[str, str]]:
    return [(k.decode("latin-1"), v.decode("latin-1")) for k, v in pairs]


class HttpClient:
    """A blocking HTTP/1.1 client over one socket, built on h11."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.conn = h11.Connection(h11.CLIENT)

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> HttpClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def send(
        self,
        method: str,
        target: str,
        headers: Sequence[tuple[str, str]] = (),
        body: bytes = b"",
    ) -> None:
        fields = list(headers)
        if not any(k.lower() == "host" for k, _ in fields):
            fields.insert(0, ("Host", "test"))
        names = {k.lower() for k, _ in fields}
        if body and "content-length" not in names and "transfer-encoding" not in names:
            fields.append(("Content-Length", str(len(body))))
        data = self.conn.send(h11.Request(method=method, target=target, headers=fields)) or b""
        if body:
            data += self.conn.send(h11.Data(data=body)) or b""
        data += self.conn.send(h11.EndOfMessage()) or b""
        self.sock.sendall(data)

    def receive(self) -> Reply:
        head: h11.Response | None = None
        chunks: list[bytes] = []
        while True:
            event = self.conn.next_event()
            if event is h11.NEED_DATA:
                self.conn.receive_data(self.sock.recv(65536))
                continue
            if isinstance(event, h11.Response):
                head = event
            elif isinstance(event, h11.Data):
                chunks.append(bytes(event.data))
            elif isinstance(event, h11.EndOfMessage):
                assert head is not None
                reply = Reply(
                    head.status_code,
                    _text(head.headers.raw_items()),
                    b"".join(chunks),
                    _text(event.headers.raw_items()),
                    head.reason.decode("latin-1"),
                )
                if self.conn.our_state is h11.DONE and self.conn.their_state is h11.DONE:
                    self.conn.start_next_cycle()
                return reply
            elif isinstance(event, h11.ConnectionClosed):
                raise ConnectionError("server closed the connection before a response")

    def request(
        self,
        method: str,
        target: str,
        headers: Sequence[tuple[str, str]] = (),
        body: bytes = b"",
    ) -> Reply:
        self.send(method, target, headers, body)
        return self.receive()


def read_until_close(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    chunks = []
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


# -- batches -------------------------------------------------------------------------------

SubRequest = tuple[str, str, Sequence[tuple[str, str]], bytes]


def build_batch(parts: Iterable[SubRequest | tuple[str, str]]) -> tuple[str, bytes]:
    """(Content-Type, content) of a batch of ``(method, target[, fields, body])`` parts."""
    writer = BatchWriter()
    chunks = []
    for part in parts:
        method, target, *rest = part
        fields = rest[0] if rest else ()
        body = rest[1] if len(rest) > 1 else b""
        chunks.append(writer.request_part(method, target, fields, body))  # type: ignore[arg-type]
    chunks.append(writer.close())
    return writer.content_type, b"".join(chunks)


@dataclass
class ResponsePart:
    status: int | None
    outcome: str | None
    content_id: str | None
    fields: list[tuple[str, str]]
    body: bytes

    def header(self, name: str) -> str | None:
        lname = name.lower()
        return next((v for k, v in self.fields if k.lower() == lname), None)


def parse_batch(reply: Reply) -> list[ResponsePart]:
    """The parts of a multipart batch response, strictly parsed by the codec."""
    boundary = parse_batch_content_type(reply.header("Content-Type"))
    parser = BatchParser(boundary, Role.RESPONSE)
    events = parser.feed(reply.body) + parser.feed_eof()
    parts: list[ResponsePart] = []
    for event in events:
        if isinstance(event, ResponsePartStart):
            parts.append(
                ResponsePart(event.status, event.outcome, event.content_id, list(event.fields), b"")
            )
        elif isinstance(event, PartData):
            parts[-1].body += bytes(event.data)
        elif isinstance(event, PartEnd):
            pass
    return parts


def post_batch(
    client: HttpClient,
    parts: Iterable[SubRequest | tuple[str, str]],
    headers: Sequence[tuple[str, str]] = (),
    path: str = "/batch",
) -> Reply:
    content_type, body = build_batch(parts)
    return client.request("POST", path, [("Content-Type", content_type), *headers], body)
