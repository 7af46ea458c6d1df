"""The origin a request was sent to, as the application sees it: scheme and authority.

Behind a TLS terminator or an HTTP/2 front end the server reads plain HTTP/1.1, so the
request's own scheme is "http" although the client wrote "https://api.example.test/...". A
batch's absolute part targets are compared with that origin (MB-SUB-2: "A server rejects a
target with a scheme or authority of its own that differs from the batch's"), and relative
ones are resolved against it (MB-PART-5), so the server needs to know the origin the client
used. Two opt-in settings say it, and neither is on by default, since a client could otherwise
claim any origin:

- ``public_origin`` ("https://api.example.test"): a request whose Host names that authority
  was sent to that origin, whatever the hop in front spoke.
- ``trust_forwarded``: the origin comes from what the front end says it received: the last
  element's ``proto`` and ``host`` of ``Forwarded`` (RFC 7239 §5.3, §5.4), else the last
  value of ``X-Forwarded-Proto`` and ``X-Forwarded-Host``. Only for a server that the front
  end alone can reach, and that front end replaces (not appends to) those fields.

Pure functions: fields in, an origin out.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

from mixbatch.codec import Fields

__all__ = ["Origin", "host_fault", "parse_public_origin", "request_origin"]

#: The schemes an origin may have, with their default ports (RFC 9110 §4.2).
DEFAULT_PORTS = {"http": "80", "https": "443"}

_ORIGIN = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://(?P<authority>[^/?#@\s]+)/?")
#: host [ ":" port ], the host an IP-literal in brackets or anything without a colon.
_HOSTPORT = re.compile(r"(\[[^\]]*\]|[^:]*)(?::(\d*))?")
#: RFC 9110 §7.2: Host = uri-host [ ":" port ]; uri-host is RFC 3986's host (an IP-literal in
#: brackets, or a reg-name of unreserved, pct-encoded and sub-delims characters, which also
#: spells every IPv4address); port = *DIGIT.
_HOST_FIELD = re.compile(
    r"(?:\[(?P<ipv6>[0-9A-Fa-f:.]+)\]|\[[vV][0-9A-Fa-f]+\.[A-Za-z0-9._~!$&'()*+,;=:-]+\]"
    r"|(?:[A-Za-z0-9._~!$&'()*+,;=-]|%[0-9A-Fa-f]{2})*)"
    r"(?::[0-9]*)?"
)
#: RFC 7239 §4: forwarded-pair = token "=" value; value = token / quoted-string.
_PAIR = re.compile(r'\s*([!#$%&\'*+.^_`|~0-9A-Za-z-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;,\s]*)\s*')


@dataclass(frozen=True, slots=True)
class Origin:
    """A scheme and an authority, e.g. ``Origin("https", "api.example.test")``."""

    scheme: str
    authority: str

    def __post_init__(self) -> None:
        if self.scheme not in DEFAULT_PORTS:
            raise ValueError(f"origin scheme must be http or https, got {self.scheme!r}")

    def same_authority(self, authority: str) -> bool:
        """True when ``authority`` names this origin's host and port (default port implied)."""
        return _normal(authority, self.scheme) == _normal(self.authority, self.scheme)

    def __str__(self) -> str:
        return f"{self.scheme}://{self.authority}"


def _normal(authority: str, scheme: str) -> str:
    """``authority`` lower-cased, without its scheme's default port (RFC 3986 §6.2.3)."""
    match = _HOSTPORT.fullmatch(authority.lower())
    if match is None:
        return authority.lower()
    host, port = match[1], match[2] or ""
    return host if port in ("", DEFAULT_PORTS[scheme]) else f"{host}:{port}"


def parse_public_origin(text: str) -> Origin:
    """``text`` ("https://api.example.test[:port]") as an Origin; raises ValueError if it is
    not a bare http or https origin (no path, query, fragment or userinfo)."""
    match = _ORIGIN.fullmatch(text.strip())
    if match is None or match["scheme"].lower() not in DEFAULT_PORTS:
        raise ValueError(
            f"public origin must look like https://host[:port] with no path, got {text!r}"
        )
    return Origin(match["scheme"].lower(), match["authority"])


def host_fault(values: list[str]) -> str | None:
    """Why the Host field lines ``values`` of an HTTP/1.1 request are not a valid Host, or None.

    RFC 9112 §3.2: a server "MUST respond with a 400 (Bad Request) status code to any HTTP/1.1
    request message that lacks a Host header field and to any request message that contains
    more than one Host header field line or a Host header field with an invalid field value".
    An empty value is refused too: the target URI it builds, ``http:///path``, has an empty
    host, which RFC 9110 §4.2.1 tells a recipient to "reject ... as invalid"; and spec 3.2.2
    builds a batch's base URI from Host: "a batch request without a valid `Host` is already a
    bad HTTP/1.1 request (RFC 9112 §3.2) and is answered 400".
    """
    if len(values) != 1:
        return f"the request carries {len(values)} Host field lines, not one (RFC 9112 §3.2)"
    value = values[0].strip(" \t")
    if not value or value.startswith(":"):
        return "the Host field names no host, so the target URI is invalid (RFC 9110 §4.2.1)"
    match = _HOST_FIELD.fullmatch(value)
    if match is None or (match["ipv6"] is not None and not _is_ipv6(match["ipv6"])):
        return f'the Host field {value!r} is not uri-host [ ":" port ] (RFC 9110 §7.2)'
    return None


def _is_ipv6(text: str) -> bool:
    """True if ``text`` is an RFC 3986 IPv6address (no zone)."""
    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True


def _last(values: list[str]) -> str | None:
    items = [v.strip() for value in values for v in value.split(",") if v.strip()]
    return items[-1] if items else None


def _forwarded(values: list[str]) -> tuple[str | None, str | None]:
    """``proto`` and ``host`` of the last element of ``Forwarded`` (the nearest hop's)."""
    element = _last(values)
    if element is None:
        return None, None
    found: dict[str, str] = {}
    for pair in element.split(";"):
        match = _PAIR.fullmatch(pair)
        if match is None:
            continue
        value = match[2]
        if value.startswith('"'):
            value = re.sub(r"\\(.)", r"\1", value[1:-1])
        found[match[1].lower()] = value
    return found.get("proto"), found.get("host")


def request_origin(
    fields: Fields,
    *,
    scheme: str,
    public_origin: Origin | None,
    trust_forwarded: bool,
) -> Origin:
    """The origin a request with header ``fields`` was sent to, received over ``scheme``."""
    authority = fields.get("Host") or ""
    if trust_forwarded:
        proto, host = _forwarded(fields.get_all("Forwarded"))
        if proto is None and host is None:
            proto = _last(fields.get_all("X-Forwarded-Proto"))
            host = _last(fields.get_all("X-Forwarded-Host"))
        if proto is not None and proto.lower() in DEFAULT_PORTS:
            scheme = proto.lower()
        if host:
            authority = host
    if public_origin is not None and public_origin.same_authority(authority):
        scheme = public_origin.scheme
    return Origin(scheme, authority)
