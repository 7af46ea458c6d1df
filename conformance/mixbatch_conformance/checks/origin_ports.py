"""The batch's own origin in every spelling of its port, under every kind of Host (spec 8.3).

Theory of operation: MB-SUB-2 refuses a part whose target names "a scheme or authority other
than the batch request's own", and its prose fixes what is the same: "Scheme and host compare
case-insensitively and an absent port equals the scheme's default (RFC 3986 §6.2.2, §6.2.3). A
port compares as a decimal number, so `:08099` is port 8099 and an empty port (`host:`) is the
default." The other same-origin checks send the batch to the target's own authority, whose
port is seldom the scheme's default, so the spellings of the default port meet only a target
running on it. A batch's Host may name any authority the server serves (spec 3.2.2 builds the
base URI from it), so the check addresses batches to the default port by Host while the
connection still goes to the target: a host name (the target's, or `localhost` for a loopback
address), an IPv4 address and an IP-literal, each with the default port written (`:80`),
left out, empty (`host:`) and with a leading zero (`:080`), and a host name also in upper case.

Whether a server serves such a Host is its own business (spec 3.2.2 says what an invalid Host
gets, not which valid ones a server answers), so each Host is first sent alone, a GET of the
echo; a Host not answered 200 with an echo of its authority is skipped. Under each Host it
serves, a one-part batch names the echo by an absolute URI on that origin in every spelling
(the port absent, the default written, empty, with one and two leading zeros, the host and
the scheme in upper case): each is the batch request's own origin, so each batch is
processed and its part reaches the echo with the resolved target (MB-PART-5) and the
authority the Host alone reached it with (MB-PART-13). A target on another port of the same
host (the default plus one, and the default with a digit after it) is another authority and
its batch is answered 400 (MB-SUB-2). No same-origin spelling, each a valid URI reference, is
refused as malformed (MB-PART-4: a 400 whose problem names it). The check is N/A when the server serves none of the
Hosts alone. It writes nothing.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from mixbatch_conformance.checks._shared.echo_reached import expect_echo_reached
from mixbatch_conformance.checks._shared.host_names import LOOPBACK_NAMES, host_name
from mixbatch_conformance.checks._shared.valid_references import expect_not_refused_for_syntax
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.echo import read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, expect_rejected, part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import Response
from mixbatch_conformance.transport.urls import DEFAULT_PORTS

__all__: list[str] = []

BOUNDARY = "mb-origin-port-7b3e05d1c9"


@dataclass(frozen=True, slots=True)
class HostKind:
    """A host the batch may be addressed by on this machine: what kind it is, and its text."""

    kind: str
    host: str


def _is_ipv4(host: str) -> bool:
    try:
        return isinstance(ipaddress.ip_address(host), ipaddress.IPv4Address)
    except ValueError:
        return False


def host_kinds(ctx: Context) -> list[HostKind]:
    """A reg-name, an IPv4 address and an IP-literal naming the target's machine: the target's
    own host for its kind, and for a loopback target the loopback's other names."""
    loopback = ctx.host in LOOPBACK_NAMES or ctx.host == "localhost"
    out: list[HostKind] = []
    name = host_name(ctx)
    if name is not None:
        out.append(HostKind("reg-name", name))
    if _is_ipv4(ctx.host):
        out.append(HostKind("IPv4 address", ctx.host))
    elif loopback:
        out.append(HostKind("IPv4 address", "127.0.0.1"))
    if ctx.host.startswith("["):
        out.append(HostKind("IP-literal", ctx.host))
    elif loopback:
        out.append(HostKind("IP-literal", "[::1]"))
    return out


def batch_hosts(host: str, default: int) -> list[str]:
    """Host field values naming `host` on the scheme's `default` port: the port written, left
    out, empty and with a leading zero (RFC 9110 §7.2: Host = uri-host [ ":" port ], and RFC
    3986 §3.2.3: port = *DIGIT), and a host name in upper case."""
    out = [f"{host}:{default}", host, f"{host}:", f"{host}:0{default}"]
    if any(c.isalpha() for c in host.strip("[]")):
        out.append(f"{host.upper()}:{default}")
    return out


def same_origin_targets(scheme: str, host: str, default: int, path: str) -> list[str]:
    """Absolute URIs naming `path` on (`scheme`, `host`, `default`) in every spelling MB-SUB-2
    makes equal: the port absent, written, empty, with leading zeros; host and scheme in upper
    case."""
    out = [
        f"{scheme}://{host}{path}",
        f"{scheme}://{host}:{default}{path}",
        f"{scheme}://{host}:{path}",
        f"{scheme}://{host}:0{default}{path}",
        f"{scheme}://{host}:00{default}{path}",
        f"{scheme.upper()}://{host}{path}",
    ]
    if any(c.isalpha() for c in host.strip("[]")):
        out.append(f"{scheme}://{host.upper()}{path}")
    return out


def other_port_targets(scheme: str, host: str, default: int, path: str) -> list[str]:
    """Absolute URIs naming `path` on `host` at another port: the default plus one, and the
    default followed by a digit (a port that a comparison of leading digits takes for it)."""
    return [f"{scheme}://{host}:{default + 1}{path}", f"{scheme}://{host}:{default}0{path}"]


def _batch(ctx: Context, judge: Judge, host: str, target: str) -> Response:
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    body = compose_batch([SubRequest("GET", target)], BOUNDARY)
    return ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body, authority=host))


@checker(
    "same-origin-default-port-spellings",
    ("MB-SUB-2", "MB-PART-5", "MB-PART-13", "MB-PART-4"),
    "Under a Host the server serves alone that names a host name, an IPv4 address or an IP-literal on the scheme's default port (the port written, absent, empty or with a leading zero), an absolute part target on that origin with its port absent, written, empty or with leading zeros, or its host or scheme in upper case, is processed and reaches the echo with its target and the Host's authority; a target on another port of that host is answered 400.",
    state=State.READ_ONLY,
    tier="standard",
)
def same_origin_default_port_spellings(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    default = DEFAULT_PORTS[ctx.scheme]
    served = 0
    for kind in host_kinds(ctx):
        for host in batch_hosts(kind.host, default):
            alone = ctx.send(judge, ctx.raw_request("GET", f"{echo}?mb-port=alone", authority=host))
            single = read_echo(alone.body) if alone.status == 200 else None
            if single is None or not single.authority:
                # Spec 3.2.2 says what an invalid Host gets, not which valid ones a server serves.
                judge.note(f"Host {host} ({kind.kind}): a GET of the echo alone: {alone.status}")
                continue
            served += 1
            targets = same_origin_targets(ctx.scheme, kind.host, default, echo)
            for n, target in enumerate(targets):
                ref = f"{target}?mb-port={n}"
                label = f"Host {host}, part <{ref}>"
                resp = _batch(ctx, judge, host, ref)
                judge.note(f"{label}: {resp.status}")
                # MB-PART-4: every spelling here is `"<" URI-reference ">"` (an empty port is
                # `port = *DIGIT`, an IP-literal is a host), so none is refused for its syntax.
                expect_not_refused_for_syntax(judge, label, resp)
                # MB-SUB-2: "an absent port equals the scheme's default", "A port compares as a
                # decimal number, so `:08099` is port 8099 and an empty port (`host:`) is the
                # default", "Scheme and host compare case-insensitively": this target's origin
                # is the batch request's own, whichever way either spells its port.
                if not judge.expect(f"{label}: top-level status", resp.status, {200}, "MB-SUB-2"):
                    continue
                env = expect_processed(
                    ctx, judge, resp, [SubRequest("GET", ref).content_id], (), "MB-SUB-2"
                )
                if not judge.expect(f"{label} status", part_status(env, 0), {200}, "MB-SUB-2"):
                    continue
                expect_echo_reached(
                    judge, label, env.parts[0], ctx.batch_path, ref, single.authority
                )
            for target in other_port_targets(ctx.scheme, kind.host, default, echo):
                resp = _batch(ctx, judge, host, target)
                judge.note(f"Host {host}, part <{target}>: {resp.status}")
                # MB-SUB-2: "answer 400 to a batch request in which any part's target, after
                # resolution, has a scheme or authority other than the batch request's own
                # (an absolute URI naming another host or port ...)".
                expect_rejected(judge, resp, {400}, "MB-SUB-2")
    if not served:
        judge.not_applicable("the server serves none of the default-port Hosts alone")
