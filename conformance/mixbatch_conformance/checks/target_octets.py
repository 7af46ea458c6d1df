"""Targets holding every octet a URI reference allows reach the resource as written (spec 3.2.2).

Theory of operation: MB-PART-4 refuses a `Content-Id` only when it "is not `"<" URI-reference
">"`", and RFC 3986 gives a query `*( pchar / "/" / "?" )` (§3.4) and a path segment
`*pchar` (§3.3), where a pchar is an unreserved character, a percent-encoded octet of any
value, a sub-delim, `:` or `@`. A receiver that refuses `%00` or `%25`, reads a second `?`
or a `/` in the query as structure, decodes a percent-encoded octet, or drops an empty query
refuses or changes a valid target. MB-PART-5 makes the reference, resolved by RFC 3986 §5.2,
"the sub-request's target URI", and MB-PART-6 forbids changing any character of it; RFC 3986
§5.3 keeps the `?` of a defined but empty query, and §6.2.3 says an empty component's
delimiter is not removed.

A `pct-encoded` is `"%" HEXDIG HEXDIG` (RFC 3986 §2.1): any octet, whether or not it is part of
a UTF-8 sequence, and HEXDIG admits lower-case letters. A path that, decoded, is not UTF-8 (a
lone continuation octet, a lead octet with no continuation, an overlong form such as `%C0%AF`,
a surrogate, a code point past U+10FFFF) is still a URI reference: taking the path for text, as
an IRI (RFC 3987) is, refuses a valid target. `ESCAPES` holds such octets by class: every
control octet (`%00` to `%1F`, `%7F`), every octet from `%80` to `%FF` (continuation octets
alone, lead octets with none), ill-formed sequences, every gen-delim and sub-delim encoded,
`%25` before hex digits, lower-case hex and well-formed multi-octet UTF-8. The spec names no
octet a server may refuse in a target: MB-PART-4 refuses a batch "never for how a valid
reference is written", and an input check the same request alone fails is reported in the part
(MB-SUB-1), so each class is expected processed, and answered as the same request alone.

Each batch keeps to the published limits (spec 9.1: "A server may choose other values; what it
must do is enforce and publish them"; MB-LIMIT-3): the parts go in as many batches as
`max_parts` and `max_batch_bytes` ask, every class of `ESCAPES` goes in a query of its own so
that a small `max_part_header_bytes` still carries it, a part whose header section is over that
limit is left out, and a 413 or 431 naming a limit is not judged. A reference that resolves to
the batch endpoint is left out: MB-SUB-4 refuses it "whatever its query", and `.` and `./`
resolve to the endpoint itself when its path ends in `/` (spec 3.2.2), as every reference
without a path does when the endpoint is `/`.

- `target-query-octets-reach-resource` sends GET parts to the `echo` whose queries hold those
  octets, every class of `ESCAPES` among them as names and as values, in each reference form,
  and expects the echo's `target` (MB-TEST-2: "the origin-form request target (path and
  query) as received") to be the resolved reference, octet for octet, or what the same request
  alone received. Each is also sent alone: one an input check refuses alone (a 4xx, as a
  firewall refusing control characters in a query gives) is expected refused in its part the
  same way (MB-SUB-1), and an echo that answers it otherwise breaks MB-TEST-2, not MB-PART-5.
- `target-path-octets-as-alone` sends parts whose paths hold `%00`, `%2F`, `%25` and every
  sub-delim, every class of `ESCAPES` as a whole inner segment and inside the last segment, in
  each reference form, an absolute URI with an empty path (origin form `/`, RFC 9112 §3.2.1)
  and the references `.` and `./`, which resolve on the batch's origin (each left out where it
  resolves to the batch endpoint); no resource is declared at those paths, so each part is
  judged against the same request alone (spec 3.2.4).
  A refused batch's parts are then sent one to a batch, to name the targets refused.
- `content-id-at-header-limit` sends a GET part to the `echo` whose header section is
  exactly the published `max_part_header_bytes` octets, nearly all of them the Content-Id's
  query: MB-PART-12 makes a receiver "accept a part header field line of any length that fits
  within its limit on the part header section [...] with no separate limit per line", and spec
  9.1 says "a value at the limit is within it", so a receiver that caps a target's length as
  it would a request line's refuses a valid batch.
- `valid-reference-spellings-accepted` sends one-part batches whose Content-Ids are valid URI
  references in spellings a character-set or bracket test gets wrong: IP-literals (IPv6 in
  full, zero-compressed, with an embedded IPv4 address; IPvFuture, `"v" 1*HEXDIG "." ...`), an
  empty port (`port = *DIGIT`) or query, percent-encoded octets (brackets among them, octets
  that decode to no UTF-8, control octets, encoded reserved characters in a query), every
  sub-delim, an empty path segment. MB-PART-4 takes each "as the part's target whatever
  characters of that grammar it holds", so none is refused with a problem naming MB-PART-4;
  whether a literal naming another host is refused is MB-SUB-2's business, not judged here.
  Userinfo is left out: MB-SUB-2 refuses it by name.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.alone import (
    expect_parts_as_alone,
    expect_same_as_alone,
    name_refused_parts,
    without_batch_endpoints,
)
from mixbatch_conformance.checks._shared.limit_cases import (
    envelope,
    part,
    published_limit,
    sent,
    within,
)
from mixbatch_conformance.checks._shared.part_limits import batches_within_limits, limit_refused
from mixbatch_conformance.checks._shared.resolution import resolve
from mixbatch_conformance.checks._shared.valid_references import expect_not_refused_for_syntax
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.echo import read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.validator import Envelope

__all__: list[str] = []


def _escaped(first: int, last: int) -> str:
    return "".join(f"%{octet:02X}" for octet in range(first, last + 1))


#: Percent-encoded octets by the class a receiver could refuse them for (RFC 3986 §2.1 makes
#: each a `pct-encoded`, whatever octet it encodes).
ESCAPES = (
    # Every control octet, NUL and DEL included.
    _escaped(0x00, 0x1F) + "%7F",
    # Every continuation octet, none after a lead octet.
    _escaped(0x80, 0xBF),
    # Every lead octet (and the octets C0, C1, F5 to FF, never in UTF-8), none followed by a
    # continuation octet.
    _escaped(0xC0, 0xFF),
    # Overlong "/" in two, three and four octets, the surrogates U+D800 and U+DFFF, U+110000,
    # and sequences cut short after their lead octet.
    "%C0%AF%E0%80%AF%F0%80%80%AF%ED%A0%80%ED%BF%BF%F4%90%80%80%E2%82%F0%9F%98",
    # Every gen-delim and sub-delim encoded (RFC 3986 §2.2).
    "%2F%3F%23%5B%5D%40%3A%3B%2C%3D%26%2B%24%21%27%28%29%2A",
    # A percent sign encoded, alone and before what a second decoding would take for octets.
    "%25%2541%252F%25%25",
    # Lower-case hex (RFC 3986 §2.1: "The uppercase hexadecimal digits 'A' through 'F' are
    # equivalent to the lowercase digits 'a' through 'f', respectively").
    "%ff%c0%af%80%2f%3f%5b%0a%7f%c3%a9",
    # Well-formed UTF-8 of two, three and four octets, and the noncharacter U+FFFF.
    "%C3%A9%E2%82%AC%F0%9F%98%80%EF%BF%BF",
)

#: Queries a URI reference allows (RFC 3986 §3.4), each a way a receiver could go wrong.
QUERIES = (
    # Percent-encoded NUL, percent sign, slash, question mark, number sign, CR LF, obs octets.
    "n=%00&p=%25&s=%2F&q=%3F&h=%23&crlf=%0D%0A&hi=%FF%80&sp=%20&plus=+",
    # A second "?" and "/" are query characters, not structure.
    "a=b?c/d&e=/f?g&?=?",
    # An empty query: the "?" is kept (RFC 3986 §5.3, §6.2.3).
    "",
    # Every sub-delim, ":" and "@".
    ":@!$&'()*+,;=",
    # Empty keys and values.
    "==&&;;",
    # Every unreserved character (RFC 3986 §2.3): a character-class test off by one at an end
    # of a range ("Z", "z", "9", "~") refuses a valid target.
    "ABCDEFGHIJKLMNOPQRSTUVWXYZ=abcdefghijklmnopqrstuvwxyz&d=0123456789-._~",
    # Every class of percent-encoded octet as a value, then as a name, each class a query of
    # its own (each fits a part header section of 512 octets).
    *(f"e{k}={escapes}" for k, escapes in enumerate(ESCAPES)),
    *(f"{escapes}=e{k}" for k, escapes in enumerate(ESCAPES)),
)


def _resolved(ctx: Context, ref: str) -> str:
    """The origin-form target RFC 3986 §5.2 gives `ref` against the batch request's URI: its
    path (`/` when empty, RFC 9112 §3.2.1) and its query, kept when defined though empty."""
    return resolve(ctx.batch_path, ref)


@checker(
    "target-query-octets-reach-resource",
    ("MB-PART-4", "MB-PART-5", "MB-PART-6", "MB-SUB-1", "MB-TEST-2"),
    "Parts whose queries hold percent-encoded octets of every class (every control octet, every octet from 80 to FF, overlong forms, surrogates, cut sequences, encoded gen-delims and sub-delims, percent, lower-case hex) as names and values, a second question mark and slashes, every sub-delim, every unreserved character, empty keys, or nothing after the question mark reach the echo in every reference form with that query as written, in batches within the published limits; one the same request alone is refused for is refused in its part as alone.",
    state=State.READ_ONLY,
)
def target_query_octets_reach_resource(ctx: Context, judge: Judge) -> None:
    echo = ctx.resource(judge, "echo")
    refs = [
        f"{ctx.ref(echo, form)}?{q}"
        for q in QUERIES
        for form in ("absolute-path", "relative", "absolute-uri")
    ]
    subs = without_batch_endpoints(ctx, judge, [SubRequest("GET", ref) for ref in refs])
    judged = 0
    for run in batches_within_limits(ctx, judge, subs):
        resp = ctx.batch(judge, run)
        limit = limit_refused(resp)
        if limit is not None:
            # Spec 9.1: "A server may choose other values; what it must do is enforce and
            # publish them": a refusal naming a limit is the server's to give, not judged here.
            judge.note(f"a batch of {len(run)} parts answered {resp.status} naming {limit}")
            continue
        judged += 1
        if resp.status != 200:
            name_refused_parts(ctx, judge, run, "MB-PART-4")
        # MB-PART-4: a server answers 400 only to a Content-Id that "is not `"<" URI-reference
        # ">"`"; every one here is (RFC 3986 §3.4), so the batch is processed.
        judge.require("top-level status", resp.status, {200}, "MB-PART-4")
        env = expect_processed(ctx, judge, resp, [s.content_id for s in run], (), "MB-PART-5")
        for i, sub in enumerate(run):
            _judge_query_part(ctx, judge, sub, env, i)
    if not judged:
        judge.not_applicable("no batch of these parts was left to judge within the limits")


def _judge_query_part(ctx: Context, judge: Judge, sub: SubRequest, env: Envelope, i: int) -> None:
    """Part `i` of `env`, sent as `sub`, against the same request sent alone."""
    ref = sub.target
    target = _resolved(ctx, ref)
    single = ctx.alone(judge, SubRequest("GET", target))
    got = (part_status(env, i), env.parts[i].fields, env.parts[i].body)
    if single.status != 200:
        if not 400 <= single.status < 500:
            # MB-TEST-2: the echo answers "every request to that resource whose method a
            # sub-request may carry, other than `HEAD`, with 200"; a 4xx is an input check's
            # refusal, which MB-SUB-1 has the server report, and is judged below.
            judge.expect(f"GET {target} alone: status", single.status, {200}, "MB-TEST-2")
        # MB-SUB-1: "subject each sub-request to the same routing, authentication,
        # authorisation, rate-limit, input-validation and audit checks as the same request sent
        # on its own, and report a check's failure in the part".
        alone = (single.status, single.headers, single.body)
        expect_same_as_alone(ctx, judge, f"part ({ref})", sub, got, alone)
        return
    # MB-PART-5: "use the result as the sub-request's target URI": a target the echo answers
    # alone with 200 (MB-TEST-2) reaches it in the part too.
    judge.require(f"part ({ref}) status", got[0], {200}, "MB-PART-5")
    seen = read_echo(got[2])
    if seen is None:
        judge.not_applicable("the echo resource does not describe the request it received")
    # MB-PART-5: "use the result as the sub-request's target URI"; MB-PART-6: "MUST NOT
    # ... change the case of any character in it": every octet of the query as written.
    wanted = {target}
    received = read_echo(single.body)
    if received is not None:
        # An HTTP stack may hand its resource another target than the request line's (ASGI's
        # query_string cannot tell an empty query from none): spec 3.2.4 then holds the part
        # to what the same request alone received.
        wanted.add(received.target)
    judge.expect(f"part ({ref}) target received", seen.target, wanted, "MB-PART-5")


def _path_refs(ctx: Context, echo: str) -> list[str]:
    full = ctx.path(echo)
    origin = f"{ctx.scheme}://{ctx.authority}"
    # Each class of escape as a whole inner segment and inside the last segment, in every
    # reference form.
    escaped = [
        ctx.ref(path, form)
        for escapes in ESCAPES
        for path in (f"{full}/{escapes}/mb-seg", f"{full}/mb-seg{escapes}")
        for form in ("absolute-path", "relative", "absolute-uri")
    ]
    # Segments of percent-encoded dots are no dot segments: MB-PART-5 resolves by RFC 3986
    # §5.2, whose remove_dot_segments (§5.2.4) removes "." and ".." only. Each stands before
    # the echo's last segment, where taking it for a dot segment would reach the echo.
    head, _, last = full.rpartition("/")
    encoded_dots = [
        ctx.ref(f"{head}/{detour}{last}", form)
        for detour in ("mb-seg/%2e%2e/", "mb-seg/.%2E/", "mb-seg/%2E./", "%2e/", "mb-seg/%2E%2e/")
        for form in ("absolute-path", "relative", "absolute-uri")
    ]
    return [
        f"{full}/%00",
        f"{full}/a%2Fb",
        f"{full}/%25",
        f"{full}/%2e%2E",
        f"{full}/!$&'()*+,;=:@",
        f"{full};v=1",
        origin,
        f"{origin}?mb-suite=1",
        ".",
        "./",
        *escaped,
        *encoded_dots,
    ]


@checker(
    "target-path-octets-as-alone",
    ("MB-PART-4", "MB-PART-5", "MB-SUB-1"),
    "Parts whose paths hold percent-encoded NUL, slash, percent and dots (also as whole segments before the echo's last), every sub-delim, colon and at sign, percent-encoded octets of every class (every control octet, every octet from 80 to FF, overlong forms, surrogates, cut sequences, encoded gen-delims and sub-delims, percent, lower-case hex) in an inner and in the last segment in every reference form, an absolute URI with an empty path, and the references . and ./ (where they do not resolve to the batch endpoint) are processed, in batches within the published limits, and answered as the same requests alone.",
    state=State.READ_ONLY,
)
def target_path_octets_as_alone(ctx: Context, judge: Judge) -> None:
    echo = ctx.resource(judge, "echo")
    subs = [SubRequest("GET", ref) for ref in _path_refs(ctx, echo)]

    def alone_as(sub: SubRequest) -> SubRequest:
        # MB-PART-5: the target is the reference resolved by RFC 3986 §5.2.
        return SubRequest(sub.method, _resolved(ctx, sub.target), sub.headers, sub.body)

    # MB-PART-4: each Content-Id is a URI-reference, so the batch is processed; MB-SUB-1:
    # each part then meets what the same request alone meets. A reference that resolves to the
    # batch endpoint is left out (MB-SUB-4: "A server MUST answer 400 to a batch request in
    # which any part's target is a batch endpoint"), and the parts go in batches within the
    # published limits (MB-LIMIT-3).
    expect_parts_as_alone(
        ctx,
        judge,
        subs,
        requirement="MB-PART-5",
        refused="MB-PART-4",
        alone_as=alone_as,
        trace_refusal=True,
    )


@checker(
    "content-id-at-header-limit",
    ("MB-PART-12", "MB-LIMIT-1", "MB-PART-5"),
    "A GET part whose header section is exactly the published max_part_header_bytes octets, nearly all of them its Content-Id's query, is processed and the echo receives that query whole.",
    state=State.READ_ONLY,
)
def content_id_at_header_limit(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    limit = published_limit(ctx, judge, "max_part_header_bytes")
    head = f"Http-Method: GET\r\nContent-Id: <{echo}?pad=>\r\n"
    room = limit - len(head)
    if room < 1:
        judge.not_applicable(f"max_part_header_bytes {limit} leaves no room for a query")
    target = f"{echo}?pad={'q' * room}"
    section = f"Http-Method: GET\r\nContent-Id: <{target}>\r\n".encode("latin-1")
    body = envelope([part(section)])
    within(ctx, judge, body, 1, 2)
    resp = sent(ctx, judge, body, chunked=False)
    # Spec 9.1: "a part header section of exactly `max_part_header_bytes` octets is accepted";
    # MB-PART-12: "with no separate limit per line".
    judge.require("top-level status", resp.status, {200}, "MB-PART-12")
    env = expect_processed(ctx, judge, resp, [f"<{target}>"], (), "MB-PART-12")
    judge.require("part 0 status", part_status(env, 0), {200}, "MB-PART-5")
    seen = read_echo(env.parts[0].body)
    if seen is None:
        judge.not_applicable("the echo resource does not describe the request it received")
    # MB-PART-5: "use the result as the sub-request's target URI": the whole query.
    judge.expect("target received", seen.target, {target}, "MB-PART-5")


def valid_spellings(ctx: Context, echo: str) -> list[str]:
    """URI references (RFC 3986 §4.1) in spellings a character-set or bracket test gets wrong:
    IP-literals (IPv6 in full, zero-compressed and with an embedded IPv4 address), IPvFuture
    literals, an empty port and an empty query, percent-encoded octets (brackets among them,
    octets that decode to no UTF-8 in a path and in a query, control octets, reserved
    characters in a query), every sub-delim in a path and a query, and an empty path
    segment."""
    s, a = ctx.scheme, ctx.authority
    port = f":{ctx.port}"
    return [
        f"{s}://[::1]{port}{echo}?mb-ref=v6",
        f"{s}://[0:0:0:0:0:0:0:1]{port}{echo}",
        f"{s}://[::ffff:127.0.0.1]{port}{echo}",
        f"{s}://[2001:db8::7]{echo}",
        f"{s}://[fe80::1:2]{port}{echo}",
        f"{s}://[v7.mb-host:1]{port}{echo}",
        f"{s}://[V1F.a!$&'()*+,;=:b]{echo}",
        f"{s}://{ctx.host}:{echo}",
        f"{s}://{a}{echo}?",
        f"{echo}/%41%2f%25?q=%5B%5D",
        f"{echo}/s%FF",
        f"{s}://{a}{echo}/%C0%AF%ED%A0%80%F4%90%80%80/%80?%E2%82=%ff",
        f"{echo}/%00%1F%7F?%00=%0D%0A",
        f"{echo}?%2F%3F%23%5B%5D%40%3A=%3B%2C%3D%26%2B%24%21%27%28%29%2A%25",
        f"{echo}/!$&'()*+,;=:@",
        f"{echo}?!$&'()*+,;=:@/?",
        f"{echo}//mb-ref",
        f"{ctx.ref(echo, 'relative')};p=1",
    ]


@checker(
    "valid-reference-spellings-accepted",
    ("MB-PART-4",),
    "A one-part batch whose Content-Id is a valid URI reference in a spelling a naive character or bracket filter gets wrong (IPv6 literals in full, zero-compressed and with an embedded IPv4 address, IPvFuture literals, an empty port or query, percent-encoded octets, those that decode to no UTF-8, control octets and encoded reserved characters among them, sub-delims, an empty path segment) is not refused as malformed.",
    state=State.READ_ONLY,
)
def valid_reference_spellings_accepted(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    for ref in valid_spellings(ctx, echo):
        resp = ctx.batch(judge, [SubRequest("GET", ref)])
        # What each is answered otherwise is for the rules on what it names (MB-SUB-2 refuses
        # another origin's literal): only a refusal for its syntax is judged here.
        judge.note(f"<{ref}>: {resp.status}")
        expect_not_refused_for_syntax(judge, f"<{ref}>", resp)
