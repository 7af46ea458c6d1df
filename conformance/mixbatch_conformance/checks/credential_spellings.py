"""Inherited credentials when the part spells the field in another case (spec 3.2.5, MB-SUB-5).

Theory of operation: MB-SUB-5 makes "a part's own field replace the outer one", and field
names are case-insensitive (RFC 9110 §5.1), so a part's `authorization` or `COOKIE` is its own
Authorization or Cookie. A server that looks the name up case-sensitively applies the batch's
credential as well, and the resource then sees two. The echo resource shows which credential
each sub-request received.
"""

from __future__ import annotations

import secrets

from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.echo import read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

#: Spellings of the two inherited field names a part may use.
SPELLINGS = (("authorization", "cookie"), ("AUTHORIZATION", "COOKIE"), ("AuThOrIzAtIoN", "cOoKiE"))


@checker(
    "credentials-any-case",
    ("MB-SUB-5",),
    "A part's own Authorization or Cookie replaces the batch's whatever the case of its name.",
    state=State.READ_ONLY,
)
def credentials_any_case(ctx: Context, judge: Judge) -> None:
    if ctx.target.credentials:
        judge.not_applicable("the target needs its own credentials, which the parts would replace")
    echo = ctx.path(ctx.resource(judge, "echo"))
    nonce = secrets.token_hex(6)
    outer = (("Authorization", f"Bearer mb-suite-outer-{nonce}"), ("Cookie", f"mb-outer={nonce}"))
    subs = [
        SubRequest(
            "GET",
            f"{echo}?mb-spelling={i}",
            ((auth, f"Bearer mb-suite-part-{i}-{nonce}"), (cookie, f"mb-part={i}-{nonce}")),
        )
        for i, (auth, cookie) in enumerate(SPELLINGS)
    ]
    env = expect_processed(
        ctx, judge, ctx.batch(judge, subs, headers=outer), [s.content_id for s in subs]
    )
    for i, sub in enumerate(subs):
        judge.require(f"part {i} status", part_status(env, i), {200})
        seen = read_echo(env.parts[i].body)
        if seen is None:
            judge.not_applicable("the echo resource does not describe the request it received")
        own_auth, own_cookie = sub.headers[0][1], sub.headers[1][1]
        judge.expect(f"part {i} Authorization", seen.get_all("Authorization"), [[own_auth]])
        judge.expect(f"part {i} Cookie", seen.get_all("Cookie"), [[own_cookie]])
