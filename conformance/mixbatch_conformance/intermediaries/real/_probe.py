"""One probe batch through a started intermediary: what the hop does to a batch, observed.

The suite's verdicts say whether a batch still works through a hop; the probe says what the
hop changed on the way, whichever way the verdicts went. It sends one batch (one GET part)
with ``Cache-Control: no-transform``, ``Accept-Encoding: gzip`` and ``TE: trailers``, marked
by a boundary of its own, and reads both sides: the answer the client got, and the request the
origin received (from the recording tap, found by the boundary). Observed, per hop:

- ``host_kept``: the origin saw the Host the client sent (else same-origin absolute targets
  look like another origin to the server, MB-SUB-2);
- ``compressed``: the hop added a content coding despite ``no-transform`` (MB-INTER-4);
- ``trailer_kept``: the ``Batch-Summary`` trailer reached the client (intermediaries may drop
  trailers, RFC 9110 §6.5);
- ``via``: the hop added Via (either way) or X-Forwarded-For (allowed: MB-INTER-1 concerns
  the parts, not the message's own fields).
"""

from __future__ import annotations

import secrets
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from mixbatch_conformance.core.context import SubRequest, compose_batch
from mixbatch_conformance.transport import h2
from mixbatch_conformance.transport.http import build_request, pipeline
from mixbatch_conformance.transport.tls import client_context

__all__ = ["Observed", "probe"]

#: Seconds the probe waits for its answer.
PROBE_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Observed:
    status: int | None
    host_kept: bool | None
    compressed: bool | None
    trailer_kept: bool | None
    via: bool | None
    error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _received_fields(taps: tuple[Path, ...], marker: bytes) -> dict[str, str] | None:
    """The header fields of the recorded origin-side request whose content holds ``marker``."""
    for tap in taps:
        for up in sorted(tap.glob("conn-*.up")):
            stream = up.read_bytes()
            at = stream.find(b"\r\n\r\n--" + marker)
            if at < 0:
                continue
            head = stream[stream.rfind(b"POST ", 0, at) : at].decode("latin-1")
            fields: dict[str, str] = {}
            for line in head.split("\r\n")[1:]:
                name, _, value = line.partition(":")
                fields.setdefault(name.strip().lower(), value.strip())
            return fields
    return None


def probe(url: str, taps: tuple[Path, ...], *, ca_file: Path | None, http2: bool) -> Observed:
    """Send the probe batch to ``url`` (the hop) and observe both sides."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    authority = f"{host}:{port}"
    boundary = f"mb-probe-{secrets.token_hex(8)}"
    body = compose_batch([SubRequest("GET", "/books/1")], boundary)
    request = build_request(
        "POST",
        "/batch",
        authority,
        [
            ("Content-Type", f"multipart/mixed; boundary={boundary}"),
            ("Cache-Control", "no-transform"),
            ("Accept-Encoding", "gzip"),
            ("TE", "trailers"),
        ],
        body,
    )
    https = parts.scheme == "https"
    try:
        if http2:
            tls = h2.client_context(ca_file=ca_file) if https else None
            [ex] = h2.pipeline(host, port, [request], PROBE_TIMEOUT_S, tls)
        else:
            tls = client_context(ca_file=ca_file) if https else None
            [ex] = pipeline(host, port, [request], PROBE_TIMEOUT_S, tls)
    except OSError as exc:
        return Observed(None, None, None, None, None, f"{type(exc).__name__}: {exc}")
    response = ex.response
    if response is None:
        return Observed(None, None, None, None, None, ex.error)
    received = _received_fields(taps, boundary.encode())
    return Observed(
        status=response.status,
        host_kept=None
        if received is None
        else received.get("host", "").lower() == authority.lower(),
        compressed=any(
            c.strip().lower() not in ("", "identity")
            for v in response.get_all("Content-Encoding")
            for c in v.split(",")
        ),
        trailer_kept=any(n.lower() == "batch-summary" for n, _ in response.trailers),
        via=bool(response.get_all("Via"))
        or (received is not None and ("via" in received or "x-forwarded-for" in received)),
    )
