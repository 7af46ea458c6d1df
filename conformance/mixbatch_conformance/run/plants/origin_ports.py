"""Planted violations of the same-origin comparison across spellings of one origin (spec 8.3).

MB-SUB-2's prose: "an absent port equals the scheme's default", "A port compares as a decimal
number, so `:08099` is port 8099 and an empty port (`host:`) is the default", "Scheme and host
compare case-insensitively". Each plant models a comparison that gets one of these wrong for a
batch whose Host names the default port, and answers the batch 400 citing MB-SUB-2 as a server
that refused the target as another origin would: the default port written on one side and
absent on the other (compared as text, each way round), an empty port taken for a port of its
own, a port with a leading zero compared as text, and an IP-literal whose brackets are
stripped only where a port follows it (Go's net.SplitHostPort), so `[::1]:80` and `[::1]` name
different hosts.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import is_batch, problem
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: The authority of an absolute Content-Id target.
_ABSOLUTE = re.compile(rb"(?im)^Content-Id:[ \t]*<[A-Za-z][A-Za-z0-9+.\-]*://([^/?#>\r\n]*)")
#: The default port of the scheme the suite speaks to the relay.
_DEFAULT = "80"

#: (host, port): the port None when no colon follows the host, "" when an empty one does.
HostPort = tuple[str, str | None]


def split(authority: str) -> HostPort:
    """`authority` as host and port, an IP-literal's brackets kept."""
    if authority.startswith("["):
        end = authority.find("]")
        rest = authority[end + 1 :] if end >= 0 else ""
        host = authority[: end + 1] if end >= 0 else authority
        return host.lower(), (rest[1:] if rest.startswith(":") else None)
    host, colon, port = authority.partition(":")
    return host.lower(), (port if colon else None)


def _pairs(req: RelayRequest) -> list[tuple[HostPort, HostPort]]:
    """(the batch's Host, an absolute target's authority) for each absolute target."""
    host = split(req.get("Host") or "")
    return [(host, split(m.group(1).decode("latin-1"))) for m in _ABSOLUTE.finditer(req.body)]


def _refused_when(wrong: Callable[[HostPort, HostPort], bool]) -> Callable[..., None]:
    """Answer a batch 400 (MB-SUB-2) when `wrong` holds of its Host and any absolute target."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        if is_batch(req) and any(wrong(h, t) for h, t in _pairs(req)):
            problem(resp, 400, "MB-SUB-2")

    return edit


def _written_vs_absent(h: HostPort, t: HostPort) -> bool:
    return h[0] == t[0] and h[1] == _DEFAULT and t[1] is None


def _absent_vs_written(h: HostPort, t: HostPort) -> bool:
    return h[0] == t[0] and h[1] is None and t[1] == _DEFAULT


def _empty_port_own(h: HostPort, t: HostPort) -> bool:
    return h[0] == t[0] and "" in (h[1], t[1]) and h[1] != t[1]


def _leading_zero_as_text(h: HostPort, t: HostPort) -> bool:
    zero = any(p is not None and len(p) > 1 and p.startswith("0") for p in (h[1], t[1]))
    return h[0] == t[0] and zero and h[1] != t[1]


def _split_host_port(a: HostPort) -> str:
    """The host as net.SplitHostPort leaves it: brackets stripped only before a port."""
    return a[0].strip("[]") if a[1] is not None else a[0]


def _literal_split(h: HostPort, t: HostPort) -> bool:
    literal = h[0].startswith("[") and t[0] == h[0]
    return literal and _split_host_port(h) != _split_host_port(t)


_CATCHERS = ("same-origin-default-port-spellings",)

PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "default-port-written-not-absent",
        "MB-SUB-2 a Host with the default port written takes a target without a port for another origin",
        _CATCHERS,
        on_response=_refused_when(_written_vs_absent),
    ),
    Mutation(
        "default-port-absent-not-written",
        "MB-SUB-2 a Host without a port takes a target with the default port written for another origin",
        _CATCHERS,
        on_response=_refused_when(_absent_vs_written),
    ),
    Mutation(
        "empty-port-not-default",
        "MB-SUB-2 an empty port (host:) in the Host or a target taken for a port of its own",
        _CATCHERS,
        on_response=_refused_when(_empty_port_own),
    ),
    Mutation(
        "port-leading-zero-as-text",
        "MB-SUB-2 a port with a leading zero compared as text, not as a decimal number",
        _CATCHERS,
        on_response=_refused_when(_leading_zero_as_text),
    ),
    Mutation(
        "ip-literal-brackets-split-with-port",
        "MB-SUB-2 an IP-literal's brackets stripped only where a port follows, so [::1]:80 and [::1] differ",
        _CATCHERS,
        on_response=_refused_when(_literal_split),
    ),
)
