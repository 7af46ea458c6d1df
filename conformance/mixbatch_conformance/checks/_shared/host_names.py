"""The target's host as a name that can be spelled in another case (RFC 3986 §6.2.2.1).

A host reached by a loopback address has a name too, `localhost`; a host that is an address
with no such name (or an IPv6 literal) has no letters to change the case of.
"""

from __future__ import annotations

from mixbatch_conformance.core.context import Context

__all__ = ["LOOPBACK_NAMES", "case_spellings", "host_name"]

#: Loopback addresses and the host name that names the same machine.
LOOPBACK_NAMES = {"127.0.0.1": "localhost", "[::1]": "localhost", "::1": "localhost"}


def host_name(ctx: Context) -> str | None:
    """The target's host name: its host when that has letters, else the loopback name of its
    address; None when it has neither (or is an IPv6 literal)."""
    name = ctx.host if any(c.isalpha() for c in ctx.host) else LOOPBACK_NAMES.get(ctx.host)
    return None if name is None or name.startswith("[") else name


def case_spellings(host: str) -> tuple[str, ...]:
    """`host` in lower case, upper case and alternating case, each once."""
    mixed = "".join(c.upper() if i % 2 else c.lower() for i, c in enumerate(host))
    return tuple(dict.fromkeys((host.lower(), host.upper(), mixed)))
