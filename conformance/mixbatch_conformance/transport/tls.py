"""TLS for https targets, with the standard library's `ssl` only.

Theory of operation: an https target is reached by wrapping the TCP socket in a client
context. By default the context verifies the certificate chain against the system's trust
store and the host name against the certificate, as any client would; `--ca-file` adds a
PEM file of trusted certificates (a private CA, or a self-signed certificate itself), and
`--insecure` turns verification off for a test server whose certificate nobody signed. A
handshake that fails is `TlsFailure`, whose message says which of the two options would help.
"""

from __future__ import annotations

import ssl
from pathlib import Path

__all__ = ["TlsFailure", "client_context", "explain"]


class TlsFailure(OSError):
    """The TLS handshake with the target failed (certificate, protocol, or not TLS at all)."""


def client_context(*, insecure: bool = False, ca_file: Path | None = None) -> ssl.SSLContext:
    """A client context that verifies (unless `insecure`), trusting `ca_file` as well."""
    context = ssl.create_default_context()
    if ca_file is not None:
        context.load_verify_locations(cafile=str(ca_file))
    if insecure:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    # The suite speaks HTTP/1.1 only; say so, so that a server choosing by ALPN does not pick h2.
    context.set_alpn_protocols(["http/1.1"])
    return context


def explain(exc: ssl.SSLError, host: str, port: int) -> str:
    """One line: what failed in the handshake and what to try."""
    if isinstance(exc, ssl.SSLCertVerificationError):
        why = exc.verify_message or exc.reason or str(exc)
        return (
            f"TLS handshake with {host}:{port} failed: the certificate was not accepted ({why}); "
            "pass --ca-file CERT.pem to trust it, or --insecure to skip verification"
        )
    return (
        f"TLS handshake with {host}:{port} failed ({exc.reason or exc}); "
        "is the server speaking TLS on that port? (use http:// if not)"
    )
