"""The echo's authority reported as the request was addressed, in every spelling, alone and in a
part (spec 14.4, 3.2.3).

Theory of operation: MB-TEST-2 makes the echo report "`authority`, the authority the request
was addressed to (for a sub-request, the batch request's)", and spec 14.4 compares a part's echo
with the same request's alone on "`method`, `target`, `authority` and the content exactly". Host
names compare case-insensitively (RFC 3986 §6.2.2.1) and a port compares as a number (§6.2.3),
so an echo may be tempted to report the normal form of the authority it received (lower-cased,
the port without leading zeros, an empty or default port dropped, an IPv6 literal compressed);
the suite addresses its own requests with the authority as it writes it, so such an echo
reports an authority no request was addressed with, and a check that compares a part's echo
with the echo alone cannot see it, since both are normalised alike.

`echo-authority-as-addressed` addresses a GET of the echo by Host in each spelling of the
target's authority that a normaliser would rewrite: its host name (the target's, or `localhost`
for a loopback address) in upper and mixed case and with a trailing dot; its host with the port
written with leading zeros, with the scheme's default port written, with an empty port (`host:`)
and with none; and, for a loopback address, the IPv6 loopback literal in its compressed, full
and upper-case spellings. Which of them the server serves is its own business (a server may
refuse a Host it does not serve), so each is sent alone first: one answered 200 with an echo of
its authority is judged, and must report the authority octet for octet as sent (MB-TEST-2).
A batch is then addressed with each Host so judged, its parts GETs of the echo by a relative
and by a path-absolute reference: when the server processes it, each part's echo reports the
batch's authority as written (MB-PART-13 "give each sub-request the batch request's authority";
MB-TEST-2 when the echo alone misreported it too). A batch the server does not process under a
Host is noted, not judged: other checks hold a server to the Hosts it must take. The first
request is a GET addressed to the target's own authority: an echo that names an authority of its
own for it (a gateway in front of the resource) makes the check N/A. It writes nothing.
"""

from __future__ import annotations

import ipaddress

from mixbatch_conformance.checks._shared.host_names import case_spellings, host_name
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.echo import Echo, read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.urls import DEFAULT_PORTS

__all__: list[str] = []

BOUNDARY = "mb-echo-authority-6c20e9"

#: Spellings of the IPv6 loopback address: compressed, written out in full, and the
#: IPv4-mapped form of 127.0.0.1 in upper-case hex.
IPV6_LOOPBACKS = ("[::1]", "[0:0:0:0:0:0:0:1]", "[::FFFF:7F00:1]")


def spellings(ctx: Context) -> list[str]:
    """Authorities naming the target, or a host beside it, spelled as a normaliser would not
    report them: each is judged only when the server answers it alone."""
    default = DEFAULT_PORTS[ctx.scheme]
    port = "" if ctx.port == default else f":{ctx.port}"
    out: list[str] = []
    name = host_name(ctx)
    if name is not None:
        cased = [s for s in case_spellings(name) if s != name.lower()]
        out += [f"{s}{port}" for s in cased]
        out += [f"{name}.{port}", f"{name.upper()}.{port}"]
    out += [
        f"{ctx.host}:0{ctx.port}",
        f"{ctx.host}:00{ctx.port}",
        f"{ctx.host}:{default}",
        f"{ctx.host}:",
        ctx.host,
    ]
    try:
        loopback = ipaddress.ip_address(ctx.host.strip("[]")).is_loopback
    except ValueError:
        loopback = False
    if loopback:
        out += [f"{literal}{port}" for literal in IPV6_LOOPBACKS]
    # The suite's own spelling is what every other check sends, and is no case here.
    return [s for k, s in enumerate(out) if s not in out[:k] and s != ctx.authority]


def _echo_of(ctx: Context, judge: Judge, echo: str, authority: str, tag: str) -> Echo | None:
    resp = ctx.send(
        judge, ctx.raw_request("GET", f"{echo}?mb-authority={tag}", authority=authority)
    )
    seen = read_echo(resp.body) if resp.status == 200 else None
    if seen is None or not isinstance(seen.authority, str):
        judge.note(f"Host: {authority} alone: {resp.status}, no echo of its authority")
        return None
    return seen


@checker(
    "echo-authority-as-addressed",
    ("MB-TEST-2", "MB-PART-13"),
    "A GET of the echo addressed by Host with the host name in upper or mixed case or with a trailing dot, the port with leading zeros, the default port written, an empty port, no port, or an IPv6 loopback literal in another spelling reports that authority octet for octet whenever the server serves it alone; and each part of a batch addressed with it reports the batch's authority as written.",
    state=State.READ_ONLY,
    roles=("server",),
    tier="standard",
    direct_only=(
        "an intermediary addresses the origin with an authority of its own, so the echo reports "
        "the intermediary's spelling, not the suite's"
    ),
)
def echo_authority_as_addressed(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    own = _echo_of(ctx, judge, echo, ctx.authority, "own")
    if own is None:
        judge.not_applicable("the echo addressed with the target's own authority names none")
    if (own.authority or "").lower() != ctx.authority.lower():
        judge.not_applicable(
            f"the echo names {own.authority!r} for a request addressed to {ctx.authority!r}, "
            "an authority of its own (a gateway in front of it)"
        )
    reached: dict[str, bool] = {}
    for k, authority in enumerate(spellings(ctx)):
        seen = _echo_of(ctx, judge, echo, authority, f"alone-{k}")
        if seen is None:
            continue
        # MB-TEST-2: "`authority`, the authority the request was addressed to": the request
        # was addressed with this Host, as written; its normal form is another spelling.
        reached[authority] = judge.expect(
            f"Host: {authority} alone: the echo's authority",
            seen.authority,
            {authority},
            "MB-TEST-2",
        )
    if not reached:
        judge.not_applicable("the server serves no other spelling of its authority alone")
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    for k, (authority, alone_right) in enumerate(reached.items()):
        subs = [
            SubRequest("GET", f"{ctx.ref(echo, 'relative')}?mb-authority=part-{k}-relative"),
            SubRequest("GET", f"{echo}?mb-authority=part-{k}-path"),
        ]
        body = compose_batch(subs, BOUNDARY)
        resp = ctx.send(
            judge, ctx.raw_request("POST", ctx.batch_path, head, body, authority=authority)
        )
        if resp.status != 200:
            judge.note(f"batch with Host: {authority}: {resp.status}, not processed")
            continue
        env = ctx.read_batch(judge, resp)
        judge.require("part count", len(env.parts), {len(subs)}, "MB-RESP-1")
        for i, sub in enumerate(subs):
            label = f"Host: {authority}, part {i} (GET <{sub.target}>)"
            # MB-TEST-2: the echo answers "every request to that resource whose method a
            # sub-request may carry, other than `HEAD`, with 200" and its description.
            if not judge.expect(f"{label} status", part_status(env, i), {200}, "MB-TEST-2"):
                continue
            seen = read_echo(env.parts[i].body)
            if seen is None:
                judge.expect_true(
                    label, False, repr(env.parts[i].body[:120]), "an echo description", "MB-TEST-2"
                )
                continue
            # MB-PART-13: "give each sub-request the batch request's authority"; MB-TEST-2
            # reports it "for a sub-request, the batch request's": as the batch was addressed.
            # An echo that misreported the same Host alone misreports it here under MB-TEST-2.
            judge.expect(
                f"{label} authority received",
                seen.authority,
                {authority},
                "MB-PART-13" if alone_right else "MB-TEST-2",
            )
