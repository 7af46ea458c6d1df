"""The batch's origin written another way in an absolute target (spec 8.3, 8.4).

Theory of operation: MB-SUB-2 compares scheme and host case-insensitively, the port as a
decimal number with an absent or empty port the scheme's default, and says "Nothing else is
normalised: ... a host name is not compared with the address it resolves to". Two checks:

- `same-origin-address-spellings-refused`: when the target is reached by an IP literal, the
  same address written another way is another host: for IPv4 the IPv4-mapped IPv6 literal
  (`[::ffff:127.0.0.1]`, `[::ffff:7f00:1]`) and the forms a WHATWG URL parser turns into the
  dotted quad (`127.1`, `2130706433`, `0x7f.0.0.1`, `0177.0.0.1`); for IPv6 the address
  written out in full or with another zero compression. A server that parses the host as an
  address and compares addresses runs each; every one is answered 400. A target reached by a
  host name makes the check N/A (`reject-target-host-alias` covers names).
- `nested-batch-origin-spellings-refused`: spec 8.4 counts every spelling of the batch
  endpoint "after resolution ..., which ... accepts an absolute URI on the batch's own origin".
  The batch's origin is first written each way MB-SUB-2 makes equal (the port with a leading
  zero; an empty or absent port when the target is on the default port; the host in upper
  case) and sent with the `ok` resource as path: the spellings the server runs as its own
  origin are then sent naming the endpoint's path, as written, with a percent-encoded
  unreserved letter and through a dot segment, and each is refused 400 (MB-SUB-4). A server
  whose nesting test compares the authority as written, or the path before removing dot
  segments, runs a nested batch.
"""

from __future__ import annotations

import ipaddress

from mixbatch_conformance.checks._shared.origins import origin_spellings
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch, problem_of
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_rejected
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.urls import DEFAULT_PORTS

__all__: list[str] = []

BOUNDARY = "mb-origin-spelling-2d9e71"


def address_spellings(host: str) -> list[str]:
    """Other spellings of the IP literal `host` that name the same address, or [] for a name."""
    try:
        addr = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return []
    if isinstance(addr, ipaddress.IPv4Address):
        a, b, c, d = addr.packed
        return [
            f"[::ffff:{addr}]",
            f"[::ffff:{a * 256 + b:x}:{c * 256 + d:x}]",
            f"[0:0:0:0:0:ffff:{addr}]",
            f"{a}.{(b << 16) | (c << 8) | d}",
            str(int(addr)),
            f"0x{a:x}.{b}.{c}.{d}",
            f"0{a:o}.{b}.{c}.{d}",
        ]
    groups = [int.from_bytes(addr.packed[i : i + 2], "big") for i in range(0, 16, 2)]
    full = ":".join(f"{g:x}" for g in groups)
    out = [f"[{addr.exploded}]", f"[{full}]"]
    return [s for s in dict.fromkeys(out) if s.strip("[]") != host.strip("[]")]


@checker(
    "same-origin-address-spellings-refused",
    ("MB-SUB-2",),
    "An absolute part target naming the batch's IP address in another spelling (an IPv4-mapped IPv6 literal, 127.1, 2130706433, 0x7f.0.0.1, a fully written IPv6 address) is another host and is refused with 400.",
    state=State.READ_ONLY,
)
def same_origin_address_spellings_refused(ctx: Context, judge: Judge) -> None:
    spellings = address_spellings(ctx.host)
    if not spellings:
        judge.not_applicable(f"the target's host {ctx.host} is a name, not an IP literal")
    ok = ctx.path(ctx.resource(judge, "ok"))
    port = "" if ctx.port == DEFAULT_PORTS[ctx.scheme] else f":{ctx.port}"
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    for host in spellings:
        target = f"{ctx.scheme}://{host}{port}{ok}"
        body = compose_batch([SubRequest("GET", target)], BOUNDARY)
        resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body))
        judge.note(f"<{target}>: {resp.status}")
        # MB-SUB-2: "answer 400 to a batch request in which any part's target ... has a scheme
        # or authority other than the batch request's own"; "Nothing else is normalised: ...
        # a host name is not compared with the address it resolves to": only case is folded,
        # so another spelling of the address is another host.
        expect_rejected(judge, resp, {400}, "MB-SUB-2")


def endpoint_spellings(batch_path: str) -> list[str]:
    """The batch endpoint's path as written, with its first unreserved letter
    percent-encoded, and through a dot segment."""
    out = [batch_path]
    head, last = batch_path.rsplit("/", 1)
    for i, c in enumerate(last):
        if c.isalpha():
            out.append(f"{head}/{last[:i]}%{ord(c):02X}{last[i + 1 :]}")
            break
    out.append(f"{head}/mb-dot/../{last}")
    return out


@checker(
    "nested-batch-origin-spellings-refused",
    ("MB-SUB-4",),
    "A part naming the batch endpoint by an absolute URI whose origin is the batch's own written otherwise (a port with leading zeros, an empty or explicit default port, the host in upper case), with its path as written, percent-encoded or through a dot segment, is refused with 400 whenever that origin spelling runs an ordinary part.",
    state=State.READ_ONLY,
)
def nested_batch_origin_spellings_refused(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    tried = 0
    for origin in origin_spellings(ctx):
        probe = compose_batch([SubRequest("GET", f"{origin}{ok}")], BOUNDARY)
        alone = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, probe))
        judge.note(f"<{origin}{ok}>: {alone.status}")
        if alone.status != 200:
            # MB-SUB-2 makes this origin the batch's own; the same-origin checks judge a
            # server that refuses it. Here only spellings it runs can name the endpoint.
            continue
        tried += 1
        for path in endpoint_spellings(ctx.batch_path):
            target = f"{origin}{path}"
            for method in ("POST", "GET"):
                body = compose_batch([SubRequest(method, target)], BOUNDARY)
                resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body))
                judge.note(f"{method} <{target}>: {resp.status}")
                # MB-SUB-4: "answer 400 to a batch request in which any part's target is a
                # batch endpoint"; spec 8.4: "after resolution ..., which removes dot segments
                # and accepts an absolute URI on the batch's own origin, a target is the batch
                # endpoint whenever its path equals the endpoint's path once percent-encoded
                # unreserved characters are decoded".
                if not judge.expect(
                    f"{method} <{target}>: top-level status", resp.status, {400}, "MB-SUB-4"
                ):
                    continue
                doc = problem_of(resp)
                judge.expect(
                    f"{method} <{target}>: problem requirement",
                    (doc or {}).get("requirement"),
                    {"MB-SUB-4"},
                    "MB-STATUS-4",
                )
    if not tried:
        judge.not_applicable("the server ran no absolute target on another spelling of its origin")
