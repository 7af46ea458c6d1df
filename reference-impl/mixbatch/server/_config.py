"""Server configuration: every limit and timeout of the server as a named constant.

The codec's ``Limits`` bound what one batch envelope may contain; the constants here bound the
connection around it (header section size, read buffering, standalone bodies), the batches the
server holds at once (``_budget``) and the time a peer may take. Each default carries a one-line
reason. ``ServerConfig`` gathers them so that tests and the CLI can shrink any one of them, and
validates them when it is built.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mixbatch._http.budget import BUSY_RETRY_AFTER, MAX_BATCH_BYTES_IN_FLIGHT, MAX_BATCHES_IN_FLIGHT
from mixbatch._http.config import (
    BATCH_PATH,
    BODY_READ_TIMEOUT,
    COALESCE_MAX_BYTES,
    DEFAULT_HOST,
    DISCARD_TIMEOUT,
    HEADER_READ_TIMEOUT,
    IDLE_TIMEOUT,
    MAX_DISCARD_BYTES,
    MAX_DRAIN_BYTES,
    MAX_REQUEST_BODY_BYTES,
    MAX_REQUEST_HEADER_BYTES,
    READ_BUFFER_HIGH_WATER,
    SHUTDOWN_GRACE,
)
from mixbatch._http.origin import parse_public_origin
from mixbatch.codec import Limits
from mixbatch.envelope import SPOOL_IN_MEMORY_BYTES

__all__ = [
    "BATCH_PATH",
    "BATCH_TIMEOUT",
    "BODY_READ_TIMEOUT",
    "BUSY_RETRY_AFTER",
    "COALESCE_MAX_BYTES",
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "DISCARD_TIMEOUT",
    "HEADER_READ_TIMEOUT",
    "IDLE_TIMEOUT",
    "MAX_BATCHES_IN_FLIGHT",
    "MAX_BATCH_BYTES_IN_FLIGHT",
    "MAX_DELAY_MS",
    "MAX_DISCARD_BYTES",
    "MAX_DRAIN_BYTES",
    "MAX_RANDOM_BYTES",
    "MAX_REQUEST_BODY_BYTES",
    "MAX_REQUEST_HEADER_BYTES",
    "READ_BUFFER_HIGH_WATER",
    "SHUTDOWN_GRACE",
    "SPOOL_MEMORY_THRESHOLD",
    "ServerConfig",
]

#: The port the CLI uses when none is given; 0 asks the OS for an ephemeral port.
DEFAULT_PORT = 8080

#: Batch part bodies up to this total stay in memory; beyond it they spill to a temporary file.
SPOOL_MEMORY_THRESHOLD = SPOOL_IN_MEMORY_BYTES
#: /random/{n} serves at most this many octets: 16 MiB, so any answer fits one batch part.
MAX_RANDOM_BYTES = 16 * 1024 * 1024
#: /delay/{ms} sleeps at most ten seconds, well inside the whole-batch timeout.
MAX_DELAY_MS = 10_000

#: Seconds one batch may take from its header section to its last part, reception included.
BATCH_TIMEOUT = 120.0


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """Everything a server instance is allowed to spend. Every number must be positive."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    limits: Limits = field(default_factory=Limits)
    max_request_header_bytes: int = MAX_REQUEST_HEADER_BYTES
    max_request_body_bytes: int = MAX_REQUEST_BODY_BYTES
    read_buffer_high_water: int = READ_BUFFER_HIGH_WATER
    coalesce_max_bytes: int = COALESCE_MAX_BYTES
    max_drain_bytes: int = MAX_DRAIN_BYTES
    max_discard_bytes: int = MAX_DISCARD_BYTES
    discard_timeout: float = DISCARD_TIMEOUT
    spool_memory_threshold: int = SPOOL_MEMORY_THRESHOLD
    max_random_bytes: int = MAX_RANDOM_BYTES
    max_delay_ms: int = MAX_DELAY_MS
    header_read_timeout: float = HEADER_READ_TIMEOUT
    idle_timeout: float = IDLE_TIMEOUT
    body_read_timeout: float = BODY_READ_TIMEOUT
    batch_timeout: float = BATCH_TIMEOUT
    shutdown_grace: float = SHUTDOWN_GRACE
    batch_path: str = BATCH_PATH
    #: The budget for batches held at once (MB-LIMIT-6), and the Retry-After of a refusal.
    max_batches_in_flight: int = MAX_BATCHES_IN_FLIGHT
    max_batch_bytes_in_flight: int = MAX_BATCH_BYTES_IN_FLIGHT
    busy_retry_after: int = BUSY_RETRY_AFTER
    #: The directory of the demo resources' SQLite database; None: a fresh temporary directory
    #: that dies with the process (so a bare ``make run`` needs no set-up).
    data_dir: str | None = None
    #: Behind a TLS terminator or HTTP/2 front end: the origin clients reach the server at
    #: ("https://api.example.test"); a request whose Host names its authority is taken to use
    #: its scheme, so absolute part targets on it are same-origin (MB-SUB-2, MB-PART-5).
    #: None: the request's own scheme ("http") and Host.
    public_origin: str | None = None
    #: Take the request's scheme and authority from Forwarded (proto, host) or
    #: X-Forwarded-Proto / X-Forwarded-Host. Off: a client could name any origin with them.
    trust_forwarded: bool = False

    def __post_init__(self) -> None:
        if not 0 <= self.port <= 65535:
            raise ValueError(f"ServerConfig.port must be 0-65535, got {self.port!r}")
        if self.public_origin is not None:
            try:
                parse_public_origin(self.public_origin)
            except ValueError as exc:
                raise ValueError(f"ServerConfig.public_origin: {exc}") from None
        for name in (
            "max_request_header_bytes",
            "max_request_body_bytes",
            "read_buffer_high_water",
            "coalesce_max_bytes",
            "max_drain_bytes",
            "max_discard_bytes",
            "discard_timeout",
            "spool_memory_threshold",
            "max_random_bytes",
            "max_delay_ms",
            "header_read_timeout",
            "idle_timeout",
            "body_read_timeout",
            "batch_timeout",
            "shutdown_grace",
            "max_batches_in_flight",
            "max_batch_bytes_in_flight",
            "busy_retry_after",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                raise ValueError(f"ServerConfig.{name} must be positive, got {value!r}")
        if not self.batch_path.startswith("/"):
            raise ValueError(
                f"ServerConfig.batch_path must start with '/', got {self.batch_path!r}"
            )
