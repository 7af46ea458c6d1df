"""Requests whose request-target is in absolute-form (RFC 9112 §3.2.2), its scheme and host
spelled as a check asks.

Theory of operation: the scheme and host of a URI compare without case (RFC 3986 §3.1,
§3.2.2), so `HTTP://HOST:port/path` names what `http://host:port/path` names; the authority
keeps the port as the target's own is written (none when it is the scheme's default), so that
only the spelling differs. HTTP/2 has no absolute-form: its `:path` holds origin-form only.
"""

from __future__ import annotations

from mixbatch_conformance.core.context import Context

__all__ = ["NO_ABSOLUTE_FORM_IN_H2", "absolute_uri"]

#: Why a check sending an absolute-form request-target does not apply over HTTP/2.
NO_ABSOLUTE_FORM_IN_H2 = (
    "HTTP/2 carries the target in :scheme, :authority and :path, which holds origin-form only "
    "(RFC 9113 §8.3.1): there is no absolute-form to send"
)


def absolute_uri(
    ctx: Context, path: str, scheme: str | None = None, host: str | None = None
) -> str:
    """`path` (origin-form) as an absolute URI on the target's origin, its scheme and host
    written as given (the target's own when None)."""
    host = ctx.host if host is None else host
    return f"{scheme or ctx.scheme}://{host}{ctx.authority[len(ctx.host) :]}{path}"
