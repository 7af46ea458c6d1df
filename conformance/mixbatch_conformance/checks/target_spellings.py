"""What the resource receives for each spelling of a part's target (spec 3.2.2, 3.2.3).

Theory of operation: a status alone cannot show that a part reached the right resource with
the right target: a server that drops the query, decodes percent-encoding, changes case or
keeps dot segments may still answer 200. The `echo` resource says what it received
(MB-TEST-2: "`target`, the origin-form request target (path and query) as received"), so
the check sends parts to it in several spellings and compares that target with the reference
resolved as MB-PART-5 says ("resolves the Content-Id reference against the batch request's
target URI by RFC 3986 §5.2": dot segments removed, everything else kept) and MB-PART-6 asks
("no unfolding, comment removal or case change"). Each part also carries an extension field
with a mixed-case name, which the resource must receive (MB-PART-8: "the part's other header
fields are the sub-request's header fields").

`absolute-target-gets-batch-authority` addresses the echo with absolute URIs on the batch's
origin spelled otherwise (a port with leading zeros, an upper-case scheme or host, a default
port written out or left empty) and holds the authority each part's resource received to the
one a plain path reference receives in the same batch (MB-PART-13).
"""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit

from mixbatch_conformance.checks._shared.alone import expect_same_as_alone
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.echo import Echo, comparable_headers, read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.validator import Envelope
from mixbatch_conformance.transport.urls import DEFAULT_PORTS

__all__: list[str] = []

#: An extension field each part carries, its name in mixed case (names match in any case).
FIELD = ("X-MixBatch-Suite-Field", "Kept As Sent")
#: Every field line of each part, in order: FIELD, another, FIELD again in another case.
FIELDS = (FIELD, ("Accept-Language", "en, fr;q=0.5"), (FIELD[0].lower(), "second, line"))
#: A query with upper case, a percent-encoded space and slash, and a repeated key.
QUERY = "Case=Kept&q=a%20b%2Fc&q=2"
#: A query whose percent-encodings have lower-case and mixed-case hex digits, which RFC 3986
#: §6.2.2.1 would normalise and MB-PART-6 keeps ("MUST NOT ... change the case of any
#: character in it").
LOWER_QUERY = "q=%2f%c3%a9&r=%2F%2f&s=%7e"


def spellings(ctx: Context, echo: str) -> list[tuple[str, str]]:
    """References to the echo resource (query, percent-encoding, dot segments, every form),
    each with the requirement that fixes what the resource receives for it."""
    full = ctx.path(echo)
    parent = full.rsplit("/", 1)[0]
    name = full.rsplit("/", 1)[1]
    return [
        (f"{full}?{QUERY}", "MB-PART-5"),
        (f"{ctx.ref(echo, 'relative')}?{QUERY}", "MB-PART-5"),
        (f"{parent}/mb-suite-dir/../{name}?{QUERY}", "MB-PART-5"),
        (f"./{ctx.ref(echo, 'relative')}", "MB-PART-5"),
        (f"{parent}/./mb-suite-dir/./../{name}", "MB-PART-5"),
        (f"{ctx.ref(echo, 'absolute-uri')}?{QUERY}", "MB-PART-5"),
        (f"{full}?{LOWER_QUERY}", "MB-PART-6"),
        (f"{ctx.ref(echo, 'relative')}?{LOWER_QUERY}", "MB-PART-6"),
        (f"{ctx.ref(echo, 'absolute-uri')}?{LOWER_QUERY}", "MB-PART-6"),
    ]


def resolved(ctx: Context, ref: str, base: str | None = None) -> str:
    """The origin-form target RFC 3986 §5.2 gives `ref` against the batch request's URI
    (`base`: its path and query, the batch endpoint's path by default)."""
    url = urlsplit(urljoin(f"{ctx.scheme}://{ctx.authority}{base or ctx.batch_path}", ref))
    # RFC 3986 §5.3: an empty query that the reference defines is kept ("?" then nothing).
    own_query = "?" in ref
    return url.path + (f"?{url.query}" if url.query or own_query else "")


def _seen(ctx: Context, judge: Judge, env: Envelope, i: int) -> Echo:
    seen = read_echo(env.parts[i].body)
    if seen is None:
        judge.not_applicable("the echo resource does not describe the request it received")
    return seen


def _added_alone(ctx: Context, judge: Judge, echo: str) -> set[str]:
    """Names of the fields the target's own HTTP stack adds to a request with FIELDS sent
    alone (a proxy's Via, say): spec 3.2.4 leaves those to the stack, so they are not judged."""
    single = read_echo(ctx.alone(judge, SubRequest("GET", ctx.path(echo), FIELDS)).body)
    if single is None:
        judge.not_applicable("the echo resource does not describe the request it received")
    sent = {n.lower() for n, _ in FIELDS}
    return {n.lower() for n, _ in single.headers} - sent


def _expect_fields(ctx: Context, judge: Judge, i: int, seen: Echo, added: set[str]) -> None:
    # MB-PART-8: "take a request part's header fields other than `Http-Method` and
    # `Content-Id` as the sub-request's header fields, in order": every line, repeats kept.
    judge.expect(
        f"part {i} {FIELD[0]} lines received",
        seen.get_all(FIELD[0]),
        [[v for n, v in FIELDS if n.lower() == FIELD[0].lower()]],
        "MB-PART-8",
    )
    inherited = added | ({"authorization", "cookie"} if ctx.target.credentials else set())
    got = [
        (n, v)
        for n, v in comparable_headers(seen.headers, ctx.target.volatile_headers)
        if n not in inherited
    ]
    judge.expect(
        f"part {i} field lines received, in order",
        got,
        [[(n.lower(), v) for n, v in FIELDS]],
        "MB-PART-8",
    )


@checker(
    "target-forms-reach-resource",
    ("MB-PART-5", "MB-PART-6", "MB-PART-8"),
    "Parts addressed with a query, percent-encoding in either case, upper case and dot segments, in every reference form, reach the resource with the target resolved by RFC 3986 and every field line in order.",
    state=State.READ_ONLY,
)
def target_forms_reach_resource(ctx: Context, judge: Judge) -> None:
    echo = ctx.resource(judge, "echo")
    refs = spellings(ctx, echo)
    subs = [SubRequest("GET", ref, FIELDS) for ref, _ in refs]
    added = _added_alone(ctx, judge, echo)
    env = expect_processed(ctx, judge, ctx.batch(judge, subs), [s.content_id for s in subs])
    for i, (sub, (_, requirement)) in enumerate(zip(subs, refs, strict=True)):
        judge.require(f"part {i} status", part_status(env, i), {200}, "MB-PART-5")
        seen = _seen(ctx, judge, env, i)
        # MB-PART-5: "use the result as the sub-request's target URI"; MB-PART-6: "MUST NOT
        # ... change the case of any character in it": case, query and percent-encoding as
        # written.
        judge.expect(
            f"part {i} target received", seen.target, {resolved(ctx, sub.target)}, requirement
        )
        _expect_fields(ctx, judge, i, seen, added)


#: A query on the batch request's own URI, which no reference with a path of its own inherits.
BATCH_QUERY = "mb-suite-batch=1&page=2"


@checker(
    "target-against-batch-query",
    ("MB-PART-5",),
    "With a query on the batch request's URI, a reference with a path and no query reaches the resource without one, and one with its own query or an empty query keeps exactly that.",
    state=State.READ_ONLY,
)
def target_against_batch_query(ctx: Context, judge: Judge) -> None:
    echo = ctx.resource(judge, "echo")
    relative, full = ctx.ref(echo, "relative"), ctx.path(echo)
    refs = [
        relative,
        full,
        f"./{relative}",
        f"{relative}?",
        f"{full}?own=1",
        ctx.ref(echo, "absolute-uri"),
    ]
    subs = [SubRequest("GET", ref) for ref in refs]
    base = f"{ctx.batch_path}?{BATCH_QUERY}"
    boundary = "mb-suite-0123456789abcdef"
    head = [("Content-Type", f"multipart/mixed; boundary={boundary}")]
    resp = ctx.send(judge, ctx.raw_request("POST", base, head, compose_batch(subs, boundary)))
    if resp.status != 200:
        judge.not_applicable(f"POST {base} answered {resp.status}: no batch endpoint there")
    env = expect_processed(ctx, judge, resp, [s.content_id for s in subs])
    for i, sub in enumerate(subs):
        judge.require(f"part {i} status", part_status(env, i), {200}, "MB-PART-5")
        seen = _seen(ctx, judge, env, i)
        want = {resolved(ctx, sub.target, base)}
        if sub.target.endswith("?"):
            # An empty query is a query (RFC 3986 §3.4), but some HTTP stacks cannot tell it
            # from none (an ASGI scope's query_string): whatever the same request alone
            # shows is allowed too.
            single = read_echo(ctx.alone(judge, SubRequest("GET", next(iter(want)))).body)
            want |= {single.target} if single else set()
        # MB-PART-5: "resolve the reference inside `Content-Id` against the batch request's
        # target URI ... by the algorithm of RFC 3986 §5.2": a reference with a path takes its
        # own query (RFC 3986 §5.2.2, T.query = R.query), never the base's.
        judge.expect(
            f"part {i} ({sub.target}) target received",
            seen.target,
            want,
            "MB-PART-5",
        )


def routing_spellings(path: str) -> list[str]:
    """Spellings of `path` that a router might take for it and RFC 3986 does not: a trailing
    slash, a doubled slash, the last segment in upper case, its slash percent-encoded."""
    parent, _, name = path.rpartition("/")
    out = [f"{path}/", f"{parent}/{name.upper()}"]
    if parent:
        # Not at the root: "//name" would be a network-path reference (MB-SUB-2).
        out += [f"{parent}//{name}", f"{parent}%2F{name}"]
    return [s for s in out if s != path]


#: Declared resources whose spellings are routed (read-only GETs).
ROUTED_ROLES = ("etag_resource", "ok", "collection", "not_found")


@checker(
    "target-spellings-routed-as-alone",
    # MB-PART-5 too: RFC 3986 §5.2 resolution keeps a doubled slash, a trailing slash and an
    # encoded slash as written, so a part gets what the same spelling alone gets only when it is
    # resolved so and then routed alike (MB-SUB-1).
    ("MB-SUB-1", "MB-RESP-4", "MB-PART-5"),
    "A part whose target is a declared resource's path with a trailing slash, a doubled slash, another case or an encoded slash gets what the same request alone gets.",
    state=State.READ_ONLY,
)
def target_spellings_routed_as_alone(ctx: Context, judge: Judge) -> None:
    paths = [ctx.path(p) for role in ROUTED_ROLES if (p := ctx.target.resource(role))]
    if not paths:
        judge.not_applicable("the target declares none of " + ", ".join(ROUTED_ROLES))
    subs = [SubRequest("GET", s) for p in dict.fromkeys(paths) for s in routing_spellings(p)]
    alone = [ctx.alone(judge, s) for s in subs]
    env = expect_processed(ctx, judge, ctx.batch(judge, subs), [s.content_id for s in subs])
    for i, (sub, part, single) in enumerate(zip(subs, env.parts, alone, strict=True)):
        # MB-SUB-1: "the same routing ... checks as the same request sent on its own": a
        # spelling routed to no resource alone is routed to none in a batch, and the other
        # way round; the sub-response is then the one alone (MB-RESP-4).
        expect_same_as_alone(
            ctx,
            judge,
            f"part {i} ({sub.method} {sub.target})",
            sub,
            (part_status(env, i), part.fields, part.body),
            (single.status, single.headers, single.body),
        )


def same_origin_spellings(ctx: Context, path: str) -> list[str]:
    """Absolute URIs naming `path` on the batch's own origin, each spelling its scheme or
    authority differently from the batch request: RFC 3986 §6.2.2.1 and §6.2.3 make them the
    same origin (case-insensitive scheme and host, a port's value, a default port written out
    or left empty)."""
    full = ctx.path(path)
    default = DEFAULT_PORTS[ctx.scheme]
    out = [
        f"{ctx.scheme}://{ctx.host}:0{ctx.port}{full}",
        f"{ctx.scheme}://{ctx.host}:00{ctx.port}{full}",
        f"{ctx.scheme.upper()}://{ctx.host.upper()}:{ctx.port}{full}",
        f"{ctx.scheme}://{ctx.host.upper()}{'' if ctx.port == default else f':{ctx.port}'}{full}",
    ]
    if ctx.port == default:
        out += [f"{ctx.scheme}://{ctx.host}:{default}{full}", f"{ctx.scheme}://{ctx.host}:{full}"]
    return out


@checker(
    "absolute-target-gets-batch-authority",
    ("MB-PART-13",),
    "A part whose target is an absolute URI on the batch's origin, its port with leading zeros, its host or scheme upper-cased or its default port written out, reaches the resource with the batch request's authority.",
    state=State.READ_ONLY,
)
def absolute_target_gets_batch_authority(ctx: Context, judge: Judge) -> None:
    echo = ctx.resource(judge, "echo")
    # The first part's authority is the batch request's as the resource sees it.
    subs = [SubRequest("GET", ctx.path(echo))]
    subs += [SubRequest("GET", ref) for ref in same_origin_spellings(ctx, echo)]
    env = expect_processed(ctx, judge, ctx.batch(judge, subs), [s.content_id for s in subs])
    judge.require("part 0 status", part_status(env, 0), {200}, "MB-PART-13")
    batch_authority = _seen(ctx, judge, env, 0).authority
    if batch_authority is None:
        judge.not_applicable("the echo resource does not say which authority it was sent")
    reached = 0
    for i, sub in enumerate(subs[1:], start=1):
        if part_status(env, i) != 200:
            # Whether this spelling names the batch's origin is the server's to decide
            # (MB-PART-4); a part it refuses reaches no resource.
            continue
        reached += 1
        seen = _seen(ctx, judge, env, i)
        # MB-PART-13: "gives each sub-request the batch request's authority ... whether or
        # not the part carries Host": the authority as the target spells it is not it.
        judge.expect(
            f"part {i} ({sub.target}) authority received",
            (seen.authority or "").lower(),
            {batch_authority.lower()},
            "MB-PART-13",
        )
    if not reached:
        judge.not_applicable("the server took none of the same-origin spellings as its origin")


#: Field values whose inner octets a server may be tempted to tidy: runs of SP and HTAB (which
#: unfolding or a split on whitespace collapses), a quoted string holding two spaces, a list
#: with spaces around its commas, and a value of only separators between visible characters.
#: None starts or ends with whitespace, which RFC 9110 §5.5 has the parser trim.
SPACED_VALUES = (
    ("X-Mb-Spaced-Runs", "a  b\tc"),
    ("X-Mb-Spaced-Mixed", "a \t \t b"),
    ("X-Mb-Spaced-Quoted", '"two  spaces" and\t\ttabs'),
    ("X-Mb-Spaced-List", "x ,  y,\tz"),
    ("X-Mb-Spaced-Wide", "1" + " " * 9 + "2"),
)

#: A content field a server may parse and write again: a media type whose parameter follows two
#: spaces, a receiver's own reading of the part being no licence to re-serialise it.
SPACED_CONTENT_FIELDS = (
    ("Content-Type", "text/plain;  charset=utf-8"),
    ("X-Mb-Spaced-Runs", "a  b\tc"),
)


@checker(
    "part-field-values-kept",
    ("MB-PART-8",),
    "Part field values holding runs of SP and HTAB, quoted strings and lists with spaces around their commas, and a PUT part's Content-Type with two spaces before its parameter, reach the resource octet for octet.",
    state=State.READ_ONLY,
)
def part_field_values_kept(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    subs = [
        SubRequest("GET", f"{echo}?mb-spaced=1", SPACED_VALUES),
        SubRequest("PUT", f"{echo}?mb-spaced=2", SPACED_CONTENT_FIELDS, b"mb-spaced"),
    ]
    env = expect_processed(ctx, judge, ctx.batch(judge, subs), [s.content_id for s in subs])
    for i, sub in enumerate(subs):
        judge.require(f"part {i} status", part_status(env, i), {200}, "MB-PART-8")
        seen = _seen(ctx, judge, env, i)
        for name, value in sub.headers:
            # MB-PART-8: "take a request part's header fields other than `Http-Method` and
            # `Content-Id` as the sub-request's header fields": the value as written, inner
            # whitespace and all (MB-PART-6 asks for "no unfolding").
            judge.expect(f"part {i} {name} received", seen.get_all(name), [[value]], "MB-PART-8")
