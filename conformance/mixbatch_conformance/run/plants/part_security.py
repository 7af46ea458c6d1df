"""Planted violations of what a part may carry and reach (spec 3.2.3, 8.2, 8.3, 8.4).

- a forbidden field whose value reads as a no-op dropped instead of refused:
  `Transfer-Encoding: identity`, `Content-Transfer-Encoding` binary, 8bit or 7bit,
  `Expect: 100-continue`, `Connection: keep-alive` or `close`, and any forbidden field whose
  value is empty (MB-PART-10);
- a part's own Cookie stored where the batch's is kept, so the parts after it inherit it, and
  only the first of the batch's Authorization lines inherited, and the batch's credentials
  withheld from parts addressed by an absolute URI, or by a relative, query or dot-segment
  reference, and the batch's Cookie read as UTF-8 text, its obs-text octets handed on as
  U+FFFD, and a Digest Authorization kept from the parts (MB-SUB-5);
- an absolute target's host parsed as an IP address, WHATWG style, and compared as one:
  `127.1`, `2130706433` or `[::ffff:127.0.0.1]` taken for `127.0.0.1` (MB-SUB-2);
- the nesting test run on an absolute target only when its authority is the batch's Host as
  written, or on its path before dot segments are removed (MB-SUB-4).

Each edits what the reference server receives, or answers for it, on batch requests only.
"""

from __future__ import annotations

import ipaddress
import posixpath
import re
from collections.abc import Callable
from urllib.parse import unquote

from mixbatch_conformance.run.mutations import Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    Part,
    accepts,
    boundary_of,
    field_of,
    is_batch,
    parts_of,
)
from mixbatch_conformance.transport.relay import RelayRequest

__all__ = ["PLANTS"]

_ABSOLUTE = re.compile(r"^\s*<([A-Za-z][A-Za-z0-9+.-]*)://([^/?#]*)([^?#]*)([^>]*)>\s*$")


def _drop(name: str, values: re.Pattern[str]) -> Callable[[list[Part]], list[Part]]:
    """A server that removes field `name` from a part when its value matches `values`."""

    def edit(parts: list[Part]) -> list[Part]:
        return [
            ([(n, v) for n, v in f if not (n.lower() == name.lower() and values.match(v))], b)
            for f, b in parts
        ]

    return edit


#: The fields MB-PART-9 forbids in a part, as `forbidden-fields-any-value-refused` sends them.
_FORBIDDEN = frozenset(
    n.lower()
    for n in (
        *("Connection", "Keep-Alive", "Proxy-Connection", "TE", "Upgrade", "Transfer-Encoding"),
        *("Trailer", "Expect", "Host", "Content-Transfer-Encoding", "Http-Status-Code"),
    )
)


def _empty_forbidden_dropped(parts: list[Part]) -> list[Part]:
    """A server that takes a forbidden field with an empty value for one never sent."""
    return [
        ([(n, v) for n, v in f if not (n.lower() in _FORBIDDEN and not v.strip())], b)
        for f, b in parts
    ]


def _own_cookie_kept(parts: list[Part]) -> list[Part]:
    """A part's own Cookie lines become the batch's for every later part without its own."""
    kept: list[str] = []
    out: list[Part] = []
    for f, b in parts:
        own = [v for n, v in f if n.lower() == "cookie"]
        if own:
            kept = own
        elif kept:
            f = [*f, *(("Cookie", v) for v in kept)]
        out.append((f, b))
    return out


def _first_authorization_only(req: RelayRequest) -> None:
    """The batch's Authorization read with a single-value getter: a part without its own gets
    the first line only (given to it here as its own, so the server adds nothing)."""
    b = boundary_of(req)
    lines = [v for n, v in req.headers if n.lower() == "authorization"]
    parts = parts_of(req.body, b) if b and is_batch(req) and len(lines) > 1 else None
    if parts is None or b is None:
        return
    req.body = write_parts(
        [
            (
                f
                if field_of(f, "Authorization") is not None
                else [*f, ("Authorization", lines[0])],
                body,
            )
            for f, body in parts
        ],
        b,
    )


def _digest_withheld(req: RelayRequest) -> None:
    """The batch's Authorization left out of the inherited fields when its scheme is Digest, a
    response computed over the batch request's own method and URI (RFC 7616 §3.4)."""
    if is_batch(req):
        req.headers[:] = [
            (n, v)
            for n, v in req.headers
            if not (n.lower() == "authorization" and v.strip().lower().startswith("digest "))
        ]


def _cookie_read_as_utf8(req: RelayRequest) -> None:
    """The batch request's head read as UTF-8 text: a Cookie's octets past US-ASCII reach the
    parts as U+FFFD (the request alone keeps them)."""
    if not is_batch(req):
        return
    req.headers = [
        (
            n,
            v.encode("latin-1").decode("utf-8", "replace").encode("utf-8").decode("latin-1")
            if n.lower() == "cookie"
            else v,
        )
        for n, v in req.headers
    ]


def _credentials_withheld(
    withheld: Callable[[str], bool],
) -> Callable[[RelayRequest], None]:
    """The batch's Authorization and Cookie withheld from parts whose Content-Id reference
    `withheld` accepts: the batch's lines are taken off it and given, as their own, to every
    other part lacking them, so only those parts go without."""

    def edit(req: RelayRequest) -> None:
        b = boundary_of(req)
        outer = [(n, v) for n, v in req.headers if n.lower() in ("authorization", "cookie")]
        parts = parts_of(req.body, b) if b and is_batch(req) and outer else None
        if parts is None or b is None:
            return
        if not any(withheld((field_of(f, "Content-Id") or "<>")[1:-1]) for f, _ in parts):
            return
        out = []
        for f, body in parts:
            if not withheld((field_of(f, "Content-Id") or "<>")[1:-1]):
                names = {n.lower() for n, _ in f}
                f = [*f, *((n, v) for n, v in outer if n.lower() not in names)]
            out.append((f, body))
        req.headers[:] = [(n, v) for n, v in req.headers if (n, v) not in outer]
        req.body = write_parts(out, b)

    return edit


def _is_absolute_uri(ref: str) -> bool:
    return re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", ref) is not None


def _is_unusual_reference(ref: str) -> bool:
    """A reference with a query or a dot segment, or a relative one (no leading slash)."""
    path = ref.split("?", 1)[0]
    segments = path.split("/")
    return "?" in ref or "." in segments or ".." in segments or not ref.startswith(("/", "http"))


def _as_address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """`host` read as a WHATWG URL parser reads an IPv4 host, or as an IPv6 literal, an
    IPv4-mapped one giving its IPv4 address."""
    if host.startswith("[") and host.endswith("]"):
        try:
            v6 = ipaddress.IPv6Address(host[1:-1])
        except ValueError:
            return None
        return v6.ipv4_mapped or v6
    pieces = host.split(".")
    if not 1 <= len(pieces) <= 4:
        return None
    numbers: list[int] = []
    for p in pieces:
        try:
            if p.lower().startswith("0x"):
                numbers.append(int(p[2:] or "0", 16))
            elif len(p) > 1 and p.startswith("0"):
                numbers.append(int(p, 8))
            else:
                numbers.append(int(p, 10))
        except ValueError:
            return None
    last, value = numbers[-1], 0
    for i, n in enumerate(numbers[:-1]):
        if n > 255:
            return None
        value |= n << (24 - 8 * i)
    if last >= 256 ** (5 - len(numbers)):
        return None
    return ipaddress.IPv4Address(value | last)


def _split_authority(authority: str) -> tuple[str, str]:
    """Host and port (without its colon) of `authority`, an IPv6 literal kept bracketed."""
    if authority.startswith("["):
        host, _, rest = authority.partition("]")
        return f"{host}]", rest[1:] if rest.startswith(":") else ""
    host, _, port = authority.partition(":")
    return host, port


def _address_canonicalised(req: RelayRequest) -> None:
    """A part target on another spelling of the batch's IP address rewritten to the batch's
    authority, as a server comparing parsed addresses runs it."""
    b = boundary_of(req)
    parts = parts_of(req.body, b) if b and is_batch(req) else None
    own_host, own_port = _split_authority(req.get("Host") or "")
    own = _as_address(own_host)
    if parts is None or b is None or own is None:
        return
    changed = False
    out: list[Part] = []
    for f, body in parts:
        m = _ABSOLUTE.match(field_of(f, "Content-Id") or "")
        if m:
            host, port = _split_authority(m.group(2))
            if host != own_host and _as_address(host) == own and port.lstrip("0") == own_port:
                cid = f"<{m.group(1)}://{req.get('Host')}{m.group(3)}{m.group(4)}>"
                f = [(n, cid if n.lower() == "content-id" else v) for n, v in f]
                changed = True
        out.append((f, body))
    if changed:
        req.body = write_parts(out, b)


def _names_endpoint(path: str, req: RelayRequest, *, dots: bool) -> bool:
    """`path` is the batch request's path once decoded, with dot segments removed if `dots`."""
    decoded = unquote(path)
    if dots and decoded:
        decoded = posixpath.normpath(decoded) if decoded.startswith("/") else decoded
    return decoded == req.target.split("?", 1)[0]


def _absolute_parts(req: RelayRequest) -> list[re.Match[str]]:
    b = boundary_of(req)
    parts = parts_of(req.body, b) if b and is_batch(req) else None
    found = (_ABSOLUTE.match(field_of(f, "Content-Id") or "") for f, _ in parts or [])
    return [m for m in found if m]


def _nest_literal_authority(req: RelayRequest) -> bool:
    """An absolute target naming the endpoint on the batch's origin written otherwise."""
    host = req.get("Host") or ""
    return any(
        m.group(2).lower() != host.lower() and _names_endpoint(m.group(3), req, dots=True)
        for m in _absolute_parts(req)
    )


def _nest_dots_kept(req: RelayRequest) -> bool:
    """An absolute target reaching the endpoint only through a dot segment."""
    return any(
        not _names_endpoint(m.group(3), req, dots=False)
        and _names_endpoint(m.group(3), req, dots=True)
        for m in _absolute_parts(req)
    )


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    P(
        "transfer-encoding-identity-dropped",
        "MB-PART-10 a part's Transfer-Encoding: identity dropped as a no-op, not refused",
        ("forbidden-fields-any-value-refused",),
        on_request_parts=_drop("Transfer-Encoding", re.compile(r"(?i)\s*identity\s*$")),
    ),
    P(
        "mime-identity-transfer-encodings-dropped",
        "MB-PART-10 a part's Content-Transfer-Encoding binary, 8bit or 7bit dropped, not refused",
        ("forbidden-fields-any-value-refused",),
        on_request_parts=_drop(
            "Content-Transfer-Encoding", re.compile(r"(?i)\s*(binary|8bit|7bit)\s*$")
        ),
    ),
    P(
        "expect-continue-part-ignored",
        "MB-PART-10 a part's Expect: 100-continue ignored since its content is already sent",
        ("forbidden-fields-any-value-refused",),
        on_request_parts=_drop("Expect", re.compile(r"(?i)\s*100-continue\s*$")),
    ),
    P(
        "connection-persistence-options-dropped",
        "MB-PART-10 a part's Connection: keep-alive or close dropped as a connection default",
        ("forbidden-fields-any-value-refused",),
        on_request_parts=_drop("Connection", re.compile(r"(?i)\s*(keep-alive|close)\s*$")),
    ),
    P(
        "empty-forbidden-field-dropped",
        "MB-PART-10 a part's forbidden field with an empty value taken as absent, not refused",
        ("forbidden-fields-any-value-refused",),
        on_request_parts=_empty_forbidden_dropped,
    ),
    P(
        "digest-credentials-not-inherited",
        "MB-SUB-5 the batch's Authorization withheld from the parts when its scheme is Digest",
        ("credentials-inherited-every-scheme",),
        on_request=_digest_withheld,
    ),
    P(
        "own-cookie-kept-for-later-parts",
        "MB-SUB-5 a part's own Cookie stored as the batch's, inherited by the parts after it",
        ("credentials-inherited",),
        on_request_parts=_own_cookie_kept,
    ),
    P(
        "absolute-target-credentials-withheld",
        "MB-SUB-5 the batch's Authorization and Cookie withheld from parts with an absolute URI",
        ("credentials-inherited-every-reference-form",),
        on_request=_credentials_withheld(_is_absolute_uri),
    ),
    P(
        "unusual-reference-credentials-withheld",
        "MB-SUB-5 the batch's credentials withheld from relative, query or dot-segment references",
        ("credentials-inherited-every-reference-form",),
        on_request=_credentials_withheld(_is_unusual_reference),
    ),
    P(
        "first-authorization-line-inherited",
        "MB-SUB-5 only the first of the batch's Authorization lines applied to a part",
        ("credentials-every-outer-line-inherited",),
        on_request=_first_authorization_only,
    ),
    P(
        "target-host-compared-as-address",
        "MB-SUB-2 an absolute target's host parsed as an IP address and compared as one",
        ("same-origin-address-spellings-refused",),
        on_request=_address_canonicalised,
    ),
    P(
        "nesting-tested-on-literal-authority",
        "MB-SUB-4 an absolute target tested as nested only when its authority is the Host as written, in any case",
        ("nested-batch-origin-spellings-refused",),
        on_response=accepts(_nest_literal_authority),
    ),
    P(
        "nesting-tested-before-dot-removal-on-absolute",
        "MB-SUB-4 an absolute target's path tested as nested before its dot segments are removed",
        ("nested-batch-origin-spellings-refused",),
        on_response=accepts(_nest_dots_kept),
    ),
    P(
        "batch-cookie-read-as-utf8",
        "MB-SUB-5 the batch's Cookie read as UTF-8, its obs-text octets inherited as U+FFFD",
        ("credentials-inherited-octet-for-octet",),
        on_request=_cookie_read_as_utf8,
    ),
)
