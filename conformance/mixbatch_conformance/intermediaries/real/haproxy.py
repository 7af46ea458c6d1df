"""HAProxy in HTTP mode, in the foreground (``-db``), one frontend and one backend.

HAProxy passes Host and the content on unchanged. Without ``timeout`` settings it warns and
waits forever; ``compression algo gzip`` with no ``compression type`` compresses every media
type, but a response with ``Cache-Control: no-transform`` is left alone (MB-INTER-4). Its TLS
certificate is one PEM file holding the certificate and the key.
"""

from __future__ import annotations

from pathlib import Path

from mixbatch_conformance.intermediaries.real import Layout

__all__ = ["CONFIG_NAME", "command", "config", "prepare"]

CONFIG_NAME = "haproxy.cfg"
#: The deployment guide's timeouts: a batch's parts all run before its answer ends, so the
#: server timeout must outlast the longest batch the origin allows (its batch timeout).
TIMEOUTS = """\
    timeout connect 5s
    timeout client 120s
    timeout server 120s
    timeout http-request 30s
"""


def config(variant: str, layout: Layout) -> str:
    bind = f"127.0.0.1:{layout.port}"
    if variant == "h2":
        bind += f" ssl crt {layout.workdir}/site.pem alpn h2,http/1.1"
    frontend = ""
    if variant == "gzip":
        frontend = "    compression algo gzip\n"
    servers = "".join(
        f"    server origin{n} {host}:{port}\n" for n, (host, port) in enumerate(layout.upstreams)
    )
    # A batch is one request, so all its parts run on one origin; what needs configuring is
    # what any stateful API needs: one client's requests on the process that holds its state.
    balance = {"round-robin": "    balance roundrobin\n", "scale-out": "    balance source\n"}

    return f"""\
global
    pidfile {layout.workdir}/haproxy.pid
    log stderr format short local0 notice
defaults
    mode http
    log global
{TIMEOUTS if variant != "default" else ""}frontend front
    bind {bind}
{frontend}    default_backend origins
backend origins
{balance.get(variant, "")}{servers}"""


def prepare(binary: str, conf: Path, layout: Layout) -> None:
    """HAProxy reads the certificate and its key from one file."""
    if layout.cert is not None and layout.key is not None:
        pem = layout.cert.read_bytes() + layout.key.read_bytes()
        (layout.workdir / "site.pem").write_bytes(pem)


def command(binary: str, conf: Path, layout: Layout) -> list[str]:
    return [binary, "-db", "-f", str(conf)]
