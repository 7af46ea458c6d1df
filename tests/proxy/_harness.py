"""Test plumbing: a proxy (and optionally the reference server) on a background event loop,
and a blocking client that sends batches and parses the answers with the codec.

The loop runs in a daemon thread so tests stay plain synchronous code talking over loopback
sockets. Every wait is bounded by ``IO_TIMEOUT``.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import h11
import httpx

from mixbatch.codec import (
    BatchParser,
    BatchWriter,
    PartData,
    ResponsePartStart,
    Role,
    parse_batch_content_type,
)
from mixbatch.proxy import ProxyConfig, ProxyServer, Upstream
from mixbatch.server import Server, ServerConfig, build_app

T = TypeVar("T")
IO_TIMEOUT = 20.0


class LoopThread:
    """An asyncio loop in a daemon thread; ``run`` executes a coroutine on it and waits."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = IO_TIMEOUT) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5)
        self.loop.close()


class RunningProxy:
    def __init__(self, loop: LoopThread, upstream: str, **options: Any) -> None:
        self._loop = loop
        config = ProxyConfig(Upstream.parse(upstream), port=0, **options)
        self.proxy = ProxyServer(config)

        async def start() -> None:
            await self.proxy.start()

        loop.run(start())
        self.url = self.proxy.url

    @property
    def pool_opened(self) -> int:
        return self.proxy.app.pool.opened

    def stop(self) -> None:
        self._loop.run(self.proxy.shutdown(grace=2.0))


class RunningReference:
    """The reference server, used as a plain origin."""

    def __init__(self, loop: LoopThread) -> None:
        self._loop = loop
        config = ServerConfig(port=0)
        self.server = Server(build_app(config), config)
        loop.run(self.server.start())
        self.url = self.server.url

    def stop(self) -> None:
        self._loop.run(self.server.shutdown(grace=2.0))


@dataclass
class Part:
    status: int | None
    outcome: str | None
    content_id: str | None
    fields: list[tuple[str, str]]
    body: bytes = b""

    def get(self, name: str) -> str | None:
        for key, value in self.fields:
            if key.lower() == name.lower():
                return value
        return None


@dataclass
class BatchAnswer:
    status: int
    headers: httpx.Headers
    parts: list[Part] = field(default_factory=list)
    body: bytes = b""


@dataclass(frozen=True)
class Sub:
    """One sub-request: method, Content-Id reference, fields, content."""

    method: str
    target: str
    fields: tuple[tuple[str, str], ...] = ()
    body: bytes = b""


def encode_batch(subs: Sequence[Sub]) -> tuple[str, bytes]:
    writer = BatchWriter()
    data = b"".join(writer.request_part(s.method, s.target, s.fields, s.body) for s in subs)
    return writer.content_type, data + writer.close()


def parse_parts(content_type: str, data: bytes) -> list[Part]:
    parser = BatchParser(parse_batch_content_type(content_type), Role.RESPONSE)
    parts: list[Part] = []
    for event in [*parser.feed(data), *parser.feed_eof()]:
        if isinstance(event, ResponsePartStart):
            parts.append(Part(event.status, event.outcome, event.content_id, list(event.fields)))
        elif isinstance(event, PartData):
            parts[-1].body += event.data
    return parts


def send_batch(
    url: str, subs: Sequence[Sub], headers: Sequence[tuple[str, str]] = (), path: str = "/batch"
) -> BatchAnswer:
    content_type, data = encode_batch(subs)
    response = httpx.post(
        url + path,
        content=data,
        headers=[("Content-Type", content_type), *headers],
        timeout=IO_TIMEOUT,
    )
    answer = BatchAnswer(response.status_code, response.headers, body=response.content)
    if response.status_code == 200:
        answer.parts = parse_parts(response.headers["content-type"], response.content)
    return answer


@dataclass
class RawAnswer:
    """What came back for exact request octets: the response (if any) and whether the peer
    closed the connection after it."""

    status: int | None
    headers: list[tuple[str, str]]
    body: bytes
    closed: bool

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.headers if k.lower() == name.lower()), None)

    @property
    def problem_type(self) -> str | None:
        kind = (self.header("Content-Type") or "").partition(";")[0].strip().lower()
        if kind != "application/problem+json":
            return None
        document = json.loads(self.body)
        return str(document["type"]) if isinstance(document, dict) else None


def raw_exchange(
    url: str, data: bytes, *, half_close: bool = False, linger: float = 1.0
) -> RawAnswer:
    """Send ``data`` as is, parse the first response with h11, then wait up to ``linger``
    seconds to see whether the peer closes. Every socket operation is bounded."""
    host, _, port = url.removeprefix("http://").rpartition(":")
    parser = h11.Connection(h11.CLIENT)
    # The parser needs a request of its own before it reads a response; this one is never sent.
    parser.send(h11.Request(method="POST", target="/", headers=[("Host", "x")]))
    answer = RawAnswer(None, [], b"", closed=False)
    deadline = time.monotonic() + IO_TIMEOUT
    with socket.create_connection((host, int(port)), timeout=IO_TIMEOUT) as sock:
        sock.sendall(data)
        if half_close:
            sock.shutdown(socket.SHUT_WR)
        while True:
            try:
                event = parser.next_event()
            except h11.RemoteProtocolError:
                answer.closed = True  # no (complete) response before the close
                return answer
            if event is h11.NEED_DATA:
                sock.settimeout(max(0.01, deadline - time.monotonic()))
                try:
                    parser.receive_data(sock.recv(65536))
                except ConnectionError:
                    parser.receive_data(b"")
                continue
            if isinstance(event, h11.Response):
                answer.status = event.status_code
                answer.headers = [(n.decode(), v.decode()) for n, v in event.headers.raw_items()]
            elif isinstance(event, h11.Data):
                answer.body += bytes(event.data)
            elif isinstance(event, h11.EndOfMessage | h11.ConnectionClosed):
                break
        sock.settimeout(linger)
        try:
            answer.closed = sock.recv(1) == b""
        except TimeoutError:
            answer.closed = False
        except ConnectionError:
            answer.closed = True
    return answer
