"""Target URLs as a user types them, read into scheme, host, port and batch endpoint.

Theory of operation: `--target` takes the forms people write: `host:port`,
`http://host:port`, `https://host`, and the batch endpoint's own URL (`http://host/batch`,
the form `mixbatch send` takes). `parse_target_url` reads each into a `TargetURL`: a
`base_url` of scheme, host and port only (what target.schema.json calls base_url) and the
path, when one was given, as the batch endpoint. Anything else (another scheme, no host, a
port out of range, a query or fragment) is a `UsageError` with a one-line message that says
what was expected; the command line turns it into exit status 2.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

__all__ = ["DEFAULT_PORTS", "TargetURL", "UsageError", "parse_target_url", "socket_host"]

#: The port a scheme means when the URL names none (RFC 9110 §4.2.1, §4.2.2).
DEFAULT_PORTS = {"http": 80, "https": 443}
_BARE = re.compile(r"[A-Za-z0-9.-]+:[0-9]+(/.*)?|\[[0-9A-Fa-f:.]+\]:[0-9]+(/.*)?|localhost(/.*)?")
_EXAMPLES = (
    "http://127.0.0.1:8080, https://api.example.test, 127.0.0.1:8080 or http://host:8080/batch"
)


class UsageError(ValueError):
    """A value on the command line cannot be used as given (exit status 2)."""


@dataclass(frozen=True)
class TargetURL:
    """A target's address: scheme, host, port, and the batch endpoint when the URL named one."""

    scheme: str
    host: str
    port: int
    #: The path of the URL when it had one other than "/", else None.
    endpoint: str | None = None

    @property
    def tls(self) -> bool:
        return self.scheme == "https"

    @property
    def uri_host(self) -> str:
        """The host as a URI writes it: an IPv6 address in brackets (RFC 3986 §3.2.2)."""
        return f"[{self.host}]" if ":" in self.host else self.host

    @property
    def authority(self) -> str:
        """Host and port as a Host field carries them: the port only when not the default."""
        host = self.uri_host
        return host if self.port == DEFAULT_PORTS[self.scheme] else f"{host}:{self.port}"

    @property
    def base_url(self) -> str:
        return f"{self.scheme}://{self.authority}"


def socket_host(host: str) -> str:
    """`host` as a socket address takes it: an IP-literal's address without its brackets."""
    return host[1:-1] if host.startswith("[") and host.endswith("]") else host


def parse_target_url(text: str) -> TargetURL:
    """Read `text` as a target URL; raises UsageError naming the value and the forms accepted."""
    given = text.strip()
    if not given:
        raise UsageError(f"--target is empty; expected a URL such as {_EXAMPLES}")
    if "://" not in given:
        if not _BARE.fullmatch(given):
            raise UsageError(f"--target {text!r} is not a URL; expected one such as {_EXAMPLES}")
        given = "http://" + given
    try:
        parts = urlsplit(given)
        port = parts.port
    except ValueError as exc:
        raise UsageError(f"--target {text!r}: {exc}; expected a URL such as {_EXAMPLES}") from None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise UsageError(
            f"--target {text!r}: scheme {parts.scheme!r} is not http or https; "
            f"expected a URL such as {_EXAMPLES}"
        )
    if not parts.hostname:
        raise UsageError(f"--target {text!r} names no host; expected a URL such as {_EXAMPLES}")
    if parts.query or parts.fragment or parts.username or parts.password:
        raise UsageError(
            f"--target {text!r}: a target URL has no query, fragment or user information"
        )
    path = parts.path if parts.path not in ("", "/") else None
    return TargetURL(scheme, parts.hostname, port or DEFAULT_PORTS[scheme], path)
