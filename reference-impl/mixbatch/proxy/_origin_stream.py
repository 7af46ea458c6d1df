"""The byte stream of one upstream connection, which notices when the origin speaks out of turn.

HTTP/1.1 carries no request identifier: on a persistent connection the next response answers
the next request (RFC 9112 §9.3.2: responses in "the same order that the requests were
received"). An origin may therefore send octets only while a request of ours is waiting for
them. Octets, or a close, that arrive while the connection sits idle in the pool are a response
to no request (or the end of the connection); were the connection used again, they would answer
the next client's request, and that client's answer would go to the one after. So an ``OriginStream`` that is ``parked`` closes itself at the first octet or end of
input, and ``unpark`` reports whether it is still fit to carry a request.

asyncio's ``StreamReader`` offers no way to ask whether anything arrived, hence this protocol.
Reading is flow-controlled as ``StreamReader`` does it: past ``HIGH_WATER`` unread octets the
transport stops reading until ``receive`` takes them. Writing is the transport's alone: each
request is written whole and the transport sends it while its answer is awaited, so an origin
that stops reading costs a timeout, never a stall in a write.
"""

from __future__ import annotations

import asyncio
import contextlib

__all__ = ["HIGH_WATER", "OriginStream"]

#: Unread octets from the origin held before the transport stops reading (as StreamReader's
#: default: twice its 64 KiB limit).
HIGH_WATER = 128 * 1024


class OriginStream(asyncio.Protocol):
    """One upstream TCP connection: buffered input, output through the transport, an idle watch."""

    def __init__(self) -> None:
        self._transport: asyncio.Transport | None = None
        self._buffer = bytearray()
        self._ended = False
        self._reading_paused = False
        self._data_waiter: asyncio.Future[None] | None = None
        self._parked = False
        #: True once the origin sent octets while no request was waiting for them.
        self.spoke_out_of_turn = False

    # -- asyncio.Protocol callbacks -----------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport

    def data_received(self, data: bytes) -> None:
        if self._parked:
            # Nobody asked: whatever this is, it must never be read as an answer.
            self.spoke_out_of_turn = True
            self.close()
            return
        self._buffer += data
        if len(self._buffer) > HIGH_WATER and not self._reading_paused:
            self._reading_paused = True
            if self._transport is not None:
                self._transport.pause_reading()
        self._wake()

    def eof_received(self) -> bool:
        self._ended = True
        self._wake()
        return False  # the transport closes itself; we never write after the origin's EOF

    def connection_lost(self, exc: Exception | None) -> None:
        self._ended = True
        self._wake()

    # -- the pool's view ----------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        """True once the origin ended its side, or the connection is closing or gone."""
        return self._ended or self._transport is None or self._transport.is_closing()

    @property
    def buffered(self) -> int:
        """Octets received from the origin and not yet taken by ``receive``."""
        return len(self._buffer)

    @property
    def unsent(self) -> int:
        """Octets written and still waiting in the transport to go out."""
        return 0 if self._transport is None else self._transport.get_write_buffer_size()

    def park(self) -> None:
        """Idle from now on: any octet or end of input from the origin closes the connection."""
        self._parked = True

    def unpark(self) -> bool:
        """Leave the idle state; True when nothing arrived meanwhile and the connection is open."""
        self._parked = False
        return not self.spoke_out_of_turn and not self._buffer and not self.closed

    # -- reading and writing ------------------------------------------------------------------

    def _wake(self) -> None:
        waiter = self._data_waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def receive(self) -> bytes:
        """Every octet received so far, waiting for at least one; ``b""`` at end of input."""
        while not self._buffer and not self._ended:
            self._data_waiter = asyncio.get_running_loop().create_future()
            try:
                await self._data_waiter
            finally:
                self._data_waiter = None
        data = bytes(self._buffer)
        self._buffer.clear()
        if self._reading_paused:
            self._reading_paused = False
            if self._transport is not None and not self._transport.is_closing():
                self._transport.resume_reading()
        return data

    def write(self, data: bytes) -> None:
        """Hand ``data`` to the transport, which sends it as the origin reads; a request is
        already whole in memory when written, so there is nothing to gain by waiting here."""
        if self._transport is not None and not self._transport.is_closing():
            self._transport.write(data)

    def close(self) -> None:
        """Close now: unsent octets are dropped (``abort``), since no answer to them is wanted
        and an origin that stopped reading would otherwise hold the socket open for ever."""
        if self._transport is not None:
            with contextlib.suppress(Exception):
                if self._transport.get_write_buffer_size():
                    self._transport.abort()
                else:
                    self._transport.close()
