"""Starting one real intermediary in front of an origin, in a private temp dir, and stopping it.

``start_real(chosen, variant, origins)`` makes a temp dir, starts a recording tap (``_tap``) in
front of each origin, writes the program's configuration for the variant (with a self-signed
certificate for the TLS variants), starts the program in the foreground in its own process
group on a free loopback port, waits until the port accepts a connection, and yields a
``RunningHop``. On exit the process group is terminated (killed after a grace period) and the
dir removed; ``RunningHop.keep(folder)`` first copies the configuration and logs somewhere
that outlives the run. A program that is not installed raises ``NotInstalled``, which says
how to install it. When the suite runs as root the program runs as ``nobody``, owning its dir.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from mixbatch_conformance.intermediaries.real import (
    Intermediary,
    Layout,
    apache,
    caddy,
    h2o,
    haproxy,
    install_command,
    lighttpd,
    nginx,
    squid,
    trafficserver,
    varnish,
)
from mixbatch_conformance.intermediaries.real._cert import self_signed
from mixbatch_conformance.intermediaries.real._tap import Tap
from mixbatch_conformance.transport.urls import parse_target_url

__all__ = [
    "PROGRAMS",
    "START_TIMEOUT",
    "NotInstalled",
    "RealIntermediaryError",
    "RunningHop",
    "free_port",
    "start_real",
    "unprivileged",
]

#: The module that writes each program's configuration and command line.
PROGRAMS: dict[str, ModuleType] = {
    "nginx": nginx,
    "haproxy": haproxy,
    "apache": apache,
    "caddy": caddy,
    "varnish": varnish,
    "squid": squid,
    "trafficserver": trafficserver,
    "h2o": h2o,
    "lighttpd": lighttpd,
}
#: Seconds a program may take to accept its first connection (Traffic Server and Squid take a
#: few seconds to set up their caches).
START_TIMEOUT = 30.0
#: Seconds a terminated program gets before its process group is killed.
STOP_GRACE = 5.0
#: The user a program runs as when the suite runs as root.
UNPRIVILEGED_USER = "nobody"
#: Octets of a log kept in an error message.
LOG_TAIL = 3000


class RealIntermediaryError(RuntimeError):
    """The intermediary did not start; the message has its log's tail."""


class NotInstalled(RealIntermediaryError):
    """The program is not installed; ``install`` is the command that installs it."""

    def __init__(self, chosen: Intermediary) -> None:
        self.install = install_command(chosen)
        super().__init__(f"{chosen.name} is not installed (install it with: {self.install})")


@dataclass(frozen=True)
class RunningHop:
    """A started intermediary: the URL to test through and where its files are."""

    url: str
    intermediary: Intermediary
    variant: str
    layout: Layout
    config_path: Path
    #: One recording folder per origin (``conn-N.up`` / ``conn-N.down``).
    taps: tuple[Path, ...]

    @property
    def ca_file(self) -> Path | None:
        return self.layout.cert

    def keep(self, folder: Path) -> None:
        """Copy the configuration, the logs and the tap recordings into ``folder``."""
        folder.mkdir(parents=True, exist_ok=True)
        for item in sorted(self.layout.workdir.iterdir()):
            if item.is_file() and item.suffix in (
                ".conf",
                ".cfg",
                ".log",
                ".vcl",
                ".yaml",
                ".json",
            ):
                shutil.copy2(item, folder / item.name)
            if item.is_file() and item.name in ("Caddyfile", "cert.pem"):
                shutil.copy2(item, folder / item.name)
        for n, tap in enumerate(self.taps):
            if tap.is_dir():
                shutil.copytree(tap, folder / f"origin-{n}", dirs_exist_ok=True)


def free_port() -> int:
    """A loopback port nobody listens on now (the program binds it a moment later)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _accepts(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
        return True
    return False


def _tail(folder: Path) -> str:
    texts = []
    for item in sorted(folder.glob("*.log")) + sorted(folder.glob("*.out")):
        with contextlib.suppress(OSError):
            texts.append(f"{item.name}: {item.read_text(errors='replace')[-LOG_TAIL:]}")
    return "\n".join(texts)[-LOG_TAIL:]


def unprivileged(workdir: Path) -> dict[str, Any]:
    """Popen arguments that run the program as ``UNPRIVILEGED_USER`` when this process is
    root (the dir becomes that user's), and nothing otherwise: no program runs as root."""
    if os.geteuid() != 0:
        return {}
    entry = pwd.getpwnam(UNPRIVILEGED_USER)
    for path in (workdir, *workdir.rglob("*")):
        if "tap-" not in path.name:
            os.chown(path, entry.pw_uid, entry.pw_gid)
    return {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}


def _stop(proc: subprocess.Popen[bytes]) -> None:
    for sig, grace in ((signal.SIGTERM, STOP_GRACE), (signal.SIGKILL, STOP_GRACE)):
        # The program runs in a process group of its own (start_new_session), whose id is
        # the pid of the process started here: its workers go with it, nothing else does.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(grace)
            return
        except subprocess.TimeoutExpired:
            continue


@contextlib.contextmanager
def start_real(
    chosen: Intermediary,
    variant: str,
    origins: Sequence[str],
    *,
    ready: Callable[[int], bool] = _accepts,
    start_timeout: float = START_TIMEOUT,
    port: int | None = None,
) -> Iterator[RunningHop]:
    """Run ``chosen`` with ``variant``'s configuration in front of ``origins``; yield it.

    ``port``: the port to listen on (default a free one), for an origin told it in advance.
    """
    binary = chosen.binary_path()
    if binary is None:
        raise NotInstalled(chosen)
    if variant not in chosen.variants:
        raise ValueError(f"{chosen.name} has no variant {variant!r}")
    program = PROGRAMS[chosen.name]
    workdir = Path(tempfile.mkdtemp(prefix=f"mixbatch-{chosen.name}-"))
    taps: list[Tap] = []
    proc: subprocess.Popen[bytes] | None = None
    try:
        for n, origin in enumerate(origins):
            url = parse_target_url(origin)
            taps.append(Tap(url.host, url.port, workdir / f"tap-{n}"))
        cert = key = None
        if variant in chosen.tls_variants:
            cert, key = self_signed(workdir)
        layout = Layout(
            workdir=workdir,
            port=port or free_port(),
            upstreams=tuple(("127.0.0.1", t.port) for t in taps),
            cert=cert,
            key=key,
        )
        conf = workdir / program.CONFIG_NAME
        conf.write_text(program.config(variant, layout), encoding="utf-8")
        program.prepare(binary, conf, layout)
        user = unprivileged(workdir)
        with (workdir / "stdout.out").open("wb") as out:
            proc = subprocess.Popen(
                program.command(binary, conf, layout),
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                cwd=workdir,
                start_new_session=True,
                **user,
            )
        deadline = time.monotonic() + start_timeout
        while not ready(layout.port):
            if proc.poll() is not None:
                raise RealIntermediaryError(
                    f"{chosen.name} ({variant}) exited with {proc.returncode}:\n{_tail(workdir)}"
                )
            if time.monotonic() > deadline:
                raise RealIntermediaryError(
                    f"{chosen.name} ({variant}) did not accept on port {layout.port} within "
                    f"{start_timeout:g} s:\n{_tail(workdir)}"
                )
            time.sleep(0.1)
        scheme = "https" if cert is not None else "http"
        yield RunningHop(
            f"{scheme}://127.0.0.1:{layout.port}",
            chosen,
            variant,
            layout,
            conf,
            tuple(t.folder for t in taps),
        )
    finally:
        if proc is not None:
            _stop(proc)
        for tap in taps:
            tap.close()
        shutil.rmtree(workdir, ignore_errors=True)
