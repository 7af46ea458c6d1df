"""Inherited credentials when the part spells the field in another case (spec 3.2.5, MB-SUB-5).

Theory of operation: MB-SUB-5 makes "a part's own field replace the outer one", and field
names are case-insensitive (RFC 9110 §5.1), so a part's `authorization` or `COOKIE` is its own
Authorization or Cookie. A server that looks the name up case-sensitively applies the batch's
credential as well, and the resource then sees two. The echo resource shows which credential
each sub-request received. A part's own field with an empty or blank value is still its own
(`credentials-empty-still-own`): the batch's value of that field must not reach the part.
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


#: Part fields present with no value to speak of: empty, or optional whitespace only (RFC 9110
#: §5.5 strips it), for each inherited name alone and both together.
EMPTY_OWN = (
    (("Authorization", ""),),
    (("Cookie", ""),),
    (("Authorization", " "), ("Cookie", "\t")),
    (("authorization", ""), ("COOKIE", "")),
)


@checker(
    "credentials-empty-still-own",
    ("MB-SUB-5", "MB-TEST-2"),
    "A part's own Authorization or Cookie with an empty value is still its own: the batch's value of that field does not reach the part.",
    state=State.READ_ONLY,
)
def credentials_empty_still_own(ctx: Context, judge: Judge) -> None:
    if ctx.target.credentials:
        judge.not_applicable("the target needs its own credentials, which the parts would replace")
    echo = ctx.path(ctx.resource(judge, "echo"))
    nonce = secrets.token_hex(6)
    outer_auth, outer_cookie = f"Bearer mb-suite-outer-{nonce}", f"mb-outer={nonce}"
    outer = (("Authorization", outer_auth), ("Cookie", outer_cookie))
    subs = [SubRequest("GET", f"{echo}?mb-empty={i}", own) for i, own in enumerate(EMPTY_OWN)]
    env = expect_processed(
        ctx, judge, ctx.batch(judge, subs, headers=outer), [s.content_id for s in subs]
    )
    observed = 0
    for i, sub in enumerate(subs):
        if part_status(env, i) != 200:
            # A resource may refuse an empty credential; it then shows nothing it received.
            continue
        seen = read_echo(env.parts[i].body)
        if seen is None:
            judge.not_applicable("the echo resource does not describe the request it received")
        observed += 1
        own = {n.lower() for n, _ in sub.headers}
        for name, value in (("authorization", outer_auth), ("cookie", outer_cookie)):
            got = [v.strip() for v in seen.get_all(name)]
            # MB-SUB-5: "a part's own field replaces the outer one": present with an empty
            # value it is still the part's own, so the batch's value is not applied; a field
            # the part does not carry is the batch's.
            judge.expect_true(
                f"part {i} {name}",
                value not in got if name in own else got == [value],
                repr(got),
                "no outer value" if name in own else repr([value]),
                "MB-SUB-5",
            )
            if name not in own:
                # MB-TEST-2: the echo lists "the request's header fields": an inherited field
                # missing from its description was not passed on (MB-SUB-5) or was left out
                # of it (MB-TEST-2); the suite cannot tell which.
                judge.expect(
                    f"part {i} inherited {name} in the echo's headers (missing: not passed "
                    "on, MB-SUB-5, or left out of the description, MB-TEST-2)",
                    got,
                    [[value]],
                    "MB-TEST-2",
                )
    if not observed:
        judge.not_applicable("the echo refused every part carrying an empty credential")
