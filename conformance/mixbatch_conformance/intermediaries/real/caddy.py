"""Caddy's ``reverse_proxy``, from a Caddyfile, admin endpoint and automatic HTTPS off.

Caddy passes the client's Host on and streams request bodies by default. ``encode gzip``
compresses responses of any media type once they pass its minimum length.
"""

from __future__ import annotations

from pathlib import Path

from mixbatch_conformance.intermediaries.real import Layout

__all__ = ["CONFIG_NAME", "command", "config", "prepare"]

CONFIG_NAME = "Caddyfile"


def config(variant: str, layout: Layout) -> str:
    w = layout.workdir
    host, port = layout.upstream
    site = f"http://127.0.0.1:{layout.port}"
    inner = ""
    if variant == "h2":
        site = f"https://127.0.0.1:{layout.port}"
        inner += f"\ttls {layout.cert} {layout.key}\n"
    if variant == "gzip":
        inner += "\tencode gzip\n"
    proxy = f"\treverse_proxy {host}:{port}\n"
    if variant == "unbuffered":
        proxy = f"\treverse_proxy {host}:{port} {{\n\t\tflush_interval -1\n\t}}\n"
    if variant == "recommended":
        proxy = (
            f"\treverse_proxy {host}:{port} {{\n\t\ttransport http {{\n"
            "\t\t\tread_timeout 120s\n\t\t\twrite_timeout 120s\n\t\t}\n\t}\n"
        )
    return f"""\
{{
\tadmin off
\tauto_https disable_redirects
\tstorage file_system {w}/data
\tlog {{
\t\toutput file {w}/error.log
\t}}
}}
{site} {{
{inner}{proxy}}}
"""


def prepare(binary: str, conf: Path, layout: Layout) -> None:
    """Nothing to make besides the configuration."""


def command(binary: str, conf: Path, layout: Layout) -> list[str]:
    return [binary, "run", "--config", str(conf), "--adapter", "caddyfile"]
