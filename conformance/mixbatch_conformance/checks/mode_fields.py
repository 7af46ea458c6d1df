"""What a sub-request receives of the batch request under each mode (spec 8.2): the credentials,
and nothing else, whether the batch runs plain, under stop or atomic, and whatever the part's
method.

Theory of operation: MB-SUB-5 and MB-SUB-6 say what a sub-request gets of the batch request,
and say it of every sub-request: the batch's `Authorization` and `Cookie` when the part has none
of its own, no other field. The other checks of these requirements send GET parts in a plain
batch; a server that builds sub-requests on another path when the batch asks for the stop
policy or the atomic mode (a transaction, a loop of its own), or for a write rather than a
read, can get them wrong there alone. The check sends, in a batch with no mode, under
`Prefer: batch-on-error=stop` when the target offers the error-policy profile and under
`Batch-Mode: atomic` when it offers the atomic profile, four parts to the echo resource: a GET
with no credentials of its own, a POST with its own Authorization, a PUT with its own Cookie
and a DELETE with neither. The batch carries an Authorization, two Cookie lines and ordinary
fields (a language, a trace context, a request id, caching, an extension field). Each part
must see the batch's credentials unless it has its own, and none of the other fields, nor the
batch's own Content-Type, Prefer or Batch-Mode. It writes nothing: the echo keeps no state.
"""

from __future__ import annotations

import secrets

from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.echo import read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

#: Ordinary fields of the batch request, each with a value no server makes up.
ORDINARY = (
    ("Accept-Language", "x-mb-mode-probe"),
    ("Traceparent", "00-5cf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
    ("X-Request-Id", "mb-mode-probe"),
    ("Cache-Control", "no-cache"),
    ("X-Mb-Mode-Probe", "mb-mode-probe"),
)
#: Statuses a server that checks credentials may give a part carrying the suite's own token.
REFUSED = {401, 403}


def _configured(ctx: Context, name: str) -> str | None:
    for n, v in ctx.target.credentials:
        if n.lower() == name.lower():
            return v
    return None


def _modes(ctx: Context) -> list[tuple[str, tuple[tuple[str, str], ...]]]:
    out: list[tuple[str, tuple[tuple[str, str], ...]]] = [("no mode", ())]
    if ctx.target.claims("error-policy"):
        out.append(("Prefer: batch-on-error=stop", (("Prefer", "batch-on-error=stop"),)))
    if ctx.target.claims("atomic"):
        out.append(("Batch-Mode: atomic", (("Batch-Mode", "atomic"),)))
    return out


@checker(
    "subrequest-fields-in-every-mode",
    ("MB-SUB-5", "MB-SUB-6"),
    "In a batch with no mode, under batch-on-error=stop and in an atomic batch, GET, POST, PUT and DELETE parts each see the batch's Authorization and Cookie unless they carry their own, and none of its other fields.",
    state=State.READ_ONLY,
)
def subrequest_fields_in_every_mode(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    for mode, fields in _modes(ctx):
        _one_mode(ctx, judge, echo, mode, fields)


def _one_mode(
    ctx: Context, judge: Judge, echo: str, mode: str, mode_fields: tuple[tuple[str, str], ...]
) -> None:
    nonce = secrets.token_hex(6)
    outer_auth = _configured(ctx, "Authorization") or f"Bearer mb-suite-outer-{nonce}"
    outer_cookies = [
        _configured(ctx, "Cookie") or f"mb-suite-outer={nonce}",
        f"mb-suite-outer-2={nonce}",
    ]
    own_auth = f"Bearer mb-suite-part-{nonce}"
    own_cookie = f"mb-suite-part={nonce}"
    text = ("Content-Type", "text/plain")
    subs = [
        SubRequest("GET", f"{echo}?mb-mode=get-inherits"),
        SubRequest(
            "POST", f"{echo}?mb-mode=post-own-auth", (("Authorization", own_auth), text), b"mb"
        ),
        SubRequest("PUT", f"{echo}?mb-mode=put-own-cookie", (("Cookie", own_cookie), text), b"mb"),
        SubRequest("DELETE", f"{echo}?mb-mode=delete-inherits"),
    ]
    wanted = [
        ([outer_auth], outer_cookies),
        ([own_auth], outer_cookies),
        ([outer_auth], [own_cookie]),
        ([outer_auth], outer_cookies),
    ]
    outer = (
        ("Authorization", outer_auth),
        *(("Cookie", c) for c in outer_cookies),
        *ORDINARY,
        *mode_fields,
    )
    judge.note(f"a batch with {mode}")
    resp = ctx.batch(judge, subs, headers=outer)
    env = expect_processed(ctx, judge, resp, [s.content_id for s in subs])
    for i, (sub, (auth, cookie)) in enumerate(zip(subs, wanted, strict=True)):
        label = f"{mode}: part {i} ({sub.method})"
        status = part_status(env, i)
        if i in (1, 2) and status in REFUSED and ctx.target.credentials:
            judge.not_applicable(
                f"the target refuses a part carrying the suite's own credentials ({status}), "
                "so a replaced credential cannot be observed"
            )
        # MB-TEST-2: the echo answers every method a sub-request may carry, HEAD aside, with 200.
        judge.require(f"{label} status", status, {200}, "MB-SUB-5")
        seen = read_echo(env.parts[i].body)
        if seen is None:
            judge.not_applicable(
                "the echo resource does not describe the request as JSON with method, target "
                "and headers, so the suite cannot see the sub-request's fields"
            )
        # MB-SUB-5: "MUST apply the batch request's `Authorization` and `Cookie` fields to each
        # sub-request whose part carries no field of the same name, and MUST use a part's own
        # `Authorization` or `Cookie` instead of the batch request's when the part has one".
        judge.expect(f"{label} Authorization", seen.get_all("Authorization"), [auth], "MB-SUB-5")
        judge.expect(f"{label} Cookie", seen.get_all("Cookie"), [cookie], "MB-SUB-5")
        own = {n.lower() for n, _ in sub.headers}
        for name, value in (*ORDINARY, *mode_fields):
            # MB-SUB-6: "MUST NOT apply any other header field of the batch request to a
            # sub-request": the batch's Prefer and Batch-Mode describe the batch, not a part.
            got = [v for v in seen.get_all(name) if name.lower() not in own or v == value]
            judge.expect(f"{label} received {name}", got, [[]], "MB-SUB-6")
        ctypes = [v for v in seen.get_all("Content-Type") if "multipart" in v.lower()]
        # MB-SUB-6 (spec 8.2: "the batch request's `Content-Type` ... would be wrong in every
        # part"): no part receives the batch's multipart type.
        judge.expect(f"{label} received the batch's Content-Type", ctypes, [[]], "MB-SUB-6")
