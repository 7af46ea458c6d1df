"""Servers that are not mixbatch servers, for the suite's first-run tests.

Each is small and bounded: a port that accepts and never answers, one that answers octets
that are not HTTP, a TLS terminator with a self-signed certificate in front of another
server, and `python -m http.server` / a Starlette app without batching as subprocesses.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import ipaddress
import os
import re
import socket
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

__all__ = [
    "GARBAGE",
    "answering",
    "falls_silent",
    "garbage_server",
    "http_server",
    "self_signed",
    "silent_server",
    "starlette_without_batching",
    "tls_front",
]

GARBAGE = b"\x00\x01garbage that is not HTTP\r\n\r\n"
#: Seconds a subprocess server may take to say where it listens.
START_S = 20.0


@contextlib.contextmanager
def _accepting(handle: Callable[[socket.socket], None]) -> Iterator[int]:
    """A loopback listener on a free port that runs `handle` per connection in a thread."""
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    server.settimeout(0.2)
    stop = threading.Event()
    held: list[socket.socket] = []

    def loop() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            held.append(conn)
            threading.Thread(target=handle, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        stop.set()
        thread.join(2)
        server.close()
        for conn in held:
            conn.close()


@contextlib.contextmanager
def silent_server() -> Iterator[str]:
    """Accepts connections, reads, and never answers."""

    def hold(conn: socket.socket) -> None:
        conn.settimeout(30)
        with contextlib.suppress(OSError):
            while conn.recv(65536):
                pass

    with _accepting(hold) as port:
        yield f"http://127.0.0.1:{port}"


@contextlib.contextmanager
def answering(octets: bytes) -> Iterator[str]:
    """Answers every connection with `octets` and closes it."""

    def answer(conn: socket.socket) -> None:
        conn.settimeout(5)
        with contextlib.suppress(OSError):
            conn.recv(65536)
            conn.sendall(octets)
            conn.shutdown(socket.SHUT_WR)
            time.sleep(0.2)
        conn.close()

    with _accepting(answer) as port:
        yield f"http://127.0.0.1:{port}"


@contextlib.contextmanager
def garbage_server() -> Iterator[str]:
    """Answers every connection with GARBAGE and closes it."""

    def answer(conn: socket.socket) -> None:
        conn.settimeout(5)
        with contextlib.suppress(OSError):
            conn.recv(65536)
            conn.sendall(GARBAGE)
            conn.shutdown(socket.SHUT_WR)
            time.sleep(0.2)
        conn.close()

    with _accepting(answer) as port:
        yield f"http://127.0.0.1:{port}"


def self_signed(directory: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key, as PEM files."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "cert.pem", directory / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


@contextlib.contextmanager
def tls_front(upstream: str, cert: Path, key: Path) -> Iterator[str]:
    """An https listener that forwards each connection's octets to `upstream` (http)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    up_host, up_port = upstream.removeprefix("http://").split(":")

    def pump(src: socket.socket, dst: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := src.recv(65536):
                dst.sendall(data)
        with contextlib.suppress(OSError):
            dst.shutdown(socket.SHUT_WR)

    def forward(conn: socket.socket) -> None:
        conn.settimeout(30)
        try:
            tls = context.wrap_socket(conn, server_side=True)
        except OSError:
            conn.close()
            return
        with tls, socket.create_connection((up_host, int(up_port)), timeout=30) as up:
            back = threading.Thread(target=pump, args=(up, tls), daemon=True)
            back.start()
            pump(tls, up)
            back.join(30)

    with _accepting(forward) as port:
        yield f"https://127.0.0.1:{port}"


@contextlib.contextmanager
def _subprocess(argv: list[str], listening: re.Pattern[str]) -> Iterator[str]:
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        env=dict(os.environ, PYTHONUNBUFFERED="1"),
    )
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + START_S
        seen = []
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            seen.append(line)
            m = listening.search(line)
            if m:
                yield f"http://127.0.0.1:{m.group(1)}"
                return
        raise RuntimeError(f"{argv[:3]} did not start: {''.join(seen)[-500:]}")
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        if proc.stdout is not None:
            proc.stdout.close()


def http_server(directory: Path) -> contextlib.AbstractContextManager[str]:
    """`python -m http.server` on a free port, serving `directory`."""
    argv = [sys.executable, "-m", "http.server", "0", "--bind", "127.0.0.1"]
    argv += ["--directory", str(directory)]
    return _subprocess(argv, re.compile(r"port (\d+)"))


STARLETTE_APP = """
import socket, sys, uvicorn
from starlette.applications import Starlette
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route

async def home(request):
    return PlainTextResponse("hello")

async def book(request):
    return JSONResponse({"title": "a book"})

app = Starlette(routes=[Route("/", home), Route("/books/1", book)])
sock = socket.socket()
sock.bind(("127.0.0.1", 0))
sock.listen(64)
print("listening on port", sock.getsockname()[1], flush=True)
uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])
"""


def starlette_without_batching() -> contextlib.AbstractContextManager[str]:
    """A Starlette app with two plain routes and no batch endpoint, under uvicorn."""
    return _subprocess(
        [sys.executable, "-c", STARLETTE_APP], re.compile(r"listening on port (\d+)")
    )


@contextlib.contextmanager
def falls_silent(upstream: str, answered: int, then: bytes = b"") -> Iterator[str]:
    """Forwards the first `answered` connections to `upstream`, then answers nothing (or
    `then` and a close)."""
    up_host, up_port = upstream.removeprefix("http://").split(":")
    seen = [0]

    def handle(conn: socket.socket) -> None:
        conn.settimeout(30)
        seen[0] += 1
        if seen[0] > answered:
            with contextlib.suppress(OSError):
                if then:
                    conn.recv(65536)
                    conn.sendall(then)
                    conn.shutdown(socket.SHUT_WR)
                    time.sleep(0.2)
                    conn.close()
                    return
                while conn.recv(65536):
                    pass
            return
        with (
            socket.create_connection((up_host, int(up_port)), timeout=30) as up,
            contextlib.suppress(OSError),
        ):
            up.sendall(conn.recv(1 << 20))
            up.shutdown(socket.SHUT_WR)
            while data := up.recv(65536):
                conn.sendall(data)
        conn.close()

    with _accepting(handle) as port:
        yield f"http://127.0.0.1:{port}"
