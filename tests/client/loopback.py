"""A scripted HTTP/1.1 origin on a loopback socket, for the client's socket and stream adapters.

Each request read off a connection (Content-Length framing only, which is all the client sends)
is answered by the next responder of the script, as with ``scripted.ScriptedTransport``, but
over a real socket. ``close_after`` closes every connection after that many responses without
saying so, as a server does with an idle keep-alive connection; ``closed`` counts connections
the origin has closed and ``accepted`` those it accepted. Use it as a context manager: leaving it
stops the accept thread and closes every socket.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Sequence
from types import TracebackType

from mixbatch.client._http1 import HttpRequest

from .scripted import Responder

#: Seconds a socket operation on either side may take before the test fails.
TIMEOUT = 5.0


class LoopbackOrigin:
    def __init__(self, script: Sequence[Responder], *, close_after: int | None = None) -> None:
        self._script = list(script)
        self._close_after = close_after
        self._lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", 0))
        # A short accept timeout lets the accept thread notice it should stop.
        self._listener.settimeout(0.02)
        self._threads: list[threading.Thread] = []
        self._sockets: list[socket.socket] = []
        self._stopping = threading.Event()
        self.port: int = self._listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/batch"
        self.accepted = 0
        self.closed = threading.Semaphore(0)
        self.requests: list[HttpRequest] = []

    def __enter__(self) -> LoopbackOrigin:
        thread = threading.Thread(target=self._accept, name="loopback-origin", daemon=True)
        thread.start()
        self._threads.append(thread)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stopping.set()
        with self._lock:
            for sock in self._sockets:
                # shutdown() wakes a thread blocked in recv(); close() alone does not.
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()
        for thread in self._threads:
            thread.join(TIMEOUT)
        self._listener.close()

    def _accept(self) -> None:
        while not self._stopping.is_set():
            try:
                sock, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            sock.settimeout(TIMEOUT)
            with self._lock:
                self.accepted += 1
                self._sockets.append(sock)
            thread = threading.Thread(target=self._serve, args=(sock,), daemon=True)
            thread.start()
            self._threads.append(thread)

    def _serve(self, sock: socket.socket) -> None:
        inbox = b""
        answered = 0
        try:
            while self._close_after is None or answered < self._close_after:
                while b"\r\n\r\n" not in inbox:
                    data = sock.recv(65536)
                    if not data:
                        return
                    inbox += data
                head, _, inbox = inbox.partition(b"\r\n\r\n")
                request_line, *lines = head.decode("latin-1").split("\r\n")
                method, target, _ = request_line.split(" ", 2)
                headers = tuple(
                    (name.strip(), value.strip())
                    for name, _, value in (line.partition(":") for line in lines)
                )
                length = int(dict((k.lower(), v) for k, v in headers).get("content-length", "0"))
                while len(inbox) < length:
                    data = sock.recv(65536)
                    if not data:
                        return
                    inbox += data
                body, inbox = inbox[:length], inbox[length:]
                request = HttpRequest(method, target, headers, body)
                with self._lock:
                    self.requests.append(request)
                    responder = self._script.pop(0)
                sock.sendall(responder(request))
                answered += 1
        except OSError:
            return
        finally:
            sock.close()
            self.closed.release()

    def wait_closed(self, count: int = 1) -> None:
        """Block until ``count`` more connections have been closed by the origin."""
        for _ in range(count):
            if not self.closed.acquire(timeout=TIMEOUT):
                raise AssertionError("the origin never closed the connection")
