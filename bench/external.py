"""The C programs the HTTP/2 comparison runs: h2load (nghttp2), nginx and curl.

Theory of operation: the fairest rival to one batch is a fast HTTP/2 server driven by a fast
HTTP/2 client, so the comparison measures both sides with programs written in C. ``h2load``
drives h2c (prior knowledge) with ``-m`` concurrent streams on one connection, and HTTP/1.1
(``--h1``) for the one ``POST`` of a batch; ``curl --data-binary`` posts the same batch as a
second C client. ``nginx`` serves the same octets as static files from a temporary directory,
as a child process of the benchmark: ``daemon off``, ``master_process off``, a free loopback
port, and every path it writes (pid, logs, temporary bodies) inside that directory.

Each run is bounded by ``RUN_TIMEOUT`` and checked: h2load must report every request done and
answered 2xx, curl must see status 200 and at least the octets the parts carry. The time is
each program's own: h2load's "finished in" and curl's ``time_total``, both counted from before
the connection is opened (TCP connect, and for h2c the SETTINGS exchange, included on both
sides).

``missing()`` names the programs this machine lacks; ``INSTALL_COMMAND`` installs them.
"""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from . import processes

__all__ = [
    "INSTALL_COMMAND",
    "REQUIRED",
    "RUN_TIMEOUT",
    "ExternalError",
    "curl_post",
    "h2load",
    "missing",
    "missing_message",
    "nginx_static",
    "parse_h2load",
]

#: The programs the HTTP/2 comparison needs, by the Debian package that provides each.
REQUIRED: Mapping[str, str] = {"h2load": "nghttp2-client", "nginx": "nginx", "curl": "curl"}
#: The one command that installs them (``make bench-deps`` runs it).
INSTALL_COMMAND = "apt-get update && apt-get install -y nghttp2-client nginx"
#: Seconds any one h2load or curl run may take before it is stopped and the run refused.
RUN_TIMEOUT = 120.0
#: nginx's cap on concurrent streams per connection; above the largest ``-m`` the scenario uses.
NGINX_MAX_STREAMS = 1000

_FINISHED = re.compile(r"finished in ([0-9.]+)(us|ms|s),")
_REQUESTS = re.compile(r"requests: (\d+) total, \d+ started, (\d+) done, (\d+) succeeded")
_STATUS = re.compile(r"status codes: (\d+) 2xx")
_UNIT = {"us": 1e-6, "ms": 1e-3, "s": 1.0}

_NGINX_CONF = """\
daemon off;
master_process off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {dir}/tmp/body;
    proxy_temp_path {dir}/tmp/proxy;
    fastcgi_temp_path {dir}/tmp/fastcgi;
    uwsgi_temp_path {dir}/tmp/uwsgi;
    scgi_temp_path {dir}/tmp/scgi;
    default_type application/octet-stream;
    server {{
        listen {host}:{port} http2;
        http2_max_concurrent_streams {streams};
        keepalive_requests 1000000;
        root {dir}/root;
    }}
}}
"""


class ExternalError(RuntimeError):
    """An external program is missing, failed, or answered less than it was asked for."""


def missing() -> list[str]:
    """The required programs not on PATH (empty when all are there)."""
    return [name for name in REQUIRED if shutil.which(name) is None]


def missing_message() -> str | None:
    """What is missing and the command that installs it, or None when nothing is."""
    absent = missing()
    if not absent:
        return None
    return f"{', '.join(absent)} not installed; install with: {INSTALL_COMMAND}"


def _run(argv: list[str]) -> str:
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=RUN_TIMEOUT, check=False
        )
    except subprocess.TimeoutExpired as exc:
        raise ExternalError(f"{argv[0]} took longer than {RUN_TIMEOUT:g} s: {argv!r}") from exc
    if done.returncode != 0:
        raise ExternalError(f"{argv!r} exited {done.returncode}: {done.stderr.strip()[-400:]}")
    return done.stdout


@dataclass(frozen=True, slots=True)
class H2loadRun:
    seconds: float
    requests: int


def h2load(
    url: str,
    requests: int,
    streams: int,
    *,
    h1: bool = False,
    data: Path | None = None,
    headers: Mapping[str, str] | None = None,
) -> H2loadRun:
    """``requests`` requests on one connection, at most ``streams`` in flight; checked."""
    argv = ["h2load", "-n", str(requests), "-c", "1", "-t", "1", "-m", str(streams)]
    if h1:
        argv.append("--h1")
    if data is not None:
        argv += ["-d", str(data)]
    for name, value in (headers or {}).items():
        argv += ["-H", f"{name}: {value}"]
    return H2loadRun(parse_h2load(_run([*argv, url]), url, requests), requests)


def parse_h2load(out: str, url: str, requests: int) -> float:
    """Seconds from h2load's report, once every request is done, succeeded and answered 2xx."""
    finished = _FINISHED.search(out)
    counts = _REQUESTS.search(out)
    status = _STATUS.search(out)
    if not (finished and counts and status):
        raise ExternalError(f"h2load output not understood: {out[-400:]!r}")
    done, succeeded, ok = int(counts.group(2)), int(counts.group(3)), int(status.group(1))
    if not done == succeeded == ok == requests:
        raise ExternalError(f"h2load {url}: {done} done, {succeeded} succeeded, {ok} 2xx")
    return float(finished.group(1)) * _UNIT[finished.group(2)]


def curl_post(url: str, body: Path, content_type: str, at_least: int) -> float:
    """One ``curl --data-binary`` POST; its ``time_total`` after checking status and size."""
    out = _run(
        [
            "curl",
            "-sS",
            "-o",
            "/dev/null",
            "--max-time",
            str(RUN_TIMEOUT),
            "-H",
            f"Content-Type: {content_type}",
            "-H",
            "Accept: multipart/mixed",
            "--data-binary",
            f"@{body}",
            "-w",
            "%{http_code} %{size_download} %{time_total}",
            url,
        ]
    )
    code, size, total = out.split()
    if code != "200" or int(size) < at_least:
        raise ExternalError(f"curl {url}: status {code}, {size} octets (want >= {at_least})")
    return float(total)


def _free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        port: int = probe.getsockname()[1]
        return port


def _wait_listening(host: str, port: int, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + processes.STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ExternalError(f"nginx exited with {process.returncode}")
        try:
            with socket.create_connection((host, port), timeout=1.0):
                return
        except OSError:
            time.sleep(0.05)
    raise ExternalError(f"nginx did not listen on {host}:{port}")


@contextmanager
def nginx_static(files: Mapping[str, bytes], host: str = "127.0.0.1") -> Iterator[processes.Child]:
    """nginx serving ``files`` (URL path -> octets) over h2c on a free port, until exit."""
    with tempfile.TemporaryDirectory(prefix="mixbatch-nginx-") as tmp:
        folder = Path(tmp)
        for sub in ("root", "tmp"):
            (folder / sub).mkdir()
        for url_path, content in files.items():
            target = folder / "root" / url_path.lstrip("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
        port = _free_port(host)
        conf = folder / "nginx.conf"
        conf.write_text(
            _NGINX_CONF.format(dir=folder, host=host, port=port, streams=NGINX_MAX_STREAMS)
        )
        process = subprocess.Popen(
            ["nginx", "-e", str(folder / "error.log"), "-p", str(folder), "-c", str(conf)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        child = processes.Child("nginx", process, host, port)
        try:
            _wait_listening(host, port, process)
            yield child
        finally:
            child.stop()
