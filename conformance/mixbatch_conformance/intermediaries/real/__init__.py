"""Real intermediaries in front of a server: the proxies people deploy, run as child processes.

Each intermediary is one module here holding two things: ``config(variant, layout)``, a pure
function that returns the text of a minimal configuration for a named variant, and
``command(conf, layout)``, the argv that runs the program in the foreground with that file.
``_launch.start_real`` writes the file into a private temp dir, starts the program on a free
loopback port (pid, logs and caches inside that dir; no system service, no privileged port),
waits until the port answers, yields the URL to test through, and stops it afterwards.

Variants, the rows of the published matrix (not every program has every one):

- ``default``: the least a deployer writes to proxy one origin; every other setting the
  program's own default.
- ``recommended``: ``default`` plus the settings in the deployment guide that make a batch
  pass (the client's Host passed on, large bodies allowed, no compression of multipart/mixed).
- ``unbuffered``: request and response buffering turned off where the program allows it.
- ``gzip``: response compression on for every media type, as an over-eager deployer writes it.
- ``h2``: TLS with HTTP/2 to the client (self-signed certificate), HTTP/1.1 to the origin.
- ``h2c``: HTTP/2 with prior knowledge on a cleartext port, HTTP/1.1 to the origin.

In the HTTP/2 variants the suite sends its requests over HTTP/2 (``--http2``).
- ``round-robin``: the load balancer in front of two origin processes, alternating.
- ``scale-out``: the same, each client kept on one process (``balance source``).

A program that is not installed is not applicable, with the command that installs it; it is
never a failure of the run. This package decides nothing about checks.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "INTERMEDIARIES",
    "TWO_ORIGINS",
    "VARIANTS",
    "Intermediary",
    "Layout",
    "install_command",
    "intermediary",
    "split_name",
]

#: Every variant name with what it sets; a program lists the ones it supports.
VARIANTS: dict[str, str] = {
    "default": "the least configuration that proxies one origin",
    "recommended": "the deployment guide's settings",
    "unbuffered": "request and response buffering off",
    "gzip": "response compression on for every media type",
    "h2": "TLS and HTTP/2 to the client, HTTP/1.1 to the origin",
    "h2c": "HTTP/2 with prior knowledge on the cleartext port, HTTP/1.1 to the origin",
    "round-robin": "two origin processes behind one front end, requests alternating",
    "scale-out": "two origin processes behind one front end, each client kept on one",
}
#: Variants with two origins behind the front end; their comparison requests go through it.
TWO_ORIGINS = ("round-robin", "scale-out")


@dataclass(frozen=True, slots=True)
class Layout:
    """Where one run of an intermediary lives: its private dir, its port, its origins."""

    workdir: Path
    port: int
    #: (host, port) of each origin; more than one only for ``scale-out``.
    upstreams: tuple[tuple[str, int], ...]
    #: Certificate and key (PEM) for the TLS variants, None otherwise.
    cert: Path | None = None
    key: Path | None = None

    @property
    def upstream(self) -> tuple[str, int]:
        return self.upstreams[0]


@dataclass(frozen=True, slots=True)
class Intermediary:
    """One program: its Debian package, its binary, its module, and its variants."""

    name: str
    package: str
    binary: str
    module: str
    variants: tuple[str, ...]
    #: The argument that makes the binary print its version.
    version_flag: str = "-v"
    #: The front end speaks TLS in these variants (the suite is given an https URL).
    tls_variants: tuple[str, ...] = ("h2",)
    #: The suite speaks HTTP/2 to the front end in these variants.
    http2_variants: tuple[str, ...] = ("h2", "h2c")

    def installed(self) -> bool:
        return self.binary_path() is not None

    def binary_path(self) -> str | None:
        for candidate in (self.binary, f"/usr/sbin/{self.binary}", f"/usr/bin/{self.binary}"):
            found = shutil.which(candidate)
            if found:
                return found
        return None

    def version(self) -> str:
        """The first line the binary prints about its version ("" when it cannot run)."""
        binary = self.binary_path()
        if binary is None:
            return ""
        try:
            done = subprocess.run(
                [binary, self.version_flag], capture_output=True, text=True, timeout=10
            )
        except (OSError, subprocess.TimeoutExpired):
            return ""
        lines = (done.stdout + done.stderr).strip().splitlines()
        return lines[0].strip() if lines else ""


INTERMEDIARIES: dict[str, Intermediary] = {
    i.name: i
    for i in (
        Intermediary(
            "nginx", "nginx", "nginx", "nginx",
            ("default", "recommended", "unbuffered", "gzip", "h2"),
        ),
        Intermediary(
            "haproxy", "haproxy", "haproxy", "haproxy",
            ("default", "recommended", "gzip", "h2", "round-robin", "scale-out"),
        ),
        Intermediary(
            "apache", "apache2", "apache2", "apache",
            ("default", "recommended", "gzip", "h2"),
        ),
        Intermediary(
            "caddy", "caddy", "caddy", "caddy",
            ("default", "recommended", "unbuffered", "gzip", "h2"), version_flag="version",
        ),
        Intermediary(
            "varnish", "varnish", "varnishd", "varnish", ("default", "recommended"),
            version_flag="-V",
        ),
        Intermediary("squid", "squid", "squid", "squid", ("default", "recommended")),
        Intermediary(
            "trafficserver", "trafficserver", "traffic_server", "trafficserver",
            ("default", "recommended"), version_flag="--version",
        ),
        Intermediary(
            "h2o", "h2o", "h2o", "h2o", ("default", "recommended", "gzip", "h2", "h2c"),
            version_flag="--version",
        ),
        Intermediary(
            "lighttpd", "lighttpd", "lighttpd", "lighttpd",
            ("default", "recommended", "unbuffered"),
        ),
    )
}  # fmt: skip


def install_command(chosen: Intermediary) -> str:
    return f"apt-get install -y {chosen.package}"


def intermediary(name: str) -> Intermediary:
    """The intermediary called ``name``; raises ValueError listing the known names."""
    try:
        return INTERMEDIARIES[name]
    except KeyError:
        raise ValueError(
            f"unknown intermediary {name!r}; known: {', '.join(INTERMEDIARIES)}"
        ) from None


def split_name(text: str) -> tuple[Intermediary, str] | None:
    """``nginx`` or ``nginx:gzip`` as (intermediary, variant); None when it names no program.

    ValueError when the program is known but does not have the variant."""
    name, _, variant = text.partition(":")
    chosen = INTERMEDIARIES.get(name)
    if chosen is None:
        return None
    variant = variant or "default"
    if variant not in chosen.variants:
        raise ValueError(f"{name} has no variant {variant!r}; it has: {', '.join(chosen.variants)}")
    return chosen, variant
