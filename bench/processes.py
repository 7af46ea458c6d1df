"""Starting, pinning, observing and stopping the processes a benchmark talks to.

Every server and relay runs as a child process that announces its address on its first stdout
line; ``Child`` waits for that line (bounded), and stops the child by its own pid on exit
(SIGTERM, then SIGKILL after a grace period). Where the machine has two or more cores the server
is pinned to the last core and the client (this process) to the first, so that the two do not
take turns on one core; the relay stays unpinned. ``/proc`` gives the server's CPU time and
resident set, which the scale scenario samples while a batch runs.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "Child",
    "RssSampler",
    "cpu_seconds",
    "pin_client",
    "pin_server",
    "placement",
    "proxy_available",
    "rss_kib",
    "start_hypercorn",
    "start_proxy",
    "start_reference_server",
    "start_relay",
    "start_uvicorn",
]

#: Seconds a child may take to announce its address before the benchmark gives up.
STARTUP_TIMEOUT = 20.0
#: Seconds between SIGTERM and SIGKILL when a child is stopped.
STOP_GRACE = 5.0
_ROOT = Path(__file__).resolve().parent.parent


def _initial_cores() -> list[int]:
    try:
        return sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return []


#: The cores this process could use when imported, before ``pin_client`` narrows its own set.
_CORES = _initial_cores()


def _cores() -> list[int]:
    return list(_CORES)


def placement() -> dict[str, object]:
    """Where client and server run, for the results file."""
    cores = _cores()
    if len(cores) >= 2:
        return {"cores": cores, "client": [cores[0]], "server": [cores[-1]], "relay": "unpinned"}
    return {"cores": cores, "client": "unpinned", "server": "unpinned", "relay": "unpinned"}


def pin_client() -> None:
    """Pin this (client) process to the first core when there are two or more."""
    cores = _cores()
    if len(cores) >= 2:
        os.sched_setaffinity(0, {cores[0]})


def pin_server(pid: int) -> None:
    cores = _cores()
    if len(cores) >= 2:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(pid, {cores[-1]})


def cpu_seconds(pid: int) -> float:
    """CPU seconds the process has used, to the nanosecond where the kernel keeps schedstats.

    ``/proc/PID/task/*/schedstat`` counts each thread's time on a CPU in nanoseconds; the
    fallback, ``/proc/PID/stat`` fields 14 and 15, counts clock ticks (10 ms), too coarse for a
    batch that takes a few milliseconds of server time.
    """
    total = 0
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(FileNotFoundError):  # a thread may end between the calls
                total += int((task / "schedstat").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        total = 0
    if total:
        return total / 1e9
    text = Path(f"/proc/{pid}/stat").read_text()
    fields = text[text.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kib(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM (peak RSS) of the process in KiB, from ``/proc/PID/status``."""
    out: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, rest = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            out[name] = int(rest.split()[0])
    return out


class RssSampler:
    """Samples a process' VmRSS every ``interval`` seconds on a thread; ``peak_kib`` is the max."""

    def __init__(self, pid: int, interval: float = 0.01) -> None:
        self.pid = pid
        self.interval = interval
        self.peak_kib = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            with contextlib.suppress(OSError):
                self.peak_kib = max(self.peak_kib, rss_kib(self.pid).get("VmRSS", 0))
            self._stop.wait(self.interval)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5.0)


@dataclass
class Child:
    """A child process and the address it announced."""

    name: str
    process: subprocess.Popen[str]
    host: str
    port: int
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def address(self) -> tuple[str, int]:
        return (self.host, self.port)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(STOP_GRACE)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(STOP_GRACE)
        if self.process.stdout is not None:
            self.process.stdout.close()


def _env() -> dict[str, str]:
    env = dict(os.environ)
    paths = [str(_ROOT), str(_ROOT / "reference-impl")]
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


def _read_line(process: subprocess.Popen[str], marker: str) -> str:
    """The first stdout line containing ``marker``, waiting at most STARTUP_TIMEOUT."""
    assert process.stdout is not None
    deadline = time.monotonic() + STARTUP_TIMEOUT
    fd = process.stdout.fileno()
    buffer = b""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            buffer += chunk
            for line in buffer.decode("utf-8", "replace").splitlines():
                if marker in line:
                    return line
        elif process.poll() is not None:
            break
    process.kill()
    process.wait(STOP_GRACE)
    raise RuntimeError(f"child {process.args!r} did not announce {marker!r}: {buffer!r}")


def _spawn(
    name: str, argv: Sequence[str], marker: str, pass_fds: Sequence[int] = (), pin: bool = True
) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        list(argv),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=_env(),
        pass_fds=tuple(pass_fds),
        cwd=_ROOT,
    )
    if pin:
        pin_server(process.pid)
    return process


def start_reference_server(
    *, max_parts: int = 0, max_batch_bytes: int = 0, max_part_bytes: int = 0
) -> Child:
    """The mixbatch reference server; zero keeps a limit at its default."""
    argv = [sys.executable, "-m", "bench.reference_server"]
    for option, value in (
        ("--max-parts", max_parts),
        ("--max-batch-bytes", max_batch_bytes),
        ("--max-part-bytes", max_part_bytes),
    ):
        if value:
            argv += [option, str(value)]
    process = _spawn("reference", argv, "")
    line = _read_line(process, "mixbatch listening on http://")
    hostport = line.rsplit("http://", 1)[1].strip()
    host, _, port = hostport.rpartition(":")
    return Child("reference", process, host, int(port))


def start_relay(
    upstream: tuple[str, int],
    delay_ms: float,
    bandwidth_mbit: float = 0.0,
    max_seconds: float = 1800,
) -> Child:
    argv = [
        sys.executable,
        "-m",
        "bench.relay",
        "--upstream",
        f"{upstream[0]}:{upstream[1]}",
        "--delay-ms",
        str(delay_ms),
        "--bandwidth-mbit",
        str(bandwidth_mbit),
        "--max-seconds",
        str(max_seconds),
    ]
    process = _spawn("relay", argv, "", pin=False)
    line = _read_line(process, "relay listening on ")
    host, _, port = line.rsplit(" ", 1)[1].rpartition(":")
    return Child(
        "relay", process, host, int(port), {"delay_ms": delay_ms, "bandwidth_mbit": bandwidth_mbit}
    )


def _wait_accepting(host: str, port: int, process: subprocess.Popen[str]) -> None:
    """Poll until the child answers an HTTP request on the inherited socket (it may not print)."""
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"child {process.args!r} exited with {process.returncode}")
        try:
            with socket.create_connection((host, port), timeout=1.0) as probe:
                probe.sendall(b"GET /random/0 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                if probe.recv(16).startswith(b"HTTP/1.1"):
                    return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"child {process.args!r} never answered")


def _start_asgi(name: str, argv_template: list[str]) -> Child:
    """Start an ASGI server on a free loopback port and wait until it answers.

    The port is found by binding port 0 and releasing it (a small race with other processes,
    retried by the caller's failure). uvicorn is not given an inherited socket (``--fd``): it
    wraps one as AF_UNIX, so asyncio would skip TCP_NODELAY and every response would wait out
    the peer's delayed ACK (about 40 ms), which measures the launch, not the server.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        host, port = probe.getsockname()[:2]
    argv = [a.replace("{port}", str(port)) for a in argv_template]
    process = _spawn(name, argv, "")
    try:
        _wait_accepting(host, port, process)
    except Exception:
        process.kill()
        process.wait(STOP_GRACE)
        raise
    return Child(name, process, host, port)


def start_uvicorn(app: str = "bench.asgi_app:app") -> Child:
    """uvicorn serving ``app`` (the plain resources, or ``bench.asgi_app:batched``), with
    httptools when installed, else h11."""
    try:
        import httptools  # type: ignore[import-not-found]  # noqa: F401

        http = "httptools"
    except ImportError:
        http = "h11"
    argv = [
        sys.executable,
        "-m",
        "uvicorn",
        app,
        "--host",
        "127.0.0.1",
        "--port",
        "{port}",
        "--http",
        http,
        "--loop",
        "asyncio",
        "--no-access-log",
        "--log-level",
        "warning",
    ]
    child = _start_asgi("uvicorn", argv)
    child.extra["http_implementation"] = http
    return child


def start_hypercorn() -> Child:
    """hypercorn serving ``bench.asgi_app:app``: HTTP/1.1 and h2c (prior knowledge) on one port,
    up to 1,000 concurrent streams per connection (``bench.hypercorn_config``)."""
    argv = [
        sys.executable,
        "-m",
        "hypercorn",
        "--config",
        "python:bench.hypercorn_config",
        "bench.asgi_app:app",
        "--bind",
        "127.0.0.1:{port}",
        "--log-level",
        "warning",
    ]
    return _start_asgi("hypercorn", argv)


def proxy_available() -> bool:
    """Whether this checkout has the batching proxy (``mixbatch.proxy``)."""
    import importlib.util

    try:
        return importlib.util.find_spec("mixbatch.proxy") is not None
    except ImportError:
        return False


def start_proxy(upstream: tuple[str, int], max_parts: int = 10_000) -> Child:
    """``mixbatch proxy`` in front of ``upstream``, logging warnings only."""
    argv = [
        sys.executable,
        "-m",
        "mixbatch",
        "proxy",
        "--upstream",
        f"http://{upstream[0]}:{upstream[1]}",
        "--port",
        "0",
        "--limits",
        f"max_parts={max_parts}",
        "--log-level",
        "WARNING",
    ]
    process = _spawn("proxy", argv, "")
    line = _read_line(process, "listening on http://")
    hostport = line.split("http://", 1)[1].split()[0]
    host, _, port = hostport.rpartition(":")
    return Child("proxy", process, host, int(port))
