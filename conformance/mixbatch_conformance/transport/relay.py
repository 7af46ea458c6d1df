"""A mutating relay: an HTTP/1.1 front for a real server that plants one named bug.

Theory of operation: the suite must prove it can fail, without depending on any server's
internals. The relay listens on loopback (asyncio + h11 on the client side), forwards each
request to the upstream server over the suite's raw-socket client, and answers the client
with the upstream response, after the active `Mutation` (see _mutations) has had the chance
to change the request on the way in and the response on the way out. With no mutation it
is transparent, which the self-test verifies before planting anything.

The relay runs its own event loop in a daemon thread so that synchronous checks can call it;
`start` returns its base URL and `stop` closes the listener and the loop. Responses are
re-framed with Content-Length (trailers are dropped); the multipart body inside is exactly
what the mutation produced.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass

import h11

from mixbatch_conformance.transport.http import Response, exchange, split_url

__all__ = ["Relay", "RelayRequest", "RelayResponse"]

HOP_FIELDS = {"connection", "keep-alive", "transfer-encoding", "content-length", "trailer", "te"}


@dataclass
class RelayRequest:
    """A request as the relay forwards it (mutable by a mutation)."""

    method: str
    target: str
    headers: list[tuple[str, str]]
    body: bytes

    def get(self, name: str) -> str | None:
        for n, v in self.headers:
            if n.lower() == name.lower():
                return v
        return None

    def to_bytes(self) -> bytes:
        lines = [f"{self.method} {self.target} HTTP/1.1"]
        lines += [f"{n}: {v}" for n, v in self.headers if n.lower() not in HOP_FIELDS]
        if self.body or self.method in ("POST", "PUT", "PATCH"):
            lines.append(f"Content-Length: {len(self.body)}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + self.body


@dataclass
class RelayResponse:
    """A response as the relay sends it back (mutable by a mutation)."""

    status: int
    headers: list[tuple[str, str]]
    body: bytes

    @classmethod
    def from_upstream(cls, resp: Response) -> RelayResponse:
        headers = [(n, v) for n, v in resp.headers if n.lower() not in HOP_FIELDS]
        return cls(resp.status, headers, resp.body)

    def get(self, name: str) -> str | None:
        for n, v in self.headers:
            if n.lower() == name.lower():
                return v
        return None

    def set(self, name: str, value: str | None) -> None:
        self.headers = [(n, v) for n, v in self.headers if n.lower() != name.lower()]
        if value is not None:
            self.headers.append((name, value))


class MutationLike:
    """The two hooks a mutation implements (see _mutations.Mutation)."""

    def request(self, req: RelayRequest) -> None:
        """Change the request before it is forwarded."""

    def response(self, req: RelayRequest, resp: RelayResponse) -> None:
        """Change the response before it is sent back."""


class Relay:
    """A loopback relay in front of `upstream`, applying `mutation` (None: transparent)."""

    def __init__(self, upstream: str, mutation: MutationLike | None = None) -> None:
        self.upstream_host, self.upstream_port, _ = split_url(upstream)
        self.mutation = mutation
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.Server | None = None
        self._thread: threading.Thread | None = None
        self.url = ""

    def start(self) -> str:
        ready = threading.Event()

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            asyncio.set_event_loop(loop)
            self._server = loop.run_until_complete(
                asyncio.start_server(self._serve, "127.0.0.1", 0)
            )
            port = self._server.sockets[0].getsockname()[1]
            self.url = f"http://127.0.0.1:{port}"
            ready.set()
            loop.run_forever()
            self._server.close()
            loop.run_until_complete(self._server.wait_closed())
            loop.close()

        self._thread = threading.Thread(target=run, name="mixbatch-relay", daemon=True)
        self._thread.start()
        if not ready.wait(10):
            raise RuntimeError("the relay did not start")
        return self.url

    def stop(self) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread is not None:
            self._thread.join(10)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = h11.Connection(h11.SERVER)
        try:
            while True:
                req = await self._read_request(conn, reader)
                if req is None:
                    break
                out = await self._forward(req)
                writer.write(self._frame(conn, req, out))
                await writer.drain()
                if conn.our_state is h11.MUST_CLOSE or conn.their_state is h11.MUST_CLOSE:
                    break
                conn.start_next_cycle()
        except (h11.RemoteProtocolError, ConnectionError):
            pass
        finally:
            writer.close()

    async def _read_request(
        self, conn: h11.Connection, reader: asyncio.StreamReader
    ) -> RelayRequest | None:
        head: h11.Request | None = None
        body = bytearray()
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                data = await reader.read(65536)
                conn.receive_data(data)
                if not data and head is None:
                    return None
                continue
            if isinstance(event, h11.Request):
                head = event
            elif isinstance(event, h11.Data):
                body += event.data
            elif isinstance(event, h11.EndOfMessage):
                assert head is not None
                headers = [
                    (n.decode("latin-1"), v.decode("latin-1")) for n, v in head.headers.raw_items()
                ]
                return RelayRequest(
                    head.method.decode("ascii"), head.target.decode("latin-1"), headers, bytes(body)
                )
            elif isinstance(event, h11.ConnectionClosed):
                return None

    async def _forward(self, req: RelayRequest) -> RelayResponse:
        if self.mutation is not None:
            self.mutation.request(req)
        ex = await asyncio.to_thread(
            exchange, self.upstream_host, self.upstream_port, req.to_bytes(), 30.0
        )
        if ex.response is None:
            return RelayResponse(502, [("Content-Type", "text/plain")], b"relay: upstream failed")
        resp = RelayResponse.from_upstream(ex.response)
        if self.mutation is not None:
            self.mutation.response(req, resp)
        return resp

    @staticmethod
    def _frame(conn: h11.Connection, req: RelayRequest, resp: RelayResponse) -> bytes:
        no_body = resp.status in (204, 304) or req.method == "HEAD" or resp.status < 200
        headers = [(n, v) for n, v in resp.headers if n.lower() not in HOP_FIELDS]
        if not no_body:
            headers.append(("Content-Length", str(len(resp.body))))
        out = conn.send(h11.Response(status_code=resp.status, headers=headers)) or b""
        if not no_body and resp.body:
            out += conn.send(h11.Data(data=resp.body)) or b""
        out += conn.send(h11.EndOfMessage()) or b""
        return out
