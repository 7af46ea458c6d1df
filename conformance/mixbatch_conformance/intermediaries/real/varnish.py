"""Varnish Cache in the foreground (``-F``), its working dir (``-n``) inside the run's dir.

Varnish's built-in VCL passes POST to the origin uncached and keeps Host. It reads a batch
answer whole before sending it on unless the response is streamed (``do_stream``, on by
default since 4.0), and answers 503 when the origin's first byte takes longer than
``first_byte_timeout`` (60 s).
"""

from __future__ import annotations

from pathlib import Path

from mixbatch_conformance.intermediaries.real import Layout

__all__ = ["CONFIG_NAME", "command", "config", "prepare"]

CONFIG_NAME = "default.vcl"
#: Cache memory: the suite's run caches next to nothing (POST passes).
STORAGE = "malloc,64m"


def config(variant: str, layout: Layout) -> str:
    host, port = layout.upstream
    timeouts = ""
    recv = ""
    if variant != "default":
        timeouts = "    .first_byte_timeout = 120s;\n    .between_bytes_timeout = 120s;\n"
        # A batch is never cached and always streams (MB-INTER-1: a batch is opaque to an
        # intermediary; caching one would replay other requests' answers).
        recv = (
            # A GET or HEAD with content goes to the origin as it came (pipe): it must reach the
            # server to be refused there (MB-METHOD-3), and Varnish drops the content of a GET
            # it looks up or passes.
            "sub vcl_recv {\n"
            '    if ((req.method == "GET" || req.method == "HEAD")\n'
            "        && (req.http.Content-Length || req.http.Transfer-Encoding)) {\n"
            "        return (pipe);\n"
            "    }\n"
            "}\n"
            "sub vcl_backend_response {\n"
            '    if (beresp.http.Content-Type ~ "^multipart/mixed") {\n'
            "        set beresp.uncacheable = true;\n"
            "        set beresp.do_stream = true;\n"
            "        return (deliver);\n"
            "    }\n"
            "}\n"
        )
    return f"""\
vcl 4.1;

backend origin {{
    .host = "{host}";
    .port = "{port}";
{timeouts}}}
{recv}"""


def prepare(binary: str, conf: Path, layout: Layout) -> None:
    """Nothing to make besides the configuration."""


def command(binary: str, conf: Path, layout: Layout) -> list[str]:
    w = layout.workdir
    return [
        binary, "-F", "-a", f"127.0.0.1:{layout.port}", "-f", str(conf), "-n", f"{w}/varnish",
        "-s", STORAGE, "-P", f"{w}/varnishd.pid", "-T", "none",
    ]  # fmt: skip
