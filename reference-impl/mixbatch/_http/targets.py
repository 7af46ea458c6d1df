"""The request-target of a standalone request, as the host hands it to an application.

RFC 9112 §3.2 allows four forms. Origin-form ("/path?query") is what applications route on.
Absolute-form ("http://host/path") a server "MUST accept" (§3.2.2); it is turned into
origin-form here, so every application sees one form, provided its scheme and authority are the
connection's own (this host serves one origin and is no open forward proxy: another authority
is a 400). Asterisk-form ("*", OPTIONS only) passes unchanged. Anything else ("batch", with no
leading "/") is no target at all, and is refused with 400 rather than guessed at and run: the
reference server and the batching proxy refuse the same octets.
"""

from __future__ import annotations

import re

from mixbatch.codec import MixbatchError, resolve_target

from .messages import Response
from .problems import problem

__all__ = ["origin_form"]

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
