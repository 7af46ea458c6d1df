"""An origin that breaks HTTP/1.1 message framing on purpose, to test the proxy's upstream pool.

Every honest answer echoes the request line (``GET /ok?nonce=... ``) as its content, so a test can
tell which request a response belongs to: a client that sends a fresh nonce must get exactly its
own request line back, or a failure the proxy wrote itself (502, 504), and nothing else. The
misbehaviours, chosen by the request's path:

    /ok             the honest answer
    /extra          the answer, then a second, unsolicited response (``INJECTED``)
    /no-content     204, then a response where no content may be
    /not-modified   304, likewise
    /head-body      to HEAD: Content-Length and then content (an injected response) anyway
    /short-length   a Content-Length shorter than the content sent; the rest is a response
    /long-length    a Content-Length longer than the content sent, then silence
    /interim        100 Continue and 103 Early Hints before the answer (legal, reusable)
    /late           the answer, and ``LATE_S`` later an unsolicited response on the idle line
    /cut            part of the content, then a close
    /smuggle        the answer as soon as the head arrives; the request's content is then read
                    as the next request (a client can hide a request there) and answered too
    /close          the answer with Connection: close, then a response anyway
    /early          the answer as soon as the head arrives, then the content read and dropped
                    (legal, but the proxy cannot tell it from /smuggle: not reusable)
    /deaf           neither reads the content nor answers, until the origin stops

``EvilOrigin.connections`` counts TCP connections, so tests can see the pool drop poisoned ones.
``listen(small_receive_buffer=True)`` binds with a small receive buffer, so that a large request
content stays in the proxy's own write buffer while the origin is not reading it.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket

__all__ = ["INJECTED", "LATE_S", "RECEIVE_BUFFER", "EvilOrigin"]

#: The content of every response the origin sends that no request asked for.
INJECTED = b"INJECTED"
#: Seconds between the answer to /late and the response nobody asked for.
LATE_S = 0.05
#: The origin's socket receive buffer (the kernel may round it up).
RECEIVE_BUFFER = 4096
#: Seconds /deaf holds its connection at most, should the test never stop the origin.
DEAF_S = 10.0
_INJECTED_RESPONSE = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 8\r\n\r\n" + INJECTED
)


def _response(status: int, content: bytes, *fields: str, length: int | None = None) -> bytes:
    head = [f"HTTP/1.1 {status} Status", "Content-Type: text/plain", *fields]
    if status not in (204, 304):
        head.append(f"Content-Length: {len(content) if length is None else length}")
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + content


class EvilOrigin:
    """The per-connection handler for ``asyncio.start_server``."""

    def __init__(self) -> None:
        self.connections = 0
        self.requests: list[str] = []
        self.stopping = asyncio.Event()

    async def listen(self, *, small_receive_buffer: bool = False) -> asyncio.Server:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if small_receive_buffer:
            # A small window also splits small requests across segments, so that an answer
            # may leave before the rest of its request arrived: only for the tests that want it.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RECEIVE_BUFFER)
        sock.bind(("127.0.0.1", 0))
        return await asyncio.start_server(self.handle, sock=sock)

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        buffer = b""
        # Answers to requests that arrived together leave together, in one write: the octets a
        # misframed answer leaves behind reach the proxy with it, never a moment later.
        out = bytearray()

        async def flush() -> None:
            if out:
                writer.write(bytes(out))
                out.clear()
            await writer.drain()

        async def read() -> bytes:
            await flush()
            chunk = await reader.read(65536)
            if not chunk:
                raise ConnectionResetError
            return chunk

        try:
            while True:
                while b"\r\n\r\n" not in buffer:
                    buffer += await read()
                head, _, buffer = buffer.partition(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, target, _version = lines[0].split(" ", 2)
                self.requests.append(f"{method} {target}")
                length = 0
                for line in lines[1:]:
                    name, _, value = line.partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value.strip())
                path = target.partition("?")[0]
                echo = f"{method} {target}".encode("latin-1")
                if path == "/deaf":
                    await flush()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self.stopping.wait(), DEAF_S)
                    return
                if path == "/early":
                    out += _response(200, echo)
                    await flush()
                if path != "/smuggle":
                    while len(buffer) < length:
                        buffer += await read()
                    buffer = buffer[length:]
                if path == "/late":
                    out += _response(200, echo)
                    await flush()
                    await asyncio.sleep(LATE_S)
                    out += _INJECTED_RESPONSE
                elif path == "/cut":
                    out += _response(200, echo[:4], length=len(echo))
                    await flush()
                    return
                elif path != "/early":
                    out += _answer(method, path, echo)
        except (ConnectionError, ValueError):
            return
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()


def _answer(method: str, path: str, echo: bytes) -> bytes:
    """The octets the origin sends for one request to ``path`` (see the module's table)."""
    honest = _response(200, b"" if method == "HEAD" else echo, length=len(echo))
    if path == "/extra":
        return honest + _INJECTED_RESPONSE
    if path == "/no-content":
        return _response(204, b"") + _INJECTED_RESPONSE
    if path == "/not-modified":
        return _response(304, b"", 'ETag: "x"') + _INJECTED_RESPONSE
    if path == "/head-body" and method == "HEAD":
        return _response(200, _INJECTED_RESPONSE)
    if path == "/short-length":
        return _response(200, echo + _INJECTED_RESPONSE, length=len(echo))
    if path == "/long-length":
        return _response(200, echo, length=len(echo) + 20)
    if path == "/interim":
        return (
            b"HTTP/1.1 100 Continue\r\n\r\n"
            b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n" + honest
        )
    if path == "/close":
        return _response(200, echo, "Connection: close") + _INJECTED_RESPONSE
    return honest
