"""lighttpd's ``mod_proxy``, in the foreground (``-D``).

lighttpd passes Host on and by default reads a whole request body before it forwards it
(``server.stream-request-body = 0``) and a whole response before it sends it on; the
``unbuffered`` variant streams both ways.
"""

from __future__ import annotations

from pathlib import Path

from mixbatch_conformance.intermediaries.real import Layout

__all__ = ["CONFIG_NAME", "command", "config", "prepare"]

CONFIG_NAME = "lighttpd.conf"


def config(variant: str, layout: Layout) -> str:
    w = layout.workdir
    host, port = layout.upstream
    extra = ""
    if variant == "unbuffered":
        extra += "server.stream-request-body = 2\nserver.stream-response-body = 2\n"
    if variant != "default":
        extra += "server.max-read-idle = 120\nserver.max-write-idle = 120\n"
    return f"""\
server.document-root = "{w}"
server.bind = "127.0.0.1"
server.port = {layout.port}
server.errorlog = "{w}/error.log"
server.pid-file = "{w}/lighttpd.pid"
server.upload-dirs = ("{w}")
server.modules = ("mod_proxy")
proxy.server = ("" => (("host" => "{host}", "port" => {port})))
{extra}"""


def prepare(binary: str, conf: Path, layout: Layout) -> None:
    """Nothing to make besides the configuration."""


def command(binary: str, conf: Path, layout: Layout) -> list[str]:
    return [binary, "-D", "-f", str(conf)]
