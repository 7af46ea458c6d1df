"""nginx as a reverse proxy (``ngx_http_proxy_module``), one worker, in the foreground.

What its defaults do to a batch (nginx 1.22): ``proxy_set_header Host $proxy_host`` sends the
upstream's address as Host, so a same-origin absolute target in a part names another origin
to the server (MB-SUB-2); ``client_max_body_size 1m`` refuses larger batches with 413;
``proxy_http_version 1.0`` reads the answer to the close, dropping trailers (Batch-Summary);
``gzip_types *`` with ``gzip_proxied any`` compresses multipart/mixed despite
``Cache-Control: no-transform`` (MB-INTER-4).
"""

from __future__ import annotations

from pathlib import Path

from mixbatch_conformance.intermediaries.real import Layout

__all__ = ["CONFIG_NAME", "command", "config", "prepare"]

CONFIG_NAME = "nginx.conf"

#: The deployment guide's settings: the client's Host, bodies as large as the origin's own
#: limit (0: nginx does not check), HTTP/1.1 upstream with keep-alive and chunked answers.
RECOMMENDED = """\
            proxy_http_version 1.1;
            proxy_set_header Host $http_host;
            proxy_set_header Connection "";
            client_max_body_size 0;
            proxy_read_timeout 120s;
            proxy_send_timeout 120s;
"""
UNBUFFERED = """\
            proxy_request_buffering off;
            proxy_buffering off;
"""
GZIP_EVERYTHING = """\
        gzip on;
        gzip_types *;
        gzip_proxied any;
        gzip_min_length 1;
"""


def config(variant: str, layout: Layout) -> str:
    w = layout.workdir
    host, port = layout.upstream
    listen = f"127.0.0.1:{layout.port}"
    if variant == "h2":
        listen += " ssl http2"
    location = RECOMMENDED if variant != "default" else ""
    if variant == "unbuffered":
        location += UNBUFFERED
    server_extra = ""
    if variant == "h2":
        server_extra = (
            f"        ssl_certificate {layout.cert};\n        ssl_certificate_key {layout.key};\n"
        )
    if variant == "gzip":
        server_extra += GZIP_EVERYTHING
    return f"""\
daemon off;
master_process on;
worker_processes 1;
pid {w}/nginx.pid;
error_log {w}/error.log info;
events {{
    worker_connections 256;
}}
http {{
    access_log {w}/access.log;
    client_body_temp_path {w}/client_body;
    proxy_temp_path {w}/proxy;
    fastcgi_temp_path {w}/fastcgi;
    uwsgi_temp_path {w}/uwsgi;
    scgi_temp_path {w}/scgi;
    server {{
        listen {listen};
{server_extra}        location / {{
            proxy_pass http://{host}:{port};
{location}        }}
    }}
}}
"""


def prepare(binary: str, conf: Path, layout: Layout) -> None:
    """Nothing to make besides the configuration."""


def command(binary: str, conf: Path, layout: Layout) -> list[str]:
    return [
        binary,
        "-p",
        f"{layout.workdir}/",
        "-c",
        str(conf),
        "-e",
        f"{layout.workdir}/error.log",
    ]
