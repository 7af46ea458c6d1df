"""Apache Traffic Server as a reverse proxy, from a run root of its own inside the run's dir.

``runroot.yaml`` points every directory Traffic Server writes (configuration, cache, logs,
runtime) into the run's dir; the configuration files are Debian's, with ``records.config``,
``remap.config`` and ``storage.config`` written here. By default the remap rule rewrites
Host to the origin's (``pristine_host_hdr 0``), the Host problem again.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from mixbatch_conformance.intermediaries.real import Layout

__all__ = ["CONFIG_NAME", "command", "config", "prepare"]

CONFIG_NAME = "records.config"
SYSTEM_CONFIG = Path("/etc/trafficserver")
#: The disk cache file; Traffic Server will not start without one.
CACHE_SIZE = "64M"


def config(variant: str, layout: Layout) -> str:
    w = layout.workdir
    pristine = 1 if variant != "default" else 0
    return f"""\
CONFIG proxy.config.http.server_ports STRING {layout.port}:ipv4:ip-in=127.0.0.1
CONFIG proxy.config.reverse_proxy.enabled INT 1
CONFIG proxy.config.url_remap.remap_required INT 1
CONFIG proxy.config.url_remap.pristine_host_hdr INT {pristine}
CONFIG proxy.config.admin.user_id STRING #-1
CONFIG proxy.config.log.logfile_dir STRING {w}/log
CONFIG proxy.config.diags.debug.enabled INT 0
CONFIG proxy.config.cache.ram_cache.size INT 16777216
CONFIG proxy.config.http.cache.http INT {0 if variant != "default" else 1}
CONFIG proxy.config.hostdb.host_file.path STRING /etc/hosts
"""


def prepare(binary: str, conf: Path, layout: Layout) -> None:
    """The run root: Debian's configuration copied, this run's files over it."""
    w = layout.workdir
    host, port = layout.upstream
    etc = w / "etc"
    shutil.copytree(SYSTEM_CONFIG, etc, dirs_exist_ok=True)
    shutil.copy2(conf, etc / "records.config")
    (etc / "remap.config").write_text(
        "".join(
            f"map http://{name}:{layout.port}/ http://{host}:{port}/\n"
            for name in ("127.0.0.1", "localhost")
        )
    )
    (etc / "storage.config").write_text(f"{w}/cache/disk {CACHE_SIZE}\n")
    for sub in ("cache", "log", "run"):
        (w / sub).mkdir(exist_ok=True)
    (w / "runroot.yaml").write_text(
        "\n".join(
            [
                "prefix: /usr",
                "exec_prefix: /usr",
                "bindir: /usr/bin",
                "sbindir: /usr/sbin",
                f"sysconfdir: {etc}",
                f"datadir: {w}/cache",
                "includedir: /usr/include",
                "libdir: /usr/lib/trafficserver",
                "libexecdir: /usr/lib/trafficserver/modules",
                f"localstatedir: {w}",
                f"runtimedir: {w}/run",
                f"logdir: {w}/log",
                f"cachedir: {w}/cache",
                "",
            ]
        )
    )
    del binary


def command(binary: str, conf: Path, layout: Layout) -> list[str]:
    return [binary, f"--run-root={layout.workdir}/runroot.yaml"]
