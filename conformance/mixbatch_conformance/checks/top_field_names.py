"""The batch request's own fields with their names in another case (RFC 9110 §5.1).

Theory of operation: field names are case-insensitive (RFC 9110 §5.1: "Field names are
case-insensitive"), and the suite's client writes each name exactly as given, so a batch
request can carry `content-type`, `ACCEPT` or `bAtCh-MoDe`. A server that looks the batch's
fields up by the name as written misses them, and each miss breaks the requirement the field
serves, which is the one each case cites:

| Field | What the server must do with it | Requirement |
|---|---|---|
| `Content-Type` | read the batch as multipart/mixed, not answer 415 | MB-WIRE-2 |
| `Accept` | answer 406 to an Accept that admits no batch form; choose a 207 form it names | MB-STATUS-9, MB-MULTI-1 |
| `Batch-Mode` | answer 501 to a mode it does not implement | MB-PROC-17 |
| `Prefer` | stop after the first failing part under `batch-on-error=stop` (error-policy) | MB-PROC-6 |
| `Authorization`, `Cookie` | apply them to a part without its own (the echo shows them) | MB-SUB-5 |

Each field is sent in lower case, upper case and alternating case, one batch each. A case is
left out where the target cannot show it: the 207 forms it does not claim, `Prefer` without the
error-policy profile, the credentials without an echo or when the target needs its own.
"""

from __future__ import annotations

import secrets

from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.checks._shared.spellings import spellings
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.echo import read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, expect_rejected
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

BOUNDARY = "mb-names-5c0e93a7b14d28f6"
#: A Batch-Mode value no server implements (MB-PROC-17 answers it 501).
NO_SUCH_MODE = "mb-suite-no-such-mode"
#: The 207 forms a target may claim, by profile.
FORMS = {"json": "application/vnd.mixbatch.multistatus+json", "xml": "application/xml"}


def _post(
    ctx: Context,
    judge: Judge,
    subs: list[SubRequest],
    fields: list[tuple[str, str]],
    content_type: str = "Content-Type",
) -> Response:
    head = [(content_type, f"multipart/mixed; boundary={BOUNDARY}"), *fields]
    body = compose_batch(subs, BOUNDARY)
    return ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body))


@checker(
    "top-level-field-names-any-case",
    ("MB-WIRE-2", "MB-STATUS-9", "MB-MULTI-1", "MB-PROC-17", "MB-PROC-6", "MB-SUB-5"),
    "The batch request's Content-Type, Accept, Batch-Mode, Prefer, Authorization and Cookie, each named in lower, upper or alternating case, are read as the same fields: the batch is multipart, Accept chooses the form or 406, an unknown mode is 501, stop stops, and the credentials reach a part.",
    state=State.READ_ONLY,
)
def top_level_field_names_any_case(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    for spelled in spellings("Content-Type"):
        resp = _post(ctx, judge, [ok], [], spelled)
        judge.note(f"Content-Type named {spelled!r}: {resp.status}")
        # MB-WIRE-2 answers 415 only to a batch "whose media type is not `multipart/mixed`";
        # this one's is, under a name in another case.
        judge.expect(f"status, Content-Type named {spelled!r}", resp.status, {200}, "MB-WIRE-2")
        if resp.status == 200:
            expect_processed(ctx, judge, resp, [ok.content_id], (), "MB-WIRE-2")
    for spelled in spellings("Accept"):
        resp = _post(ctx, judge, [ok], [(spelled, "text/html")])
        # MB-STATUS-9: "MUST answer 406 ... a batch request whose `Accept` field admits none of
        # the batch representations".
        expect_rejected(judge, resp, {406}, "MB-STATUS-9")
        for profile, media in FORMS.items():
            if not ctx.target.claims(profile):
                continue
            resp = _post(ctx, judge, [ok], [(spelled, media)])
            # MB-MULTI-1: "choose the representation of a batch result by the request's
            # `Accept` field".
            judge.expect(
                f"media type, Accept named {spelled!r} asking for {media}",
                resp.media_type,
                {media},
                "MB-MULTI-1",
            )
    for spelled in spellings("Batch-Mode"):
        resp = _post(ctx, judge, [ok], [(spelled, NO_SUCH_MODE)])
        # MB-PROC-17: "MUST answer 501 (Not Implemented), before any part runs, a batch request
        # that lists a mode it does not implement".
        expect_rejected(judge, resp, {501}, "MB-PROC-17")
    if ctx.target.claims("error-policy"):
        _prefer(ctx, judge, [ok, nf, ok])
    if ctx.target.resource("echo") and not ctx.target.credentials:
        _credentials(ctx, judge)


def _prefer(ctx: Context, judge: Judge, subs: list[SubRequest]) -> None:
    for spelled in spellings("Prefer"):
        resp = _post(ctx, judge, subs, [(spelled, "batch-on-error=stop")])
        env = expect_processed(ctx, judge, resp, [s.content_id for s in subs], (), "MB-PROC-6")
        # MB-PROC-6: "receives `Prefer: batch-on-error=stop` MUST answer every part after the
        # first failing part with `Batch-Outcome: skipped`".
        judge.expect(
            f"part 2's Batch-Outcome, Prefer named {spelled!r}",
            env.parts[2].get("Batch-Outcome"),
            {"skipped"},
            "MB-PROC-6",
        )


def _credentials(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    for i, (auth, cookie) in enumerate(
        zip(spellings("Authorization"), spellings("Cookie"), strict=True)
    ):
        nonce = secrets.token_hex(6)
        outer = [(auth, f"Bearer mb-suite-outer-{nonce}"), (cookie, f"mb-outer={nonce}")]
        sub = SubRequest("GET", f"{echo}?mb-outer-spelling={i}")
        resp = _post(ctx, judge, [sub], outer)
        env = expect_processed(ctx, judge, resp, [sub.content_id], (), "MB-SUB-5")
        seen = read_echo(env.parts[0].body)
        if seen is None:
            judge.not_applicable("the echo resource does not describe the request it received")
        # MB-SUB-5: "MUST apply the batch request's `Authorization` and `Cookie` fields to each
        # sub-request whose part carries no field of the same name".
        for name, value in (("Authorization", outer[0][1]), ("Cookie", outer[1][1])):
            judge.expect(
                f"{name} received, the batch's named {auth if name == 'Authorization' else cookie!r}",
                seen.get_all(name),
                [[value]],
                "MB-SUB-5",
            )
