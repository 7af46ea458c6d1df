"""h2o's ``proxy.reverse.url``, from a YAML file, in the foreground.

h2o 2.2 sends the origin's address as Host unless ``proxy.preserve-host: ON`` (the nginx and
Apache problem again); its cleartext port also takes HTTP/2 with prior knowledge, and
``compress: ON`` compresses text media types only.
"""

from __future__ import annotations

from pathlib import Path

from mixbatch_conformance.intermediaries.real import Layout

__all__ = ["CONFIG_NAME", "command", "config", "prepare"]

CONFIG_NAME = "h2o.conf"


def config(variant: str, layout: Layout) -> str:
    w = layout.workdir
    host, port = layout.upstream
    listen = f"listen:\n  host: 127.0.0.1\n  port: {layout.port}\n"
    if variant == "h2":
        listen += f"  ssl:\n    certificate-file: {layout.cert}\n    key-file: {layout.key}\n"
    path_extra = ""
    if variant != "default":
        path_extra += "        proxy.preserve-host: ON\n        proxy.timeout.io: 120000\n"
    if variant == "gzip":
        path_extra += "        compress: ON\n"
    return f"""\
{listen}pid-file: {w}/h2o.pid
error-log: {w}/error.log
access-log: {w}/access.log
hosts:
  default:
    paths:
      /:
        proxy.reverse.url: http://{host}:{port}/
{path_extra}"""


def prepare(binary: str, conf: Path, layout: Layout) -> None:
    """Nothing to make besides the configuration."""


def command(binary: str, conf: Path, layout: Layout) -> list[str]:
    return [binary, "-c", str(conf)]
