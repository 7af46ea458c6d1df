"""The reference server as a real process on a data directory, for crash and multi-process tests."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from ._client import HttpClient

#: Seconds a server process may take to print its address.
START_TIMEOUT = 20.0
_LISTENING = re.compile(r"listening on http://([0-9.]+):([0-9]+)")


@dataclass
class ServerProcess:
    """One ``mixbatch serve --data DIR`` process and its address."""

    process: subprocess.Popen[str]
    host: str
    port: int

    def client(self, timeout: float = 10.0) -> HttpClient:
        sock = socket.create_connection((self.host, self.port), timeout=timeout)
        return HttpClient(sock)

    def kill(self) -> None:
        """SIGKILL: no shutdown, no flush, nothing the process could finish."""
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(10)
        if self.process.stdout is not None:
            self.process.stdout.close()


def start(data_dir: Path) -> ServerProcess:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mixbatch",
            "serve",
            "--port",
            "0",
            "--data",
            str(data_dir),
            "--log-level",
            "ERROR",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    match = _LISTENING.search(line)
    if match is None:
        process.kill()
        raise RuntimeError(f"the server did not start: {line!r}")
    return ServerProcess(process, match.group(1), int(match.group(2)))


def titles(server: ServerProcess) -> list[str]:
    """Every book's title, read with one standalone GET."""
    with server.client() as client:
        reply = client.request("GET", "/books", [("Accept", "application/json")])
    assert reply.status == 200, reply
    return [str(book["title"]) for book in json.loads(reply.body)]
