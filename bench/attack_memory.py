"""What one hostile batch within the published limits costs the reference server in memory.

Run as ``python -m bench.attack_memory`` (not part of ``make test``). It starts ``mixbatch serve``
as a child process with the CLI's default limits and, each phase in a fresh server:

    quiet    a normal 10-part batch, timed a few times (the quiet latency)
    single   one field-dense batch: every part a GET with ``--fields`` empty field lines
             (``a:``), ``--parts`` parts, about 61.5 MiB with the defaults
    four     ``--concurrency`` such batches at once, while a normal batch is sent again and
             again on its own connection and timed

and prints, per phase, the server's peak RSS growth over its idle RSS (``VmRSS`` sampled every
10 ms from ``/proc``, and ``VmHWM``), its CPU seconds, the RSS left once the batches are answered,
the statuses and the latencies. ``--fields 100`` (the default ``max_part_fields``) with
``--value-bytes`` sized to fill ``max_part_header_bytes`` measures the densest batch the limits
still admit. Everything talks over loopback, and every socket operation has a timeout.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.processes import RssSampler, cpu_seconds, rss_kib

__all__ = ["main"]

_ROOT = Path(__file__).resolve().parent.parent
#: Seconds any one socket operation may block before the phase gives up.
IO_TIMEOUT = 300.0
#: Seconds the server may take to announce its address.
STARTUP_TIMEOUT = 20.0
BOUNDARY = "attack-memory-boundary-0123456789"


def _part(index: int, fields: int, value: bytes, target: str) -> bytes:
    lines = [
        b"--" + BOUNDARY.encode(),
        b"Http-Method: GET",
        b"Content-Id: <" + target.encode() + b">",
    ]
    lines.extend(b"a:" + value for _ in range(fields))
    return b"\r\n".join(lines) + b"\r\n\r\n"


def field_dense_batch(parts: int, fields: int, value_bytes: int, target: str = "/books/1") -> bytes:
    """``parts`` GETs of ``target``, each with ``fields`` field lines ``a:`` plus
    ``value_bytes`` of x."""
    value = b"x" * value_bytes
    one = _part(0, fields, value, target)
    # Every part is the same octets: build one and repeat it.
    return one * parts + b"--" + BOUNDARY.encode() + b"--\r\n"


def normal_batch(parts: int = 10) -> bytes:
    body = b"".join(_part(i, 0, b"", f"/books/{i % 5 + 1}") for i in range(parts))
    return body + b"--" + BOUNDARY.encode() + b"--\r\n"


def _request(port: int, batch: bytes) -> bytes:
    head = (
        f"POST /batch HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Content-Type: multipart/mixed; boundary={BOUNDARY}\r\n"
        f"Content-Length: {len(batch)}\r\nConnection: close\r\n\r\n"
    ).encode()
    return head + batch


@dataclass
class Exchange:
    """One batch sent on its own connection: the status line, octets back, seconds taken."""

    status: int = 0
    received: int = 0
    seconds: float = 0.0
    error: str = ""
    retry_after: str | None = None


def send_batch(port: int, batch: bytes) -> Exchange:
    """Send ``batch`` (Connection: close) and read the whole answer, counting its octets."""
    result = Exchange()
    started = time.perf_counter()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=IO_TIMEOUT) as sock:
            sock.settimeout(IO_TIMEOUT)
            # Send from a thread so that an early answer (a refusal) is read while sending.
            sender = threading.Thread(target=_send_quietly, args=(sock, _request(port, batch)))
            sender.start()
            head = b""
            while True:
                chunk = sock.recv(1 << 20)
                if not chunk:
                    break
                if len(head) < 4096:
                    head += chunk[:4096]
                result.received += len(chunk)
            sender.join(IO_TIMEOUT)
        if head.startswith(b"HTTP/1.1 "):
            result.status = int(head[9:12])
        for line in head.split(b"\r\n\r\n", 1)[0].split(b"\r\n"):
            if line.lower().startswith(b"retry-after:"):
                result.retry_after = line.split(b":", 1)[1].strip().decode("latin-1")
    except OSError as exc:
        result.error = f"{type(exc).__name__}: {exc}"
    result.seconds = time.perf_counter() - started
    return result


def _send_quietly(sock: socket.socket, data: bytes) -> None:
    try:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
    except OSError:
        pass  # the server refused early and closed; the reader reports what came back


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    port: int

    @property
    def pid(self) -> int:
        return self.process.pid

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


def start_server(extra: list[str]) -> Server:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(_ROOT), str(_ROOT / "reference-impl"), env.get("PYTHONPATH", "")]
    )
    argv = [sys.executable, "-m", "mixbatch", "serve", "--port", "0", "--log-level", "WARNING"]
    process = subprocess.Popen(
        [*argv, *extra], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=_ROOT
    )
    assert process.stdout is not None
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        line = process.stdout.readline().decode("utf-8", "replace")
        if "listening on http://" in line:
            return Server(process, int(line.rsplit(":", 1)[1]))
        if not line and process.poll() is not None:
            break
    process.kill()
    raise RuntimeError("the server did not announce its address")


@dataclass
class Phase:
    name: str
    idle_kib: int = 0
    peak_kib: int = 0
    hwm_kib: int = 0
    after_kib: int = 0
    cpu: float = 0.0
    wall: float = 0.0
    attacks: list[Exchange] = field(default_factory=list)
    normals: list[Exchange] = field(default_factory=list)

    def report(self, quiet: float | None) -> str:
        mib = 1024.0
        lines = [
            f"[{self.name}] idle RSS {self.idle_kib / mib:.1f} MiB; peak growth "
            f"{(self.peak_kib - self.idle_kib) / mib:.1f} MiB (sampled), "
            f"{(self.hwm_kib - self.idle_kib) / mib:.1f} MiB (VmHWM); "
            f"RSS after {self.after_kib / mib:.1f} MiB; CPU {self.cpu:.2f} s; wall {self.wall:.2f} s"
        ]
        for i, ex in enumerate(self.attacks):
            retry = f", Retry-After {ex.retry_after}" if ex.retry_after else ""
            lines.append(
                f"  attack {i}: status {ex.status}{retry}, {ex.received} octets back, "
                f"{ex.seconds:.2f} s {ex.error}"
            )
        if self.normals:
            times = [ex.seconds * 1000 for ex in self.normals]
            ratio = f" ({max(times) / 1000 / quiet:.2f}x quiet)" if quiet else ""
            statuses = sorted({ex.status for ex in self.normals})
            lines.append(
                f"  normal batch x{len(times)}: statuses {statuses}, median "
                f"{statistics.median(times):.1f} ms, max {max(times):.1f} ms{ratio}"
            )
        return "\n".join(lines)


def run_phase(
    name: str, extra: list[str], attack: bytes | None, concurrency: int, normal: bytes
) -> Phase:
    server = start_server(extra)
    phase = Phase(name)
    try:
        # One normal batch first so imports and caches are warm before the idle reading.
        send_batch(server.port, normal)
        time.sleep(0.2)
        phase.idle_kib = rss_kib(server.pid)["VmRSS"]
        cpu0 = cpu_seconds(server.pid)
        started = time.perf_counter()
        with RssSampler(server.pid) as sampler:
            if attack is None:
                phase.normals = [send_batch(server.port, normal) for _ in range(10)]
            else:
                phase.attacks = [Exchange() for _ in range(concurrency)]
                done = threading.Event()

                def attack_one(i: int) -> None:
                    phase.attacks[i] = send_batch(server.port, attack)

                def normals() -> None:
                    time.sleep(0.3)  # let the attack batches start arriving
                    while not done.is_set():
                        phase.normals.append(send_batch(server.port, normal))
                        done.wait(0.1)

                workers = [
                    threading.Thread(target=attack_one, args=(i,)) for i in range(concurrency)
                ]
                timer = threading.Thread(target=normals)
                for worker in workers:
                    worker.start()
                timer.start()
                for worker in workers:
                    worker.join(IO_TIMEOUT)
                done.set()
                timer.join(IO_TIMEOUT)
        phase.wall = time.perf_counter() - started
        phase.cpu = cpu_seconds(server.pid) - cpu0
        phase.peak_kib = sampler.peak_kib
        time.sleep(1.0)
        memory = rss_kib(server.pid)
        phase.hwm_kib, phase.after_kib = memory["VmHWM"], memory["VmRSS"]
    finally:
        server.stop()
    return phase


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.attack_memory", description=__doc__)
    parser.add_argument("--parts", type=int, default=10_000, help="parts per attack batch")
    parser.add_argument("--fields", type=int, default=1_600, help="field lines per part")
    parser.add_argument("--value-bytes", type=int, default=0, help="octets of each field value")
    parser.add_argument("--concurrency", type=int, default=4, help="attack batches at once")
    parser.add_argument(
        "--target", default="/books/1", help="what each attack part GETs (%(default)s)"
    )
    parser.add_argument(
        "--phases", default="quiet,single,four", help="comma-separated: quiet, single, four"
    )
    parser.add_argument(
        "--server-arg",
        action="append",
        default=[],
        help="an extra option for 'mixbatch serve' (repeatable, e.g. --server-arg=--max-parts=5)",
    )
    args = parser.parse_args(argv)
    attack = field_dense_batch(args.parts, args.fields, args.value_bytes, args.target)
    normal = normal_batch()
    print(
        f"attack batch: {args.parts} parts x {args.fields} fields "
        f"({len(attack) / args.parts:.0f} octets a part), {len(attack) / 2**20:.1f} MiB",
        flush=True,
    )
    quiet: float | None = None
    for name in args.phases.split(","):
        if name == "quiet":
            phase = run_phase("quiet", args.server_arg, None, 0, normal)
            quiet = statistics.median(ex.seconds for ex in phase.normals)
        elif name == "single":
            phase = run_phase("single", args.server_arg, attack, 1, normal)
        elif name == "four":
            phase = run_phase(
                f"{args.concurrency} at once", args.server_arg, attack, args.concurrency, normal
            )
        else:
            parser.error(f"unknown phase {name!r}")
        print(phase.report(quiet), flush=True)


if __name__ == "__main__":
    main()
