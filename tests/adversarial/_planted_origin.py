"""A planted origin for the proxy: plain HTTP/1.1 that misbehaves on request, by path.

Every request names a nonce in its path (``/{fault}/{nonce}``), and every answer the origin means
to give carries that nonce as its body and in ``X-Nonce``, so a client can tell whether the answer
it got belongs to its own request. The faults, by the first path segment:

    ok              200 with the nonce
    stall           never answers (the connection stays open)
    early-close     closes the connection without answering
    garbage         octets that are no HTTP response, then close
    extra           the answer, then a second, forged answer nobody asked for
    body-after-204  204, then octets after it (a forged answer) as if it had content
    interim         100 and 103 interim answers, then the answer
    short-body      Content-Length 100 and ten octets, then close

Requests are read one after another per connection (pipelined ones wait their turn), with a
small hand-written parser: the origin must be able to write what no HTTP library would.
"""

from __future__ import annotations

import asyncio
import contextlib

__all__ = ["FORGED", "PlantedOrigin"]

#: The marker in every answer nobody asked for.
FORGED = b"FORGED-ANSWER"
_FORGED_RESPONSE = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nX-Nonce: forged\r\n\r\n%s" % (
    len(FORGED),
    FORGED,
)
#: Seconds a stalled request is held before the origin gives up on it.
STALL = 30.0


def _answer(nonce: bytes, status: bytes = b"200 OK") -> bytes:
    return (
        b"HTTP/1.1 "
        + status
        + b"\r\nContent-Type: text/plain\r\nX-Nonce: "
        + nonce
        + b"\r\nContent-Length: %d\r\n\r\n" % len(nonce)
        + nonce
    )


class PlantedOrigin:
    """``await start()``, then ``url``; ``close()`` ends it and every connection."""

    def __init__(self) -> None:
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self.port = 0
        self.seen: list[str] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for writer in list(self._writers):
            writer.close()
        if self._server is not None:
            await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.split(b"\r\n")
                target = lines[0].split(b" ")[1] if len(lines[0].split(b" ")) == 3 else b"/"
                length = 0
                for line in lines[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value.strip() or b"0")
                if length:
                    await reader.readexactly(length)
                self.seen.append(target.decode("latin-1"))
                if not await self._respond(target, writer):
                    break
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
            pass
        finally:
            self._writers.discard(writer)
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()

    async def _respond(self, target: bytes, writer: asyncio.StreamWriter) -> bool:
        """Answer one request; ``False`` ends the connection."""
        _, fault, nonce = [*target.split(b"/", 2), b"", b""][:3]
        nonce = nonce or b"none"
        if fault == b"stall":
            await asyncio.sleep(STALL)
            return False
        if fault == b"early-close":
            return False
        if fault == b"garbage":
            writer.write(b"\x00\xffthis is no HTTP response\r\n\r\n" + nonce)
            await writer.drain()
            return False
        if fault == b"extra":
            writer.write(_answer(nonce) + _FORGED_RESPONSE)
        elif fault == b"body-after-204":
            writer.write(
                b"HTTP/1.1 204 No Content\r\nX-Nonce: " + nonce + b"\r\n\r\n" + _FORGED_RESPONSE
            )
        elif fault == b"interim":
            writer.write(
                b"HTTP/1.1 100 Continue\r\n\r\n"
                b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"
                + _answer(nonce)
            )
        elif fault == b"short-body":
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + nonce[:10])
            await writer.drain()
            return False
        else:
            writer.write(_answer(nonce))
        await writer.drain()
        return True
