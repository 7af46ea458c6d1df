"""The embedded reference server: started as a subprocess, stopped when the run ends.

Theory of operation: with no --target the suite tests the reference server. It runs
`python -m mixbatch serve --host 127.0.0.1 --port 0` with the current interpreter, reads
stdout until the line "mixbatch listening on http://HOST:PORT", and hands back that URL.
The process is stopped (terminate, then kill after a grace period) when the context exits,
whatever happened inside it. A server that exits or stays silent is a harness error.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator

__all__ = ["EmbeddedServerError", "default_command", "embedded_server", "server_only_command"]

LISTENING = re.compile(r"mixbatch listening on (http://[^\s]+)")
START_TIMEOUT = 30.0
#: The whole-batch time limit the embedded server runs with, declared in its target description
#: so that batch-abort-after-timeout (MB-STATUS-6) can outlast it: short enough to test in a few
#: seconds, long enough that no other check's batch comes near it.
EMBEDDED_BATCH_TIMEOUT_MS = 3000


class EmbeddedServerError(RuntimeError):
    """The reference server did not start."""


def default_command() -> list[str]:
    """`python -m mixbatch serve ...`, or the server's own entry point if the CLI is absent."""
    if importlib.util.find_spec("mixbatch.__main__") is not None:
        return [
            *(sys.executable, "-m", "mixbatch", "serve", "--host", "127.0.0.1", "--port", "0"),
            *("--batch-timeout", str(EMBEDDED_BATCH_TIMEOUT_MS / 1000)),
        ]
    return server_only_command()


def server_only_command() -> list[str]:
    """Start the reference server through its package alone, without the CLI."""
    code = (
        "import asyncio; from mixbatch.server import ServerConfig, serve; "
        "asyncio.run(serve(ServerConfig(host='127.0.0.1', port=0, "
        f"batch_timeout={EMBEDDED_BATCH_TIMEOUT_MS / 1000})))"
    )
    return [sys.executable, "-c", code]


@contextlib.contextmanager
def embedded_server(command: list[str] | None = None) -> Iterator[str]:
    """Start the reference server and yield its base URL."""
    argv = command or default_command()
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    found: list[str] = []
    seen: list[str] = []
    ready = threading.Event()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            if not found:
                seen.append(line)
                m = LISTENING.search(line)
                if m:
                    found.append(m.group(1).rstrip("/"))
                    ready.set()
        ready.set()

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    try:
        ready.wait(START_TIMEOUT)
        if not found:
            raise EmbeddedServerError(
                f"the reference server did not report its URL: {''.join(seen)[-2000:]!r}"
            )
        yield found[0]
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        reader.join(5)
        if proc.stdout is not None:
            proc.stdout.close()
