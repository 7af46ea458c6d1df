"""The HTTP host's limits and timeouts as named constants, and the settings a host reads.

The connection code (``connection``, ``listener``) reads its limits from any object with the
attributes of ``HostSettings``: the reference server passes its ``HostSettings``, the batching
proxy a ``HostConfig``. Each default carries a one-line reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from .origin import parse_public_origin

__all__ = [
    "BATCH_PATH",
    "BODY_READ_TIMEOUT",
    "COALESCE_MAX_BYTES",
    "DEFAULT_HOST",
    "DISCARD_TIMEOUT",
    "HEADER_READ_TIMEOUT",
    "IDLE_TIMEOUT",
    "MAX_DISCARD_BYTES",
    "MAX_DRAIN_BYTES",
    "MAX_REQUEST_BODY_BYTES",
    "MAX_REQUEST_HEADER_BYTES",
    "READ_BUFFER_HIGH_WATER",
    "SHUTDOWN_GRACE",
    "HostConfig",
    "HostSettings",
]

#: Loopback by default: a demo server should not listen on every interface unasked.
DEFAULT_HOST = "127.0.0.1"
#: The batch endpoint's path: its content is bounded by the application, not the host.
BATCH_PATH = "/batch"
#: h11's own default (16 KiB): large enough for real cookies, small enough to refuse floods (431).
MAX_REQUEST_HEADER_BYTES = 16 * 1024
#: A standalone request body may be as large as one batch part, so every request that works
#: alone also fits in a batch (codec MAX_PART_BYTES, 16 MiB).
MAX_REQUEST_BODY_BYTES = 16 * 1024 * 1024
#: Unread input above this pauses the socket: one pipelined burst never grows the buffer further.
READ_BUFFER_HIGH_WATER = 256 * 1024
#: Pipelined responses are coalesced into one write until this much output is pending.
COALESCE_MAX_BYTES = 64 * 1024
#: A handler that left its request body unread costs at most this much draining; beyond it the
#: connection closes instead, so a refused upload never has to be received in full.
MAX_DRAIN_BYTES = 64 * 1024
#: After a response that refused a request before its content was read (an early 413), the
#: server keeps reading and discarding the rest of that content, up to this many octets, so that
#: the client or a proxy still writing it reads the response instead of a reset (RFC 9112 §9.6).
#: Twice the codec's default max_batch_bytes (64 MiB): a batch well over the limit is still
#: read to its end; content announced as larger is not read at all and the connection closes.
MAX_DISCARD_BYTES = 128 * 1024 * 1024
#: Seconds that discarding may take in all; a peer that keeps sending (an endless chunked
#: body) is cut off when it ends. 128 MiB take well under a second on a LAN.
DISCARD_TIMEOUT = 5.0
#: Seconds from the first byte of a request to the end of its header section (slowloris bound).
HEADER_READ_TIMEOUT = 10.0
#: Seconds an idle keep-alive connection stays open; the thesis (ch. 4.1) advises keeping it short.
IDLE_TIMEOUT = 5.0
#: Seconds the server waits for the next chunk of a request body before giving up (408).
BODY_READ_TIMEOUT = 30.0
#: Seconds a graceful shutdown waits for in-flight requests before closing them.
SHUTDOWN_GRACE = 10.0


class HostSettings(Protocol):
    """What the listener and its connections read; ``HostSettings`` and ``HostConfig`` have it."""

    @property
    def host(self) -> str: ...
    @property
    def port(self) -> int: ...
    @property
    def batch_path(self) -> str: ...
    @property
    def max_request_header_bytes(self) -> int: ...
    @property
    def max_request_body_bytes(self) -> int: ...
    @property
    def read_buffer_high_water(self) -> int: ...
    @property
    def coalesce_max_bytes(self) -> int: ...
    @property
    def max_drain_bytes(self) -> int: ...
    @property
    def max_discard_bytes(self) -> int: ...
    @property
    def discard_timeout(self) -> float: ...
    @property
    def header_read_timeout(self) -> float: ...
    @property
    def idle_timeout(self) -> float: ...
    @property
    def body_read_timeout(self) -> float: ...
    @property
    def shutdown_grace(self) -> float: ...
    @property
    def public_origin(self) -> str | None: ...
    @property
    def trust_forwarded(self) -> bool: ...


@dataclass(frozen=True, slots=True)
class HostConfig:
    """The host's settings alone, for an application that has no others (the batching proxy)."""

    host: str = DEFAULT_HOST
    port: int = 0
    batch_path: str = BATCH_PATH
    max_request_header_bytes: int = MAX_REQUEST_HEADER_BYTES
    max_request_body_bytes: int = MAX_REQUEST_BODY_BYTES
    read_buffer_high_water: int = READ_BUFFER_HIGH_WATER
    coalesce_max_bytes: int = COALESCE_MAX_BYTES
    max_drain_bytes: int = MAX_DRAIN_BYTES
    max_discard_bytes: int = MAX_DISCARD_BYTES
    discard_timeout: float = DISCARD_TIMEOUT
    header_read_timeout: float = HEADER_READ_TIMEOUT
    idle_timeout: float = IDLE_TIMEOUT
    body_read_timeout: float = BODY_READ_TIMEOUT
    shutdown_grace: float = SHUTDOWN_GRACE
    #: The origin clients reach this host at through a TLS terminator ("https://host[:port]"),
    #: and whether Forwarded / X-Forwarded-* name it; both off by default (see ``origin``).
    public_origin: str | None = None
    trust_forwarded: bool = False

    def __post_init__(self) -> None:
        if not 0 <= self.port <= 65535:
            raise ValueError(f"HostConfig.port must be 0-65535, got {self.port!r}")
        if self.public_origin is not None:
            parse_public_origin(self.public_origin)
        for name in HostConfig.__dataclass_fields__:
            value = getattr(self, name)
            if name in ("host", "port", "batch_path", "public_origin", "trust_forwarded"):
                continue
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                raise ValueError(f"HostConfig.{name} must be positive, got {value!r}")
        if not self.batch_path.startswith("/"):
            raise ValueError(f"HostConfig.batch_path must start with '/', got {self.batch_path!r}")
