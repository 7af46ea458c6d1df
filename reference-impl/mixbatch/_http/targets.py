"""The request-target of a standalone request, as the host hands it to an application.

RFC 9112 §3.2 allows four forms. Origin-form ("/path?query") is what applications route on.
Absolute-form ("http://host/path") a server "MUST accept" (§3.2.2); it is turned into
origin-form here, so every application sees one form, provided its scheme and authority are the
connection's own (this host serves one origin and is no open forward proxy: another authority
is a 400). The host takes that authority from the request-target itself, not from Host
(`absolute_form_authority`: §3.2.2, the server "MUST ignore the received Host header field"), so
only a scheme other than the connection's, or a target with no authority a Host could carry,
is refused that way. Asterisk-form ("*", OPTIONS only) passes unchanged. Anything else ("batch", with no
leading "/") is no target at all, and is refused with 400 rather than guessed at and run: the
reference server and the batching proxy refuse the same octets.
"""

from __future__ import annotations

import re

from mixbatch.codec import MixbatchError, resolve_target

from .messages import Response
from .problems import problem

__all__ = ["absolute_form_authority", "origin_form"]

#: RFC 3986 §3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), then ":".
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def origin_form(target: str, *, scheme: str, authority: str) -> str | Response:
    """``target`` in origin-form (or ``"*"``), or the 400 problem response refusing it."""
    if target.startswith("/") or target == "*":
        return target
    if not _SCHEME.match(target):
        # RFC 9112 §3.2: origin-form, absolute-form, authority-form (CONNECT) or "*".
        return problem(
            400,
            "malformed-request",
            f"request-target {target!r} is neither origin-form nor absolute-form",
        )
    try:
        return resolve_target("/", target, scheme=scheme, authority=authority)
    except MixbatchError as exc:
        return problem(
            400,
            "cross-origin-target",
            f"this server serves only {authority!r}: {exc.args[0]}",
        )


#: An absolute-form target's scheme and authority: "scheme://authority", the authority ending
#: at the first "/", "?" or "#" (RFC 3986 §3.2).
_ABSOLUTE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://([^/?#]*)")


def absolute_form_authority(target: str) -> str | None:
    """The authority of an absolute-form ``target`` (RFC 9112 §3.2.2), or None when it is in
    another form or names no authority a Host field could carry (empty, or with userinfo).

    A server that receives the absolute-form "MUST ignore the received Host header field (if
    any) and instead use the host information of the request-target", so this authority, not
    the Host, is the origin the request was addressed to."""
    found = _ABSOLUTE.match(target)
    if found is None or not found.group(1) or "@" in found.group(1):
        return None
    return found.group(1)
