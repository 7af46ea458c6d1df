"""A request sent with another HTTP version on its request line.

Theory of operation: `Context.raw_request` writes an HTTP/1.1 request line; the checks that
send the same batch over HTTP/1.0 rewrite only the version, so the fields and content are
octet for octet those of the HTTP/1.1 request.
"""

from __future__ import annotations

__all__ = ["with_version"]


def with_version(request: bytes, version: str) -> bytes:
    """`request` with the HTTP version of its request line replaced by `version`."""
    line, rest = request.split(b"\r\n", 1)
    return line.rsplit(b" ", 1)[0] + f" HTTP/{version}".encode("ascii") + b"\r\n" + rest
