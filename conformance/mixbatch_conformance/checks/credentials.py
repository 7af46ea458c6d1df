"""Credential inheritance (spec 8.2): what a part's sub-request sees of the batch's identity.

Theory of operation: MB-SUB-5 is about fields a handler sees, which no response shows unless a
resource reflects them. The check sends one batch with an outer `Authorization` and `Cookie` to
the target's echo resource (read by _echo): a part with neither field of its own must see the
outer values, a part with its own `Authorization` must see only that one (replaced, not merged),
and likewise for `Cookie`. Outer values are the target's configured credentials when it has
them (a server that demands them would otherwise refuse every part) and suite tokens otherwise.
A last part without either field, after the parts with their own, must see the outer values
again: a server that stores a part's own credential where it keeps the batch's gives it to the
parts after it. The batch is sent `ROUNDS` times, each with tokens of its own, then once with no credentials
(unless the target needs its own): a server that keeps a request's credentials for its
connection gives a later batch's parts the earlier one's.
"""

from __future__ import annotations

import secrets

from mixbatch_conformance.checks._shared.origins import origin_spellings
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.echo import read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import answers_in_every_form

__all__: list[str] = []

#: Statuses a server that checks credentials may give a part carrying the suite's own token.
REFUSED = {401, 403}
#: Batches sent one after the other, each with its own tokens.
ROUNDS = 2


def _configured(ctx: Context, name: str) -> str | None:
    for n, v in ctx.target.credentials:
        if n.lower() == name.lower():
            return v
    return None


@checker(
    "credentials-inherited",
    ("MB-SUB-5", "MB-TEST-2"),
    "Each part sees the batch's Authorization and every Cookie line in order unless it carries its own, which then replaces the outer one, every line kept, and a part after those with their own sees the batch's again; in two batches one after the other, each with its own tokens, and none in a batch that carries none.",
    state=State.READ_ONLY,
)
def credentials_inherited(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    for _ in range(ROUNDS):
        _inherited_once(ctx, judge, echo)
    if not ctx.target.credentials:
        _none_inherited(ctx, judge, echo)


def _none_inherited(ctx: Context, judge: Judge, echo: str) -> None:
    """A batch with no credentials after batches with some: its part sees none."""
    sub = SubRequest("GET", f"{echo}?mb-inherit=none")
    env = expect_processed(ctx, judge, ctx.batch(judge, [sub]), [sub.content_id])
    judge.require("part 0 status without credentials", part_status(env, 0), {200}, "MB-SUB-5")
    seen = read_echo(env.parts[0].body)
    if seen is None:
        return
    # MB-SUB-5: a server MUST "apply the batch request's `Authorization` and `Cookie` fields"
    # (spec 12: "a part gets the batch's credentials or its own"): here there are neither.
    for name in ("Authorization", "Cookie"):
        judge.expect(f"part 0 {name} without credentials", seen.get_all(name), [[]], "MB-SUB-5")


def _inherited_once(ctx: Context, judge: Judge, echo: str) -> None:
    nonce = secrets.token_hex(6)
    outer_auth = _configured(ctx, "Authorization") or f"Bearer mb-suite-outer-{nonce}"
    outer_cookie = _configured(ctx, "Cookie") or f"mb-suite-outer={nonce}"
    own_auth = f"Bearer mb-suite-part-{nonce}"
    own_cookie = f"mb-suite-part={nonce}"
    # A second Cookie line on each side: MB-SUB-5 applies the batch's Cookie *field*, which
    # is every line of it in order (RFC 9110 §5.3), and a part's own field likewise.
    outer_cookie_2 = f"mb-suite-outer-2={nonce}"
    own_cookie_2 = f"mb-suite-part-2={nonce}"
    subs = [
        SubRequest("GET", f"{echo}?mb-inherit=both"),
        SubRequest("GET", f"{echo}?mb-inherit=cookie", (("Authorization", own_auth),)),
        SubRequest(
            "GET",
            f"{echo}?mb-inherit=authorization",
            (("Cookie", own_cookie), ("X-Mb-Between", "1"), ("Cookie", own_cookie_2)),
        ),
        # After parts with credentials of their own: a server that keeps a part's own field
        # as the batch's for the parts after it gives this one the earlier part's.
        SubRequest("GET", f"{echo}?mb-inherit=after-own"),
    ]
    # (Authorization, Cookie) each part's sub-request must see.
    outer_cookies = [outer_cookie, outer_cookie_2]
    wanted = [
        ([outer_auth], outer_cookies),
        ([own_auth], outer_cookies),
        ([outer_auth], [own_cookie, own_cookie_2]),
        ([outer_auth], outer_cookies),
    ]
    outer = (("Authorization", outer_auth), ("Cookie", outer_cookie), ("Cookie", outer_cookie_2))
    resp = ctx.batch(judge, subs, headers=outer)
    env = expect_processed(ctx, judge, resp, [s.content_id for s in subs])
    if part_status(env, 0) != 200:
        judge.setup_error(f"GET {echo} in a batch answered {part_status(env, 0)}, not 200")
    for i, (auth, cookie) in enumerate(wanted):
        status = part_status(env, i)
        if i and status in REFUSED and ctx.target.credentials:
            judge.not_applicable(
                f"the target refuses a part carrying the suite's own credentials ({status}), "
                "so a replaced credential cannot be observed"
            )
        judge.require(f"part {i} status", status, {200}, "MB-SUB-5")
        seen = read_echo(env.parts[i].body)
        if seen is None:
            judge.not_applicable(
                "the echo resource does not describe the request as JSON with method, target "
                "and headers, so the suite cannot see the sub-request's fields"
            )
        got_auth, got_cookie = seen.get_all("Authorization"), seen.get_all("Cookie")
        judge.expect(f"part {i} Authorization", got_auth, [auth], "MB-SUB-5")
        judge.expect(f"part {i} Cookie", got_cookie, [cookie], "MB-SUB-5")
        inherited = [("Authorization", got_auth, auth)] if auth == [outer_auth] else []
        inherited += [("Cookie", got_cookie, cookie)] if cookie == outer_cookies else []
        for name, got, want in inherited:
            # MB-TEST-2: the echo lists "the request's header fields": an inherited field
            # missing from its description is one the resource did not get (MB-SUB-5) or one
            # the echo left out of what it received (MB-TEST-2); the suite cannot tell which.
            judge.expect(
                f"part {i} inherited {name} in the echo's headers (missing: not passed on, "
                "MB-SUB-5, or left out of the description, MB-TEST-2)",
                got,
                [want],
                "MB-TEST-2",
            )


def _echo_for_suite_credentials(ctx: Context, judge: Judge, why: str) -> tuple[str, str]:
    """The echo's path and a fresh nonce for a check that sends credentials of its own.

    Not applicable when the target needs its own credentials, which the suite's would break.
    """
    if ctx.target.credentials:
        judge.not_applicable(f"the target needs its own credentials, {why}")
    return ctx.path(ctx.resource(judge, "echo")), secrets.token_hex(6)


@checker(
    "credentials-every-outer-line-inherited",
    ("MB-SUB-5",),
    "A batch request carrying two Authorization and two Cookie field lines gives a GET part without its own every line of both in order, and a POST part with content and its own Cookie every Authorization line.",
    state=State.READ_ONLY,
)
def credentials_every_outer_line_inherited(ctx: Context, judge: Judge) -> None:
    echo, nonce = _echo_for_suite_credentials(ctx, judge, "which two suite lines would break")
    auths = [f"Bearer mb-suite-first-{nonce}", f"Bearer mb-suite-second-{nonce}"]
    cookies = [f"mb-first={nonce}", f"mb-second={nonce}"]
    own_cookie = f"mb-part={nonce}"
    outer = (
        ("Authorization", auths[0]),
        ("Cookie", cookies[0]),
        ("Authorization", auths[1]),
        ("Cookie", cookies[1]),
    )
    subs = [
        SubRequest("GET", f"{echo}?mb-lines=both"),
        SubRequest(
            "POST",
            f"{echo}?mb-lines=authorization",
            (("Content-Type", "text/plain"), ("Cookie", own_cookie)),
            b"mb credential lines",
        ),
    ]
    resp = ctx.batch(judge, subs, headers=outer)
    if resp.status in (400, 401, 403, 431):
        judge.not_applicable(
            f"a batch request with two Authorization lines was answered {resp.status}: the "
            "target's HTTP stack refuses a repeated field that is not a list"
        )
    env = expect_processed(ctx, judge, resp, [s.content_id for s in subs])
    wanted = [(auths, cookies), (auths, [own_cookie])]
    for i, (auth, cookie) in enumerate(wanted):
        judge.require(f"part {i} status", part_status(env, i), {200})
        seen = read_echo(env.parts[i].body)
        if seen is None:
            judge.not_applicable("the echo resource does not describe the request it received")
        # MB-SUB-5 (spec 8.2): "When the batch request carries several `Cookie` (or
        # `Authorization`) field lines, a sub-request that inherits gets all of them, in their
        # order"; a part's own Cookie replaces the batch's.
        judge.expect(f"part {i} Authorization", seen.get_all("Authorization"), [auth], "MB-SUB-5")
        judge.expect(f"part {i} Cookie", seen.get_all("Cookie"), [cookie], "MB-SUB-5")


#: Authorization values in the schemes clients send (RFC 9110 §11.4: `auth-scheme [ 1*SP (
#: token68 / #auth-param ) ]`), each one a server might think it knows better than to pass on:
#: Digest's response is computed over the batch request's method and URI (RFC 7616 §3.4),
#: Negotiate and NTLM tie a context to the connection, HOBA and signed schemes to one request.
SCHEMES = (
    "Basic bWItc3VpdGU6c2NoZW1lcw==",
    'Digest username="mb-suite", realm="mb", nonce="{nonce}", uri="/", '
    'response="0123456789abcdef0123456789abcdef", qop=auth, nc=00000001, cnonce="c0ffee"',
    "Negotiate YIIBmb-suite-{nonce}==",
    "NTLM TlRMTVNTUAABAAAAB4IIogAAAAAAAAAAAAAAAAAAAAAGAbEdAAAADw==",
    'HOBA result="mb-suite.{nonce}.sig"',
    "AWS4-HMAC-SHA256 Credential=MBSUITE/20261202/us-east-1/s3/aws4_request, "
    "SignedHeaders=host;x-amz-date, Signature={nonce}",
    'Mutual sid={nonce}, kc1="mb-suite"',
    "mb-suite-scheme {nonce}",
    "Bearer mb-suite.{nonce}-_~+/==",
)


@checker(
    "credentials-inherited-every-scheme",
    ("MB-SUB-5",),
    "A batch request's Authorization in each scheme clients send (Basic, Digest, Negotiate, NTLM, HOBA, AWS4-HMAC-SHA256, Mutual, an unregistered scheme, a token68 with every character it allows) reaches a GET part without its own as the same value.",
    state=State.READ_ONLY,
)
def credentials_inherited_every_scheme(ctx: Context, judge: Judge) -> None:
    echo, nonce = _echo_for_suite_credentials(ctx, judge, "which the suite's would replace")
    judged = 0
    for value in (v.replace("{nonce}", nonce) for v in SCHEMES):
        scheme = value.split(" ", 1)[0]
        sub = SubRequest("GET", f"{echo}?mb-scheme={scheme}")
        resp = ctx.batch(judge, [sub], headers=(("Authorization", value),))
        if resp.status in (401, 403):
            # MB-SUB-1 runs the resource's own authentication check: a server that refuses a
            # credential it cannot verify has nothing to hand on.
            judge.note(f"a batch with Authorization: {scheme} ... was answered {resp.status}")
            continue
        env = expect_processed(ctx, judge, resp, [sub.content_id])
        status = part_status(env, 0)
        if status in REFUSED:
            judge.note(f"a part under Authorization: {scheme} ... was answered {status}")
            continue
        judge.require(f"{scheme}: part 0 status", status, {200}, "MB-SUB-5")
        seen = read_echo(env.parts[0].body)
        if seen is None:
            judge.not_applicable("the echo resource does not describe the request it received")
        # MB-SUB-5: "A server MUST apply the batch request's `Authorization` and `Cookie`
        # fields to each sub-request whose part carries no field of the same name": whatever
        # its scheme; whether the credential is good is the resource's check (MB-SUB-1).
        judge.expect(
            f"{scheme}: part 0 Authorization", seen.get_all("Authorization"), [[value]], "MB-SUB-5"
        )
        judged += 1
    if not judged:
        judge.not_applicable("the target refused the batch or its part under every scheme")


#: Octets of a Cookie value past US-ASCII, as obs-text (RFC 9110 §5.5) carries them: each a
#: character of ISO-8859-1 here, one octet on the wire. A server that reads the batch's head as
#: text in a charset of its own (UTF-8, ASCII) hands the parts U+FFFD or "?" instead.
OBS_TEXT_COOKIE = "mb-suite-obs=caf\xe9-\xa0-\xff"


@checker(
    "credentials-inherited-octet-for-octet",
    ("MB-SUB-5", "MB-TEST-2"),
    "A Cookie holding octets past US-ASCII (obs-text: 0xE9, 0xA0, 0xFF) that the echo reports octet for octet on a request alone is given, octet for octet, to a part of a batch carrying it that has no Cookie of its own; a Cookie so refused is not judged.",
    state=State.READ_ONLY,
    direct_only=(
        "an intermediary may refuse, drop or rewrite field octets past US-ASCII, which RFC 9110 "
        "§5.5 only recommends treating as opaque, before they reach the server"
    ),
)
def credentials_inherited_octet_for_octet(ctx: Context, judge: Judge) -> None:
    if _configured(ctx, "Cookie") is not None:
        judge.not_applicable("the target needs its own Cookie, which the suite's would replace")
    echo = ctx.path(ctx.resource(judge, "echo"))
    cookie = f"{OBS_TEXT_COOKIE}-{secrets.token_hex(4)}"
    alone = ctx.alone(judge, SubRequest("GET", f"{echo}?mb-alone=obs-text", (("Cookie", cookie),)))
    if alone.status != 200:
        # RFC 9110 §5.5: "a recipient SHOULD treat other allowed octets in field content
        # (i.e., obs-text) as opaque data"; a stack that refuses them is not judged.
        judge.not_applicable(f"a request whose Cookie holds obs-text was answered {alone.status}")
    mine = read_echo(alone.body)
    # MB-TEST-2: "`headers`, the request's header fields ... in the order received", spec
    # 14.4: "Field values map to JSON strings one octet to one character".
    if not judge.expect(
        "Cookie alone, as the echo reports it",
        mine.get_all("Cookie") if mine else None,
        [[cookie]],
        "MB-TEST-2",
    ):
        return
    sub = SubRequest("GET", f"{echo}?mb-inherit=obs-text")
    resp = ctx.batch(judge, [sub], headers=(("Cookie", cookie),))
    if resp.status != 200:
        judge.not_applicable(f"a batch whose Cookie holds obs-text was answered {resp.status}")
    env = expect_processed(ctx, judge, resp, [sub.content_id])
    judge.require("part 0 status", part_status(env, 0), {200}, "MB-SUB-5")
    seen = read_echo(env.parts[0].body)
    if seen is None:
        judge.not_applicable("the echo resource does not describe the request it received")
    # MB-SUB-5: "apply the batch request's `Authorization` and `Cookie` fields to each
    # sub-request whose part carries no field of the same name": the field this server reads,
    # and reports, octet for octet on a request alone.
    judge.expect("part 0 inherited Cookie", seen.get_all("Cookie"), [[cookie]], "MB-SUB-5")


def _reference_forms(ctx: Context, judge: Judge, echo: str) -> list[str]:
    """The echo resource referenced in every form the suite writes: relative, with a dot
    segment, path-absolute, absolute URI, each with a query, through dot segments, and the
    batch's origin in the other spellings MB-SUB-2 makes its own that the server runs alone."""
    full = ctx.path(echo)
    relative = ctx.ref(echo, "relative")
    absolute = ctx.ref(echo, "absolute-uri")
    parent, _, name = full.rpartition("/")
    dotted = f"{parent}/./mb-suite-dot/../{name}"
    origin = absolute[: len(absolute) - len(full)]
    refs = [
        relative,
        f"./{relative}",
        full,
        absolute,
        f"{relative}?mb-ref=relative",
        f"{full}?mb-ref=path",
        f"{absolute}?mb-ref=uri",
        dotted,
        f"{origin}{dotted}",
    ]
    for spelled in origin_spellings(ctx):
        probe = ctx.batch(judge, [SubRequest("GET", f"{spelled}{full}")])
        judge.note(f"<{spelled}{full}> alone: {probe.status}")
        if probe.status == 200:
            refs.append(f"{spelled}{full}")
    return refs


@checker(
    "credentials-inherited-every-reference-form",
    ("MB-SUB-5",),
    "A part addressing the echo resource by a relative reference, a dot segment, a path, an absolute URI (also on the batch's origin spelled otherwise), each with and without a query, sees the batch's Authorization and Cookie when it carries none, and only its own when it carries one, in every declared form and mode.",
    state=State.READ_ONLY,
)
def credentials_inherited_every_reference_form(ctx: Context, judge: Judge) -> None:
    echo = ctx.resource(judge, "echo")
    refs = _reference_forms(ctx, judge, echo)
    nonce = secrets.token_hex(6)
    outer_auth = _configured(ctx, "Authorization") or f"Bearer mb-suite-outer-{nonce}"
    outer_cookie = _configured(ctx, "Cookie") or f"mb-suite-outer={nonce}"
    own_auth, own_cookie = f"Bearer mb-suite-part-{nonce}", f"mb-suite-part={nonce}"
    subs: list[SubRequest] = []
    wanted: list[tuple[list[str], list[str]]] = []
    for ref in refs:
        subs.append(SubRequest("GET", ref))
        wanted.append(([outer_auth], [outer_cookie]))
        if not ctx.target.credentials:
            # A part's own field replaces the batch's, whatever form its target takes.
            subs.append(SubRequest("GET", ref, (("Authorization", own_auth),)))
            wanted.append(([own_auth], [outer_cookie]))
            subs.append(SubRequest("GET", ref, (("Cookie", own_cookie),)))
            wanted.append(([outer_auth], [own_cookie]))
    outer = (("Authorization", outer_auth), ("Cookie", outer_cookie))
    modes: list[tuple[str, tuple[tuple[str, str], ...]]] = [("", ())]
    if ctx.target.claims("atomic"):
        modes.append((", Batch-Mode: atomic", (("Batch-Mode", "atomic"),)))
    for label, fields in modes:
        for media, _, entries in answers_in_every_form(ctx, judge, subs, (*outer, *fields)):
            for i, (sub, (auth, cookie)) in enumerate(zip(subs, wanted, strict=True)):
                what = f"{media}{label}: part {i} <{sub.target}>"
                if sub.headers:
                    what += f" with its own {sub.headers[0][0]}"
                judge.require(f"{what} status", entries[i].status, {200}, "MB-SUB-5")
                seen = read_echo(entries[i].body)
                if seen is None:
                    judge.not_applicable(
                        "the echo resource does not describe the request it received"
                    )
                # MB-SUB-5: "apply the batch request's `Authorization` and `Cookie` fields to
                # each sub-request whose part carries no field of the same name, and ... use
                # a part's own `Authorization` or `Cookie` instead of the batch request's":
                # no reference form, relative or absolute, is an exception.
                judge.expect(
                    f"{what} Authorization", seen.get_all("Authorization"), [auth], "MB-SUB-5"
                )
                judge.expect(f"{what} Cookie", seen.get_all("Cookie"), [cookie], "MB-SUB-5")


#: Each method a part may carry that the echo answers with 200 (MB-TEST-2: "every request to
#: that resource whose method a sub-request may carry, other than `HEAD`"), with content where
#: the method usually has it.
EVERY_METHOD = (
    ("GET", b""),
    ("POST", b"mb credential content"),
    ("PUT", b"mb credential content"),
    ("PATCH", b"mb credential content"),
    ("DELETE", b""),
    ("OPTIONS", b""),
)
#: Statuses a resource answers a request it takes for unauthenticated or forbidden with: a
#: server may take them for a reason to stop handing the batch's credentials on.
REFUSALS = (401, 403)


@checker(
    "credentials-inherited-every-method-and-after-refusals",
    ("MB-SUB-5",),
    "The batch request's Authorization and Cookie reach echo parts of every method the echo answers (GET, POST, PUT, PATCH, DELETE, OPTIONS) that carry neither field, and echo parts after parts the status resource answers 401 and 403.",
    state=State.READ_ONLY,
)
def credentials_inherited_every_method_and_after_refusals(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    nonce = secrets.token_hex(6)
    auth = _configured(ctx, "Authorization") or f"Bearer mb-suite-method-{nonce}"
    cookie = _configured(ctx, "Cookie") or f"mb-suite-method={nonce}"
    judged: list[tuple[int, str]] = []
    subs: list[SubRequest] = []
    for method, content in EVERY_METHOD:
        fields = (("Content-Type", "text/plain"),) if content else ()
        judged.append((len(subs), method))
        subs.append(SubRequest(method, f"{echo}?mb-method={method}", fields, content))
    template = ctx.target.resource("status")
    if template:
        for code in REFUSALS:
            subs.append(SubRequest("GET", ctx.path(template.replace("{code}", str(code)))))
            judged.append((len(subs), f"GET after a part answered {code}"))
            subs.append(SubRequest("GET", f"{echo}?mb-after={code}"))
    resp = ctx.batch(judge, subs, headers=(("Authorization", auth), ("Cookie", cookie)))
    env = expect_processed(ctx, judge, resp, [s.content_id for s in subs])
    for i, label in judged:
        judge.require(f"part {i} ({label}) status", part_status(env, i), {200}, "MB-SUB-5")
        seen = read_echo(env.parts[i].body)
        if seen is None:
            judge.not_applicable("the echo resource does not describe the request it received")
        # MB-SUB-5: "A server MUST apply the batch request's `Authorization` and `Cookie`
        # fields to each sub-request whose part carries no field of the same name": whatever
        # the part's method, and whatever an earlier part was answered.
        judge.expect(
            f"part {i} ({label}) Authorization", seen.get_all("Authorization"), [[auth]], "MB-SUB-5"
        )
        judge.expect(f"part {i} ({label}) Cookie", seen.get_all("Cookie"), [[cookie]], "MB-SUB-5")
