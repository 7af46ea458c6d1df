"""The batch request's Host: the base of every part target, so an invalid one is refused.

Theory of operation: spec 3.2.2 builds a batch's base URI from its `Host` ("The base URI is
the batch request's target URI, built from its `Host` as RFC 9110 §7.1 says") and adds "a
batch request without a valid `Host` is already a bad HTTP/1.1 request (RFC 9112 §3.2) and is
answered 400 before mixbatch has anything to resolve". The check sends one valid one-part
batch (GET ok) under the target's own authority (it must be processed, else N/A), then the
same batch with a Host that is not `uri-host [ ":" port ]`: a space inside, a port that is
not digits, and userinfo. Each is answered 400; only the status is judged, since an HTTP library may
refuse such a request before any mixbatch code runs, in its own words.

An empty Host gives no host to build the base URI from, and spec 3.2.2 allows both readings
RFC 9112 §3.3 gives a server: refuse the batch 400, or resolve against a configured default.
What an absolute part target with an empty host means is fixed either way (spec 8.3: "an empty
host (`http:///x`) matches no batch request"), so the batch under an empty Host whose part names
`http:///<ok path>` is 400: for its Host, or under MB-SUB-2 for its target.

The invalid Hosts also hold userinfo before the target's own authority, each character outside
reg-name that an HTTP library may let through or refuse itself (`^`, `{`, `|`, `` ` ``), a `%`
not followed by two hex digits, `[`/`]` outside an IP-literal or around no IP address, and
IPvFuture literals that break `"v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )` (a version
that is not hex, `[vz.x]`, and a `%` after the dot, `[v1.%41]`: Go's net/http refuses an `@`
in Host itself, but lets `%` through to the server's own test), so that some reach a server's
own Host test whichever library it sits on.

`batch-host-valid-literals-as-origin` sends the other side: a Host that is an IP-literal
(`[::1]:port`, and the same address with all eight groups, with `::` for one zero group and
IPv4-mapped) and one whose reg-name is percent-encoded (`%6Cocalhost:port`) are valid
(RFC 3986 §3.2.2), and spec 3.2.2 builds the base URI from the Host "as RFC 9110 §7.1 says".
Whether a server serves a Host at all is its own business, so each is first sent alone (a GET
of the echo); a Host the server serves alone then addresses a batch whose parts name the echo
by a path, a relative reference and an absolute URI with exactly that Host as authority. Each
is processed (MB-PART-5, MB-SUB-2: the absolute target's authority is the batch request's own),
reaches the echo with the resolved target and the authority the request alone was addressed to
(MB-PART-13). Each Content-Id is a valid URI reference, an IP-literal authority included, so
none is refused as malformed (MB-PART-4: a 400 whose problem names it).
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.echo_reached import expect_echo_reached
from mixbatch_conformance.checks._shared.host_names import host_name
from mixbatch_conformance.checks._shared.valid_references import expect_not_refused_for_syntax
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.echo import read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

BOUNDARY = "mb-batch-host-3e8d51c0a7"
#: Host values that are not `uri-host [ ":" port ]` (RFC 9110 §7.2; RFC 3986 §3.2.2, §3.2.3):
#: a space in the host, a port that is not digits, and userinfo, which Host never carries.
INVALID_HOSTS = ("a b", "x:y:z", "u@h")


def invalid_hosts(ctx: Context) -> list[str]:
    """INVALID_HOSTS, and Hosts built on the target's own authority that RFC 3986 §3.2.2 also
    refuses: userinfo before it, a character outside reg-name (`^`, `{`, `|`, a backquote), a
    `%` without two hex digits, `[`/`]` outside an IP-literal, an IP-literal holding no
    address, an IPvFuture whose version is missing or not hex or that holds a character outside
    `unreserved / sub-delims / ":"` after its dot, text after an IP-literal's `]` (before a
    port, with none, or the port's digits without their `:`), an IP-literal left open."""
    port = f":{ctx.port}"
    return [
        *INVALID_HOSTS,
        f"u@{ctx.authority}",
        f"{ctx.host}^{port}",
        f"mb{{host}}{port}",
        f"mb|host{port}",
        f"mb`host{port}",
        f"mb%zzhost{port}",
        # A bad escape right after a good one: a reader that skips one octet too many after
        # "%XX" never looks at the second "%".
        f"mb%41%zzhost{port}",
        f"mb-host%4{port}",
        f"mb[host]{port}",
        f"[zz]{port}",
        f"[:::]{port}",
        f"[127.0.0.1]{port}",
        f"[v1.]{port}",
        # RFC 3986 §3.2.2: `IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )`,
        # so a version that is not hex and a `%` after the dot (no pct-encoded there, and `%`
        # passes the Host test of HTTP libraries that refuse `@` themselves) break it; spec
        # 3.2.2: "a batch request without a valid `Host` ... is answered 400".
        f"[vz.x]{port}",
        # No version at all ("v" then the dot), and an upper-case V likewise: `1*HEXDIG`.
        f"[v.x]{port}",
        f"[V.x]{port}",
        f"[v1.%41]{port}",
        # RFC 3986 §3.2.2, §3.2.3: after an IP-literal's "]" comes nothing or ":" port, so
        # neither a character before the port, nor text with no port, nor the port's digits
        # without their ":" (a reader that steps over one octet after "]" as it steps over
        # the ":" takes the last two).
        f"[::1]x{port}",
        "[::1]x",
        f"[::1]{ctx.port}",
        f"[::1{port}",
    ]


#: Stands in for the Host line while the request is built, so it can be written empty.
_PLACEHOLDER = "mb-host-placeholder.invalid"


def _post(ctx: Context, judge: Judge, target: str, host: str | None) -> int:
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    body = compose_batch([SubRequest("GET", target)], BOUNDARY)
    request = ctx.raw_request("POST", ctx.batch_path, head, body, authority=_PLACEHOLDER)
    if host is not None:
        request = request.replace(
            f"Host: {_PLACEHOLDER}\r\n".encode(), f"Host: {host}\r\n".encode("latin-1"), 1
        )
    return ctx.send(judge, request).status


@checker(
    "batch-host-invalid-refused",
    ("MB-PART-5", "MB-SUB-2"),
    "A batch request whose Host is not uri-host [':' port] (a space, userinfo, a character outside reg-name, a bad percent-escape, misplaced brackets, an IP-literal holding no address or left open, an IPvFuture with a version that is not hex or a character outside its set) is answered 400, and one with an empty Host whose part names http:///path is answered 400.",
    state=State.READ_ONLY,
)
def batch_host_invalid_refused(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    if _post(ctx, judge, ok, ctx.authority) != 200:
        judge.not_applicable("the valid one-part batch under the target's own Host is not 200")
    for host in invalid_hosts(ctx):
        # Spec 3.2.2 (MB-PART-5 resolves "against the batch request's target URI"): "a batch
        # request without a valid `Host` is already a bad HTTP/1.1 request (RFC 9112 §3.2) and
        # is answered 400 before mixbatch has anything to resolve".
        judge.expect(f"Host: {host}", _post(ctx, judge, ok, host), {400}, "MB-PART-5")
    if ctx.scheme != "http":
        return
    # MB-SUB-2: "A server MUST answer 400 to a batch request in which any part's target, after
    # resolution, has a scheme or authority other than the batch request's own"; its prose:
    # "an empty host (`http:///x`) matches no batch request".
    status = _post(ctx, judge, f"http://{ok}", "")
    judge.expect("empty Host, part <http:///ok>", status, {400}, "MB-SUB-2")


def valid_literal_hosts(ctx: Context) -> list[str]:
    """Valid Hosts that name the target's port on this machine in a form a Host test may get
    wrong: an IP-literal, an IPvFuture literal (RFC 3986 §3.2.2, "v" in either case), and a
    reg-name with its first letter, its last letter, or a letter in its middle percent-encoded
    (`pct-encoded` is allowed anywhere in a reg-name, its end included, where a scanner that
    looks for two more octets after `%` before the end stops short)."""
    literal = ctx.host if ctx.host.startswith("[") else "[::1]"
    out = [f"{literal}:{ctx.port}", f"[V7.mb-host:1]:{ctx.port}"]
    if not ctx.host.startswith("["):
        # The loopback address in the other forms RFC 3986 §3.2.2's IPv6address admits: all
        # eight groups, `::` standing for a single zero group (RFC 5952 asks writers not to,
        # the grammar lets readers take it), and IPv4-mapped with a dotted-quad tail.
        for spelling in ("[0:0:0:0:0:0:0:1]", "[0:0:0:0:0:0::1]", "[::ffff:127.0.0.1]"):
            out.append(f"{spelling}:{ctx.port}")
    name = host_name(ctx)
    if name is not None:
        middle = len(name) // 2
        for at in dict.fromkeys((0, len(name) - 1, middle)):
            out.append(f"{name[:at]}%{ord(name[at]):02X}{name[at + 1 :]}:{ctx.port}")
    return out


def _batch_under(ctx: Context, judge: Judge, host: str, subs: list[SubRequest]) -> Response:
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    body = compose_batch(subs, BOUNDARY)
    return ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body, authority=host))


@checker(
    "batch-host-valid-literals-as-origin",
    ("MB-PART-5", "MB-SUB-2", "MB-PART-13", "MB-PART-4"),
    "Under a Host the server serves alone that is an IP-literal ([::1]:port) or a reg-name with its first, middle or last letter percent-encoded, a batch whose parts name the echo by a path, a relative reference and an absolute URI with exactly that Host as authority is processed, each part reaching the echo with its resolved target and the Host's authority.",
    state=State.READ_ONLY,
)
def batch_host_valid_literals_as_origin(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    tried = 0
    for host in valid_literal_hosts(ctx):
        alone = ctx.send(judge, ctx.raw_request("GET", f"{echo}?mb-host=alone", authority=host))
        single = read_echo(alone.body) if alone.status == 200 else None
        if single is None or not single.authority:
            # Spec 3.2.2 says what an invalid Host gets, not which valid ones a server serves.
            judge.note(f"Host {host}: a GET of the echo alone answered {alone.status}")
            continue
        tried += 1
        batches = (
            # MB-PART-5: "resolve the reference ... against the batch request's target URI
            # (RFC 9110 §7.1)", built from this valid Host.
            (
                "MB-PART-5",
                [f"{echo}?mb-host=path", f"{ctx.ref(echo, 'relative')}?mb-host=relative"],
            ),
            # MB-SUB-2 refuses an authority "other than the batch request's own": this one is
            # the batch request's Host as written.
            ("MB-SUB-2", [f"{ctx.scheme}://{host}{echo}?mb-host=absolute"]),
        )
        for requirement, refs in batches:
            subs = [SubRequest("GET", ref) for ref in refs]
            resp = _batch_under(ctx, judge, host, subs)
            shown = ", ".join(f"<{r}>" for r in refs)
            judge.note(f"Host {host}, {shown}: {resp.status}")
            # MB-PART-4: each of these Content-Ids is `"<" URI-reference ">"` (the IP-literal
            # or percent-encoded authority included), so none is refused for its syntax.
            expect_not_refused_for_syntax(judge, f"Host {host}, {shown}", resp)
            if not judge.expect(
                f"Host {host}, {shown}: top-level status", resp.status, {200}, requirement
            ):
                continue
            env = expect_processed(ctx, judge, resp, [s.content_id for s in subs], (), requirement)
            for i, ref in enumerate(refs):
                label = f"Host {host}, part {i} <{ref}>"
                if not judge.expect(f"{label} status", part_status(env, i), {200}, requirement):
                    continue
                expect_echo_reached(
                    judge, label, env.parts[i], ctx.batch_path, ref, single.authority
                )
    if not tried:
        judge.not_applicable("the server serves none of the IP-literal or encoded Hosts alone")
