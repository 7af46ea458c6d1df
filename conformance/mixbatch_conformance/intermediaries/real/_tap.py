"""A recording TCP relay between an intermediary and its origin: the bytes on the far side.

``Tap(origin_host, origin_port, folder)`` listens on a free loopback port; the intermediary is
configured to send there, and every connection is relayed to the origin octet for octet while
both directions are written to ``folder/conn-N.up`` (intermediary to origin) and
``conn-N.down`` (origin to intermediary). Nothing is parsed or changed, so the tap cannot be
blamed for what the hop did; hop blame reads these files to show what the origin received and
sent for a check that failed only through the hop.
"""

from __future__ import annotations

import contextlib
import itertools
import socket
import threading
from pathlib import Path

__all__ = ["MAX_RECORDED_BYTES", "Tap"]

#: Octets kept per direction of one connection: the suite's largest batch (the limit checks
#: send a few MiB) fits; beyond it the relay goes on relaying without recording.
MAX_RECORDED_BYTES = 16 << 20
#: Octets read from a socket at a time.
CHUNK = 64 << 10


class Tap:
    """Relay connections from a loopback port to the origin, recording both directions."""

    def __init__(self, origin_host: str, origin_port: int, folder: Path) -> None:
        self.origin = (origin_host, origin_port)
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._counter = itertools.count()
        self._stopped = threading.Event()
        self._threads: list[threading.Thread] = []
        self._accepter = threading.Thread(target=self._accept, name="tap-accept", daemon=True)
        self._accepter.start()

    def _accept(self) -> None:
        while not self._stopped.is_set():
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            n = next(self._counter)
            try:
                upstream = socket.create_connection(self.origin, timeout=10)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            for src, dst, suffix in ((client, upstream, "up"), (upstream, client, "down")):
                t = threading.Thread(
                    target=self._pump,
                    args=(src, dst, self.folder / f"conn-{n}.{suffix}"),
                    name=f"tap-{n}-{suffix}",
                    daemon=True,
                )
                t.start()
                self._threads.append(t)

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket, record: Path) -> None:
        kept = 0
        with record.open("wb") as out:
            while True:
                try:
                    data = src.recv(CHUNK)
                except OSError:
                    data = b""
                if not data:
                    with contextlib.suppress(OSError):
                        dst.shutdown(socket.SHUT_WR)
                    break
                if kept < MAX_RECORDED_BYTES:
                    out.write(data[: MAX_RECORDED_BYTES - kept])
                    out.flush()
                    kept += len(data)
                try:
                    dst.sendall(data)
                except OSError:
                    break
        with contextlib.suppress(OSError):
            src.close()

    def close(self) -> None:
        self._stopped.set()
        with contextlib.suppress(OSError):
            self._listener.close()
        for t in self._threads:
            t.join(0.5)
