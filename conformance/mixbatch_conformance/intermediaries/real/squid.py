"""Squid as a reverse proxy (accelerator mode, ``http_port ... accel``), no disk cache, ``-N``.

With ``accel defaultsite=...`` and no ``vhost`` Squid sends the default site as Host, so the
origin sees another authority than the client named; ``vhost`` passes the client's Host on.
Squid forwards with Via and X-Forwarded-For and answers POST from the origin only.
"""

from __future__ import annotations

from pathlib import Path

from mixbatch_conformance.intermediaries.real import Layout

__all__ = ["CLIENT_BUFFER_MB", "CONFIG_NAME", "command", "config", "prepare"]

CONFIG_NAME = "squid.conf"
#: Squid's client request buffer in the recommended variant: the reference server's default
#: ``max_batch_bytes`` (64 MiB), so a whole batch the server accepts fits in it.
CLIENT_BUFFER_MB = 64


def config(variant: str, layout: Layout) -> str:
    w = layout.workdir
    host, port = layout.upstream
    accel = "accel defaultsite=127.0.0.1" + (" vhost" if variant != "default" else "")
    extra = ""
    # Squid forwards Authorization to an origin peer only when told to (MB-SUB-5: the parts
    # inherit the batch request's credentials, so the origin must see them).
    login = " login=PASSTHRU" if variant != "default" else ""
    if variant != "default":
        extra = "read_timeout 120 seconds\nrequest_timeout 120 seconds\ncache deny all\n"
        # With its default 512 KB client buffer, Squid 5.7 now and then takes a full buffer
        # for the client's end of stream while it is still relaying a large batch to the
        # origin (ERR_CLIENT_GONE in cache.log), closes both connections, and the client gets
        # no answer: a 16 MiB batch failed 7 of 12 times with the default, 0 of 18 with this.
        extra += f"client_request_buffer_max_size {CLIENT_BUFFER_MB} MB\n"
    return f"""\
http_port 127.0.0.1:{layout.port} {accel}
cache_peer {host} parent {port} 0 no-query originserver name=origin{login}
cache_peer_access origin allow all
http_access allow all
never_direct allow all
pid_filename {w}/squid.pid
cache_log {w}/cache.log
access_log stdio:{w}/access.log
cache_store_log none
coredump_dir {w}
icp_port 0
htcp_port 0
pinger_enable off
netdb_filename none
shutdown_lifetime 1 seconds
logfile_rotate 0
{extra}"""


def prepare(binary: str, conf: Path, layout: Layout) -> None:
    """Nothing to make besides the configuration."""


def command(binary: str, conf: Path, layout: Layout) -> list[str]:
    return [binary, "-N", "-d", "1", "-f", str(conf)]
