"""Apache httpd with mod_proxy_http, event MPM, in the foreground, from a self-contained file.

Its defaults: ``ProxyPreserveHost Off`` sends the origin's address as Host (the same Host
problem as nginx); mod_deflate (``SetOutputFilter DEFLATE``) compresses any media type but
leaves a response with ``Cache-Control: no-transform`` alone.
"""

from __future__ import annotations

from pathlib import Path

from mixbatch_conformance.intermediaries.real import Layout

__all__ = ["CONFIG_NAME", "MODULES", "command", "config", "prepare"]

CONFIG_NAME = "apache.conf"
MODULES_DIR = "/usr/lib/apache2/modules"
#: Modules every variant loads; the TLS and compression variants add theirs.
MODULES = ("mpm_event", "authz_core", "proxy", "proxy_http")


def _load(names: tuple[str, ...]) -> str:
    return "".join(f"LoadModule {n}_module {MODULES_DIR}/mod_{n}.so\n" for n in names)


def config(variant: str, layout: Layout) -> str:
    w = layout.workdir
    host, port = layout.upstream
    modules: tuple[str, ...] = MODULES
    extra = ""
    if variant == "gzip":
        modules += ("filter", "deflate")
        extra += "SetOutputFilter DEFLATE\n"
    if variant == "h2":
        modules += ("socache_shmcb", "ssl", "http2")
        extra += (
            f"Protocols h2 http/1.1\nSSLEngine on\nSSLCertificateFile {layout.cert}\n"
            f"SSLCertificateKeyFile {layout.key}\nSSLSessionCache none\n"
        )
    if variant != "default":
        extra += "ProxyPreserveHost On\nProxyTimeout 120\n"
    return f"""\
{_load(modules)}ServerRoot {w}
ServerName 127.0.0.1
Listen 127.0.0.1:{layout.port}
PidFile {w}/apache.pid
DefaultRuntimeDir {w}
Mutex file:{w} default
ErrorLog {w}/error.log
LogLevel warn
LogFormat "%h %l %u %t \\"%r\\" %>s %b" common
CustomLog {w}/access.log common
{extra}ProxyPass / http://{host}:{port}/
ProxyPassReverse / http://{host}:{port}/
"""


def prepare(binary: str, conf: Path, layout: Layout) -> None:
    """Nothing to make besides the configuration."""


def command(binary: str, conf: Path, layout: Layout) -> list[str]:
    return [binary, "-d", str(layout.workdir), "-f", str(conf), "-DFOREGROUND"]
