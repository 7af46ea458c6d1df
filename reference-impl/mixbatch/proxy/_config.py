"""Proxy configuration: the upstream origin and every bound the proxy applies, with reasons.

A batching proxy (spec §10.2, thesis §4.3) spends three kinds of resource on a client's behalf:
what it accepts (the codec's ``Limits``, enforced before anything is forwarded, MB-PROXY-3),
upstream connections (a keep-alive pool, each connection carrying a bounded pipeline) and time
(a per-sub-request timeout, so one stuck sub-request costs one 504 part, MB-PROXY-2).
``ProxyConfig`` gathers them and validates them when it is built, naming the bad argument.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

from mixbatch._http.budget import BUSY_RETRY_AFTER, MAX_BATCH_BYTES_IN_FLIGHT, MAX_BATCHES_IN_FLIGHT
from mixbatch.codec import Limits

__all__ = [
    "BATCH_PATH",
    "CONNECT_TIMEOUT",
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "MAX_CONNECTIONS",
    "MAX_PIPELINE_DEPTH",
    "MAX_RESPONSE_HEADER_BYTES",
    "RUN_AHEAD",
    "SUBREQUEST_TIMEOUT",
    "ProxyConfig",
    "Upstream",
]

#: Loopback by default: a proxy must not listen on every interface unasked.
DEFAULT_HOST = "127.0.0.1"
#: The port the CLI uses when none is given; 0 asks the OS for an ephemeral port.
DEFAULT_PORT = 8081
#: The path of the proxy's batch endpoint; every other target passes through.
BATCH_PATH = "/batch"
#: Upstream connections one proxy keeps: enough to overlap a few pipelines, few enough that one
#: batch never looks like a flood to the origin (MB-SEC-1: bound the concurrency of one batch).
MAX_CONNECTIONS = 4
#: Safe sub-requests written ahead on one connection before its first answer arrives. A slow
#: answer blocks those behind it (head-of-line), so the depth stays modest.
MAX_PIPELINE_DEPTH = 16
#: Parts the proxy may run ahead of the part being written to the client: results waiting for
#: earlier ones are held in memory, and this bounds how many.
RUN_AHEAD = 64
#: Seconds one sub-request may take from the moment its answer is due until its last octet.
SUBREQUEST_TIMEOUT = 30.0
#: Seconds to open one upstream connection; a refusal or this timeout is a 502 part.
CONNECT_TIMEOUT = 5.0
#: An upstream response header section over this is an upstream failure (502), as in h11.
MAX_RESPONSE_HEADER_BYTES = 64 * 1024


@dataclass(frozen=True, slots=True)
class Upstream:
    """The one origin a proxy forwards to (MB-PROXY-1): scheme, host, port and authority."""

    scheme: str
    host: str
    port: int
    #: What the proxy sends in Host (MB-PROXY-4): host, plus the port unless it is the default.
    authority: str

    @classmethod
    def parse(cls, url: str) -> Upstream:
        parts = urlsplit(url)
        if parts.scheme != "http":
            raise ValueError(f"upstream must be an http:// URL, got {url!r}")
        if not parts.hostname:
            raise ValueError(f"upstream URL has no host: {url!r}")
        if parts.username is not None or parts.password is not None:
            raise ValueError(f"upstream URL must not carry userinfo: {url!r}")
        if parts.path not in ("", "/") or parts.query or parts.fragment:
            raise ValueError(f"upstream must be an origin (no path, query or fragment): {url!r}")
        try:
            port = parts.port or 80
        except ValueError as exc:
            raise ValueError(f"upstream URL has a bad port: {url!r}") from exc
        host = parts.hostname
        shown = f"[{host}]" if ":" in host else host
        authority = shown if port == 80 else f"{shown}:{port}"
        return cls("http", host, port, authority)

    @property
    def url(self) -> str:
        return f"{self.scheme}://{self.authority}"


@dataclass(frozen=True, slots=True)
class ProxyConfig:
    """Everything one proxy instance may spend. Every number must be positive."""

    upstream: Upstream
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    batch_path: str = BATCH_PATH
    limits: Limits = field(default_factory=Limits)
    max_connections: int = MAX_CONNECTIONS
    max_pipeline_depth: int = MAX_PIPELINE_DEPTH
    run_ahead: int = RUN_AHEAD
    subrequest_timeout: float = SUBREQUEST_TIMEOUT
    connect_timeout: float = CONNECT_TIMEOUT
    max_response_header_bytes: int = MAX_RESPONSE_HEADER_BYTES
    #: The budget for batches held at once (MB-LIMIT-6), and the Retry-After of a refusal: a
    #: proxy holds each batch whole before it forwards a part (MB-PROXY-3), as a server does.
    max_batches_in_flight: int = MAX_BATCHES_IN_FLIGHT
    max_batch_bytes_in_flight: int = MAX_BATCH_BYTES_IN_FLIGHT
    busy_retry_after: int = BUSY_RETRY_AFTER

    def __post_init__(self) -> None:
        if not 0 <= self.port <= 65535:
            raise ValueError(f"ProxyConfig.port must be 0-65535, got {self.port!r}")
        for name in (
            "max_connections",
            "max_pipeline_depth",
            "run_ahead",
            "subrequest_timeout",
            "connect_timeout",
            "max_response_header_bytes",
            "max_batches_in_flight",
            "max_batch_bytes_in_flight",
            "busy_retry_after",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                raise ValueError(f"ProxyConfig.{name} must be positive, got {value!r}")
        if not self.batch_path.startswith("/"):
            raise ValueError(f"ProxyConfig.batch_path must start with '/', got {self.batch_path!r}")
