"""The echo's target for a path holding percent-encoded octets, alone and in a part, in every
form (spec 3.2.2, 14.4).

Theory of operation: MB-TEST-2 makes the echo report "`target`, the origin-form request target
(path and query) as received". A router may decode percent-encoded octets to choose a handler
(RFC 3986 §6.2.2.2 makes an encoded unreserved character equivalent to the character), and an
echo that then reports the path its framework decoded (Go's `URL.Path`, a WSGI `PATH_INFO`)
instead of the target it received shows `/echo` for `/ech%6F`; a check whose echo targets
have no percent-encoding in the path cannot tell the two apart. Whether the server routes
such a spelling to the echo at all is not fixed by the spec, so it is learnt from the same
server: each spelling is sent alone, and only one answered 200 with an echo description is
judged as the echo's.

`echo-target-path-octets-as-received` spells the echo's path with one unreserved character
percent-encoded in upper-case hex and in lower-case hex, with every character of its last
segment encoded, and with encoded reserved octets (`%2F`, `%3B`, `%3F`, `%25`) appended, each
with a query holding percent-encoding too, in upper- and in lower-case hex; the echo's own path
goes with the same query, so that the query's octets are judged on a server that routes none of
the encoded paths to the echo:

- alone, a spelling the server routes to the echo is reported with its target exactly as sent
  (MB-TEST-2);
- the same spellings as GET parts of one batch, as path-absolute references and as absolute
  URIs, sent in every form the target offers: a part whose spelling reached the echo alone
  reports the resolved reference octet for octet (MB-PART-5 "use the result as the
  sub-request's target URI"; MB-TEST-2 when the echo alone reported it wrongly too), and any
  other part carries the status, fields and body of the same request alone (spec 3.2.4,
  MB-SUB-1).
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.alone import expect_same_as_alone
from mixbatch_conformance.checks._shared.resolution import resolve
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.echo import read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import answers_in_every_form

__all__: list[str] = []

#: The query each spelling carries: percent-encoded unreserved and reserved octets, in upper-
#: and in lower-case hex (RFC 3986 §6.2.2.1 makes the two equivalent; the echo reports the one
#: received).
QUERY = "a=%41&s=%2F&l=%2f%c3%a9"


def _encoded(ch: str, lower: bool = False) -> str:
    code = f"%{ord(ch):02X}"
    return code.lower() if lower else code


def spellings(echo: str) -> list[str]:
    """Paths naming the echo with percent-encoded octets: an unreserved character encoded in
    upper-case hex and in lower-case hex (a character whose code has a hex letter, when the
    name has one), the whole last segment encoded, and reserved octets appended."""
    head, last = echo.rsplit("/", 1)
    out: list[str] = []
    if last:
        i = next((k for k, c in enumerate(last) if any(h in f"{ord(c):x}" for h in "abcdef")), 0)
        out.append(f"{head}/{last[:i]}{_encoded(last[i])}{last[i + 1 :]}")
        out.append(f"{head}/{last[:i]}{_encoded(last[i], lower=True)}{last[i + 1 :]}")
        out.append(f"{head}/{''.join(_encoded(c) for c in last)}")
    out += [f"{echo}%2F", f"{echo}%3Bv=1", f"{echo}%3F", f"{echo}%25"]
    return [s for k, s in enumerate(out) if s not in out[:k]]


@checker(
    "echo-target-path-octets-as-received",
    ("MB-TEST-2", "MB-PART-5", "MB-SUB-1"),
    "The echo's own path, and its path spelled with percent-encoded unreserved characters (upper- and lower-case hex, a whole segment) or with encoded reserved octets appended, each with a query holding upper- and lower-case percent-encodings, is reported by the echo, alone, with its target exactly as sent whenever the server routes it there; as parts (path and absolute URI) in every form, each reports its resolved reference octet for octet or is answered as alone.",
    state=State.READ_ONLY,
)
def echo_target_path_octets_as_received(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    origin = f"{ctx.scheme}://{ctx.authority}"
    # The echo's own path first: its query alone holds percent-encodings, so the target is
    # judged on a server that routes none of the encoded paths to the echo.
    targets = [f"{s}?{QUERY}" for s in [echo, *spellings(echo)]]
    alone = {}
    reached: dict[str, bool] = {}
    for target in targets:
        resp = ctx.alone(judge, SubRequest("GET", target))
        alone[target] = (resp.status, resp.headers, resp.body)
        seen = read_echo(resp.body) if resp.status == 200 else None
        judge.note(f"GET {target} alone: {resp.status}{' (the echo)' if seen else ''}")
        if seen is None:
            continue
        # MB-TEST-2: "`target`, the origin-form request target (path and query) as received".
        reached[target] = judge.expect(
            f"GET {target} alone: the echo's target", seen.target, {target}, "MB-TEST-2"
        )
    subs = [SubRequest("GET", ref) for t in targets for ref in (t, f"{origin}{t}")]
    for media, _, entries in answers_in_every_form(ctx, judge, subs):
        for i, (sub, entry) in enumerate(zip(subs, entries, strict=True)):
            target = resolve(ctx.batch_path, sub.target)
            label = f"{media} part {i} (GET <{sub.target}>)"
            if target not in reached:
                # Spec 3.2.4: a part is answered as the same request alone (MB-SUB-1).
                expect_same_as_alone(
                    ctx, judge, label, sub, (entry.status, entry.fields, entry.body), alone[target]
                )
                continue
            judge.expect(f"{label} status", entry.status, {200}, "MB-SUB-1")
            seen = read_echo(entry.body)
            if seen is None:
                judge.expect_true(
                    f"{label}", False, "no echo description", "the echo's", "MB-SUB-1"
                )
                continue
            # MB-PART-5: "use the result as the sub-request's target URI": the octets of the
            # resolved reference, none decoded; an echo that misreported the same request alone
            # misreports it here too, under MB-TEST-2.
            judge.expect(
                f"{label} target received",
                seen.target,
                {target},
                "MB-PART-5" if reached[target] else "MB-TEST-2",
            )
