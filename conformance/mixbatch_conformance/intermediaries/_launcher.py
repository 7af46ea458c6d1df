"""Starting mitmdump in reverse mode in front of a target, one private run at a time.

``start_mitmdump(target_url, scenario)`` runs

    mitmdump --mode reverse:TARGET --listen-host 127.0.0.1 --listen-port 0
             --set confdir=<fresh temp dir> --set connection_strategy=lazy
             --set keep_host_header=true -s <addon>.py

reads its output until the line "... listening at HOST:PORT", and yields the URL to send to
(``https://`` for TLS scenarios). The confdir is private to the run, so the CA mitmproxy makes
there (``ca_path``) is trusted by nobody else, and it is removed afterwards. The process is
terminated (then killed after a grace period) when the block exits, whatever happened inside.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path

from mixbatch_conformance.intermediaries import Scenario, scenario

__all__ = ["START_TIMEOUT", "MitmdumpError", "ViaUrl", "mitmdump_command", "start_mitmdump"]

#: Seconds mitmdump may take to announce its port (it loads its addons and makes a CA first).
START_TIMEOUT = 30.0
#: Seconds a terminated mitmdump gets before it is killed.
STOP_GRACE = 5.0
LISTENING = re.compile(r"listening at (?:\[[^\]]*\]|[^\s:]+):(\d+)")


class MitmdumpError(RuntimeError):
    """mitmdump did not start (missing, bad addon, bad option); the message has its output."""


class ViaUrl(str):
    """The URL to test through, with the run's scenario, CA file and mitmdump output."""

    scenario: Scenario
    ca_path: Path
    output: list[str]

    def __new__(cls, url: str, scenario: Scenario, ca_path: Path, output: list[str]) -> ViaUrl:
        value = super().__new__(cls, url)
        value.scenario = scenario
        value.ca_path = ca_path
        value.output = output
        return value


def _mitmdump() -> str:
    sibling = Path(sys.executable).with_name("mitmdump")
    if sibling.exists():
        return str(sibling)
    found = shutil.which("mitmdump")
    if found is None:
        raise MitmdumpError("mitmdump is not installed next to this Python nor on PATH")
    return found


def mitmdump_command(
    target_url: str, chosen: Scenario, confdir: str, options: Mapping[str, str] | None = None
) -> list[str]:
    argv = [
        _mitmdump(),
        "--mode",
        f"reverse:{target_url}",
        "--listen-host",
        "127.0.0.1",
        "--listen-port",
        "0",
        "--set",
        f"confdir={confdir}",
        "--set",
        "connection_strategy=lazy",
        # A front proxy that rewrote Host would make every absolute same-origin target look
        # like another origin to the server (MB-SUB-2); reverse proxies in front of an origin
        # normally pass the client's Host on.
        "--set",
        "keep_host_header=true",
        "--flow-detail",
        "0",
        # Every scenario's hop drops TE: trailers, which mitmproxy cannot honour (_hop.py).
        "-s",
        str(Path(__file__).with_name("_hop.py")),
        "-s",
        str(chosen.path),
    ]
    for name, value in (options or {}).items():
        argv += ["--set", f"{name}={value}"]
    return argv


@contextlib.contextmanager
def start_mitmdump(
    target_url: str,
    scenario_name: str | Scenario,
    *,
    options: Mapping[str, str] | None = None,
    start_timeout: float = START_TIMEOUT,
) -> Iterator[ViaUrl]:
    """Run mitmdump with ``scenario_name``'s addon in front of ``target_url``; yield its URL."""
    chosen = scenario_name if isinstance(scenario_name, Scenario) else scenario(scenario_name)
    confdir = tempfile.mkdtemp(prefix="mixbatch-mitm-")
    output: list[str] = []
    port: list[int] = []
    ready = threading.Event()
    proc = subprocess.Popen(
        mitmdump_command(target_url.rstrip("/"), chosen, confdir, options),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        env=dict(os.environ, PYTHONUNBUFFERED="1"),
    )

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            if len(output) < 2000:
                output.append(line)
            if not port and (match := LISTENING.search(line)):
                port.append(int(match.group(1)))
                ready.set()
        ready.set()

    reader = threading.Thread(target=pump, name="mitmdump-output", daemon=True)
    reader.start()
    try:
        ready.wait(start_timeout)
        if not port:
            raise MitmdumpError(
                f"mitmdump ({chosen.name}) did not report its port: {''.join(output)[-2000:]!r}"
            )
        scheme = "https" if chosen.tls else "http"
        yield ViaUrl(
            f"{scheme}://127.0.0.1:{port[0]}",
            chosen,
            Path(confdir) / "mitmproxy-ca-cert.pem",
            output,
        )
    finally:
        proc.terminate()
        try:
            proc.wait(STOP_GRACE)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(STOP_GRACE)
        reader.join(STOP_GRACE)
        if proc.stdout is not None:
            proc.stdout.close()
        shutil.rmtree(confdir, ignore_errors=True)
