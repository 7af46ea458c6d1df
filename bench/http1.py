"""A lean blocking HTTP/1.1 client: serial keep-alive, pipelined, and one mixbatch batch.

The three methods of the thesis (ch. 6) share this one client so that a ratio between them
measures the protocol, not three client libraries. It speaks just enough HTTP/1.1 for the
benchmark's servers: a status line, header fields, and a body framed by Content-Length or by
chunked coding. Every response is checked (status 200 and the expected body length), so a fast
wrong answer cannot pass as a fast answer.

- ``serial``: one request, wait for its response, next request, on one keep-alive connection.
- ``pipelined``: a writer thread sends every request back to back while this thread reads the
  responses in order (one thread could deadlock once both socket buffers fill).
- ``batch``: one ``POST /batch`` built with ``BatchWriter``; the chunked response is fed to a
  ``BatchParser`` as it arrives, and the time to the first complete part is noted.

Each returns a ``Transfer``: wall time, counts and octets on the wire in each direction.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from mixbatch.codec import (
    BatchParser,
    BatchWriter,
    Limits,
    PartData,
    PartEnd,
    ResponsePartStart,
    Role,
    parse_batch_content_type,
)

__all__ = [
    "BenchError",
    "Reader",
    "Transfer",
    "batch",
    "batch_body",
    "batch_of_gets",
    "ping",
    "pipelined",
    "read_body",
    "read_head",
    "serial",
    "serial_gets",
]

#: Socket read buffer; large enough that reading a 50 kB body is a few system calls.
READ_BUFFER = 256 * 1024
#: Seconds any single socket operation may block before the run is abandoned.
SOCKET_TIMEOUT = 120.0


class BenchError(RuntimeError):
    """A server answered wrongly (status, length, framing): the run does not count."""


@dataclass(frozen=True, slots=True)
class Transfer:
    """One timed run of one method."""

    seconds: float
    requests: int
    payload_bytes: int
    bytes_in: int
    bytes_out: int
    first_part_seconds: float | None = None


class Reader:
    """A buffered socket reader that counts the octets it hands out."""

    def __init__(self, sock: socket.socket) -> None:
        self._file = sock.makefile("rb", buffering=READ_BUFFER)
        self.count = 0

    def readline(self) -> bytes:
        line = self._file.readline(65537)
        if not line.endswith(b"\n"):
            raise BenchError(f"connection closed or line too long: {line[:80]!r}")
        self.count += len(line)
        return line

    def read(self, n: int) -> bytes:
        data = self._file.read(n)
        if len(data) != n:
            raise BenchError(f"connection closed after {len(data)} of {n} octets")
        self.count += n
        return data

    def close(self) -> None:
        self._file.close()


def _connect(address: tuple[str, int]) -> socket.socket:
    sock = socket.create_connection(address, timeout=SOCKET_TIMEOUT)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def _get(path: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: bench\r\n\r\n".encode("ascii")


def read_head(reader: Reader) -> tuple[int, dict[str, str]]:
    status_line = reader.readline()
    parts = status_line.split(None, 2)
    if len(parts) < 2 or not parts[0].startswith(b"HTTP/1."):
        raise BenchError(f"bad status line {status_line!r}")
    headers: dict[str, str] = {}
    while (line := reader.readline()) not in (b"\r\n", b"\n"):
        name, _, value = line.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(parts[1]), headers


def read_body(
    reader: Reader, headers: dict[str, str], sink: Callable[[bytes], None] | None = None
) -> int:
    """Read one body (chunked or Content-Length), handing each piece to ``sink``; its length."""
    total = 0
    if "chunked" in headers.get("transfer-encoding", "").lower():
        while True:
            size = int(reader.readline().split(b";", 1)[0], 16)
            if size == 0:
                while reader.readline() not in (b"\r\n", b"\n"):
                    pass  # trailer fields
                return total
            data = reader.read(size)
            total += size
            if sink is not None:
                sink(data)
            reader.read(2)
    if "content-length" in headers:
        length = int(headers["content-length"])
        if length:
            data = reader.read(length)
            if sink is not None:
                sink(data)
        return length
    raise BenchError(f"response without framing: {headers!r}")


def _expect(status: int, body_length: int, want_length: int, what: str) -> None:
    if status != 200 or body_length != want_length:
        raise BenchError(f"{what}: status {status}, {body_length} octets (want 200, {want_length})")


def ping(address: tuple[str, int], path: str, count: int) -> list[float]:
    """Seconds for each of ``count`` GETs of ``path`` in turn on one keep-alive connection."""
    sock = _connect(address)
    reader = Reader(sock)
    times: list[float] = []
    try:
        for _ in range(count):
            started = time.perf_counter()
            sock.sendall(_get(path))
            status, headers = read_head(reader)
            read_body(reader, headers)
            times.append(time.perf_counter() - started)
            if status != 200:
                raise BenchError(f"GET {path}: status {status}")
        return times
    finally:
        reader.close()
        sock.close()


def serial(address: tuple[str, int], paths: Sequence[str], lengths: Sequence[int]) -> Transfer:
    """One request at a time on one keep-alive connection."""
    sock = _connect(address)
    reader = Reader(sock)
    out = 0
    payload = 0
    try:
        started = time.perf_counter()
        for path, want in zip(paths, lengths, strict=True):
            request = _get(path)
            sock.sendall(request)
            out += len(request)
            status, headers = read_head(reader)
            _expect(status, read_body(reader, headers), want, f"GET {path}")
            payload += want
        elapsed = time.perf_counter() - started
        return Transfer(elapsed, len(paths), payload, reader.count, out)
    finally:
        reader.close()
        sock.close()


def _send_in_background(sock: socket.socket, data: bytes) -> threading.Thread:
    errors: list[BaseException] = []

    def send() -> None:
        try:
            sock.sendall(data)
        except OSError as exc:  # the reader reports the consequence
            errors.append(exc)

    thread = threading.Thread(target=send, daemon=True)
    thread.start()
    return thread


def pipelined(address: tuple[str, int], paths: Sequence[str], lengths: Sequence[int]) -> Transfer:
    """Every request sent back to back; responses read in order as they come."""
    sock = _connect(address)
    reader = Reader(sock)
    wire = b"".join(_get(p) for p in paths)
    payload = 0
    try:
        started = time.perf_counter()
        writer = _send_in_background(sock, wire)
        for path, want in zip(paths, lengths, strict=True):
            status, headers = read_head(reader)
            _expect(status, read_body(reader, headers), want, f"pipelined GET {path}")
            payload += want
        elapsed = time.perf_counter() - started
        writer.join(SOCKET_TIMEOUT)
        return Transfer(elapsed, len(paths), payload, reader.count, len(wire))
    finally:
        reader.close()
        sock.close()


def batch_body(paths: Sequence[str]) -> tuple[str, bytes]:
    """The Content-Type and content of a batch of GETs for ``paths``."""
    writer = BatchWriter()
    parts = [writer.request_part("GET", path) for path in paths]
    parts.append(writer.close())
    return writer.content_type, b"".join(parts)


def batch(
    address: tuple[str, int],
    paths: Sequence[str],
    lengths: Sequence[int],
    *,
    prepared: tuple[str, bytes] | None = None,
    batch_path: str = "/batch",
) -> Transfer:
    """One batch of GETs; the response parsed part by part as it streams in."""
    content_type, body = prepared or batch_body(paths)
    head = (
        f"POST {batch_path} HTTP/1.1\r\nHost: bench\r\nContent-Type: {content_type}\r\n"
        f"Content-Length: {len(body)}\r\nAccept: multipart/mixed\r\n\r\n"
    ).encode("ascii")
    sock = _connect(address)
    reader = Reader(sock)
    try:
        started = time.perf_counter()
        writer = _send_in_background(sock, head + body)
        status, headers = read_head(reader)
        if status != 200:
            raise BenchError(f"batch: status {status} {headers!r}")
        limits = Limits(
            max_parts=max(len(paths), 1),
            max_part_bytes=max([*lengths, 1]) + 65536,
            max_batch_bytes=max(sum(lengths) * 2 + 1024 * len(paths), 1 << 20),
        )
        parser = BatchParser(
            parse_batch_content_type(headers.get("content-type", "")).encode("ascii"),
            Role.RESPONSE,
            limits,
        )
        sizes = [0] * len(paths)
        statuses = [0] * len(paths)
        first_part: list[float] = []

        def feed(data: bytes) -> None:
            for event in parser.feed(data):
                if type(event) is PartData:
                    sizes[event.index] += len(event.data)
                elif type(event) is ResponsePartStart:
                    statuses[event.index] = event.status or 0
                elif type(event) is PartEnd and not first_part:
                    first_part.append(time.perf_counter() - started)

        read_body(reader, headers, feed)
        parser.feed_eof()
        elapsed = time.perf_counter() - started
        writer.join(SOCKET_TIMEOUT)
        for index, (path, want) in enumerate(zip(paths, lengths, strict=True)):
            _expect(statuses[index], sizes[index], want, f"part {index} GET {path}")
        return Transfer(
            elapsed,
            len(paths),
            sum(lengths),
            reader.count,
            len(head) + len(body),
            first_part[0] if first_part else None,
        )
    finally:
        reader.close()
        sock.close()


def batch_of_gets(address: tuple[str, int], n: int, size: int) -> Transfer:
    """One batch of n GETs of ``/random/{size}``: a picklable workload for ``bench.profiling``."""
    paths = [f"/random/{size}"] * n
    return batch(address, paths, [size] * n)


def serial_gets(address: tuple[str, int], n: int, size: int) -> Transfer:
    """n serial GETs of ``/random/{size}``: a picklable workload for ``bench.profiling``."""
    paths = [f"/random/{size}"] * n
    return serial(address, paths, [size] * n)
