"""The continue policy holds whatever else the request says (spec 7.4).

Theory of operation: MB-PROC-5 makes continue the policy "without a preference": only a
`batch-on-error` preference the server honours changes it. So no other input may make a
server skip a part, and each check here sends the inputs a server might mistake for one:

- `continue-whatever-other-preferences`: every RFC 7240 preference that is not
  batch-on-error (handling=strict and lenient, return=minimal and representation,
  respond-async, wait, unknown ones, names that begin or end like batch-on-error or miss it
  by a letter or a character), alone and
  together, and batch-on-error written as a parameter of another preference or inside a
  quoted value, also after a quoted-pair `\\"` that does not end it (RFC 7240 §2 grammar,
  RFC 9110 §5.6.4: neither is a batch-on-error preference), over batches
  whose first part fails, whose failing parts are 4xx and 5xx, and whose later part targets
  what an earlier failing part targeted; in every form the target declares.
  Every part is answered with the status it gets alone (MB-TEST-1, MB-TEST-6) and no outcome,
  and Preference-Applied names no stop;
- `continue-whatever-parts-prefer`: `Prefer: batch-on-error=stop` written inside a part is a
  field of that part's sub-request, not the batch's preference, in the failing part or after it,
  and reaches the `echo` as the same request alone does (MB-PART-8);
- `continue-after-failed-write`: a DELETE of a sandbox member that does not exist fails; the
  GET and the second DELETE of the same target after it, and a GET of `ok`, still run
  and are answered as each is alone (same status, no outcome), in every form. A server that
  skips parts "depending on" a failed write is caught.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator

from mixbatch_conformance.checks._shared.alone import expect_parts_as_alone
from mixbatch_conformance.checks._shared.collections import created_path
from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import Entry, answers_in_every_form
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

#: Prefer field lines that hold no batch-on-error preference: RFC 7240's own preferences, in
#: each of their values, unknown ones, names that only look like batch-on-error, and several
#: of them on one field line and on two.
OTHER_PREFERENCES: tuple[tuple[str, ...], ...] = (
    ("handling=strict",),
    ("handling=lenient",),
    ("return=minimal",),
    ("return=representation",),
    ("respond-async",),
    ("wait=5",),
    ("mb-suite-unknown=stop",),
    ("stop",),
    ("batch-on-error-mb-suite=stop",),
    ("mb-suite-batch-on-error=stop",),
    ("batch-on-erro=stop",),
    ("batch_on_error=stop",),
    ("handling=strict, return=minimal, respond-async, wait=1",),
    ("handling=strict", "return=minimal; mb-suite=stop"),
    # RFC 7240 §2: `preference = token [ BWS "=" BWS word ] *( OWS ";" [ OWS parameter ] )`,
    # preferences separated by commas: batch-on-error as a parameter of another preference,
    # or inside a quoted-string value, is no batch-on-error preference.
    ("respond-async; batch-on-error=stop",),
    ("handling=lenient; batch-on-error=stop",),
    ("return=minimal;batch-on-error=stop, wait=5",),
    ('respond-async; batch-on-error="stop"',),
    ("wait=5", "respond-async; batch-on-error=stop"),
    ('mb-suite="batch-on-error=stop"',),
    ('mb-suite="x, batch-on-error=stop"',),
    ('mb-suite="a, batch-on-error=stop, b"',),
    ('mb-suite="a; batch-on-error=stop"',),
    ('return=minimal; mb-suite="batch-on-error=stop"',),
    # RFC 9110 §5.6.4: a quoted-pair `\"` does not end the quoted-string, so what follows it
    # up to the unescaped quote is still text.
    ('mb-suite="a\\"b, batch-on-error=stop"',),
    ('mb-suite="a\\", batch-on-error=stop, b=\\"c"',),
    ('return=minimal; mb-suite="a\\"; batch-on-error=stop"',),
)


def _status(ctx: Context, judge: Judge, code: int) -> SubRequest:
    """A GET of the target's status resource for `code` (MB-TEST-6)."""
    template = ctx.resource(judge, "status")
    return SubRequest("GET", ctx.path(template.replace("{code}", str(code))))


def _applied_stop(resp: Response) -> bool:
    applied = ",".join(resp.get_all("Preference-Applied")).replace(" ", "").lower()
    return "batch-on-error=stop" in applied.split(",")


@checker(
    "continue-whatever-other-preferences",
    ("MB-PROC-5",),
    "Preferences other than batch-on-error (handling, return, respond-async, wait, unknown ones, look-alike names, batch-on-error=stop as another preference's parameter or inside its quoted value), alone or together, leave the continue policy: every part runs with the status it gets alone (ok with its content whole), after a failing first part, 4xx and 5xx parts and a failing earlier part of the same target, in every declared form.",
    state=State.READ_ONLY,
)
def continue_whatever_other_preferences(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    # MB-TEST-1 fixes 200 for ok and 404 for not_found; MB-TEST-6 the status resource's code.
    batches: list[tuple[list[SubRequest], tuple[int, ...]]] = [
        ([nf, ok, nf, ok], (404, 200, 404, 200))
    ]
    if ctx.target.resource("status"):
        batches.append(
            ([_status(ctx, judge, 500), ok, _status(ctx, judge, 400), ok], (500, 200, 400, 200))
        )
    ok_content = ctx.alone(judge, ok).body
    for lines in OTHER_PREFERENCES:
        prefer = tuple(("Prefer", v) for v in lines)
        for subs, wants in batches:
            for media, resp, entries in answers_in_every_form(ctx, judge, subs, prefer):
                what = f"{media} with Prefer {lines!r}"
                # MB-PROC-5: "Without a preference, the error policy is continue: every part
                # runs whatever earlier parts returned"; a preference that is not
                # batch-on-error is no such preference.
                for i, want in enumerate(wants):
                    judge.expect(
                        f"{what}: part {i} outcome", entries[i].outcome, {None}, "MB-PROC-5"
                    )
                    judge.expect(f"{what}: part {i} status", entries[i].status, {want}, "MB-PROC-5")
                    if subs[i] is ok:
                        # MB-SUB-6: the batch's Prefer is none of the sub-request's fields,
                        # so return=minimal and the rest leave its content whole; MB-RESP-4:
                        # the part carries "the sub-response's ... content".
                        judge.expect(
                            f"{what}: part {i} content as alone",
                            entries[i].body,
                            {ok_content},
                            "MB-RESP-4",
                        )
                judge.expect_true(
                    f"{what}: Preference-Applied",
                    not _applied_stop(resp),
                    repr(resp.get_all("Preference-Applied")),
                    "no batch-on-error=stop",
                    "MB-PROC-5",
                )


@checker(
    "continue-whatever-parts-prefer",
    ("MB-PROC-5", "MB-PART-8"),
    "A Prefer: batch-on-error=stop field inside parts is a sub-request field, not the batch's preference: every part runs with the status it gets alone, in every declared form, and the echo receives it as alone.",
    state=State.READ_ONLY,
)
def continue_whatever_parts_prefer(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    asked = (("Prefer", "batch-on-error=stop"),)
    # In the failing part, in the part after it, and in both: each a field of its own
    # sub-request (MB-PART-8), which spec 7.4's preference, a field of the batch request, is not.
    cases = [
        [SubRequest("GET", nf.target, asked), ok],
        [nf, SubRequest("GET", ok.target, asked)],
        [SubRequest("GET", nf.target, asked), SubRequest("GET", ok.target, asked)],
    ]
    for subs in cases:
        for media, resp, entries in answers_in_every_form(ctx, judge, subs):
            where = [i for i, sub in enumerate(subs) if sub.headers]
            what = f"{media} with Prefer in part(s) {where}"
            # MB-PROC-5: "Without a preference, the error policy is continue: every part runs
            # whatever earlier parts returned"; MB-TEST-1 fixes 404 and 200.
            for i, want in enumerate((404, 200)):
                judge.expect(f"{what}: part {i} outcome", entries[i].outcome, {None}, "MB-PROC-5")
                judge.expect(f"{what}: part {i} status", entries[i].status, {want}, "MB-PROC-5")
            judge.expect_true(
                f"{what}: Preference-Applied",
                not _applied_stop(resp),
                repr(resp.get_all("Preference-Applied")),
                "no batch-on-error=stop",
                "MB-PROC-5",
            )
    echo = ctx.target.resource("echo")
    if echo:
        # MB-PART-8: "The part's other header fields are the sub-request's header fields": the
        # echo, after a failing part, receives the part's Prefer as the same request alone does.
        subs = [SubRequest("GET", nf.target, asked), SubRequest("GET", ctx.path(echo), asked)]
        expect_parts_as_alone(ctx, judge, subs)


@checker(
    "continue-after-failed-write",
    ("MB-PROC-5",),
    "After a DELETE of a sandbox member that does not exist fails, later parts of the same target (GET, DELETE) and of another run and are answered as each is alone, in every declared form.",
    state=State.WRITES_IN_SANDBOX,
)
def continue_after_failed_write(ctx: Context, judge: Judge) -> None:
    ok, _ = ok_and_not_found(ctx, judge)
    coll = ctx.path(ctx.resource(judge, "sandbox_collection")).rstrip("/")
    member = f"{coll}/mb-suite-absent-{secrets.token_hex(6)}"
    delete = SubRequest("DELETE", member)
    get = SubRequest("GET", member)
    failed = ctx.alone(judge, delete)
    if failed.status < 400:
        judge.not_applicable(f"DELETE of an absent sandbox member answered {failed.status} alone")
    absent = ctx.alone(judge, get)
    if absent.status < 400:
        # The spec fixes no answer to a GET of a member that does not exist (MB-TEST-3 names
        # the GET of a member only), so a sandbox that answers it 2xx gives no failing part.
        judge.not_applicable(f"GET of an absent sandbox member answered {absent.status} alone")
    subs = [delete, get, delete, ok]
    wants = (failed.status, absent.status, failed.status, 200)
    for media, _, entries in answers_in_every_form(ctx, judge, subs):
        for i, want in enumerate(wants):
            what = f"{media} part {i} ({subs[i].method} {subs[i].target})"
            # MB-PROC-5: "every part runs whatever earlier parts returned": a part whose
            # target an earlier failing write named is no exception.
            judge.expect(f"{what} outcome", entries[i].outcome, {None}, "MB-PROC-5")
            judge.expect(f"{what} status", entries[i].status, {want}, "MB-PROC-5")


#: Failing statuses of the status resource (MB-TEST-6: every code 200-599 is answered with that
#: status), across both classes: those a server might take for the batch's credentials or
#: request being unfit (401, 403, 407, 431, 511), for a conflict or a precondition that later
#: parts would meet too (409, 412, 428), for the server being unable to go on (5xx), and the
#: edges of each class.
FAILING_CODES: tuple[int, ...] = (
    400,
    401,
    403,
    404,
    405,
    407,
    408,
    409,
    410,
    412,
    413,
    415,
    422,
    428,
    429,
    431,
    451,
    499,
    500,
    501,
    502,
    503,
    504,
    505,
    511,
    599,
)
#: Failing parts per batch: each followed by a part that must run, so each is judged alone.
GROUP = 5
#: Prefer values that leave the continue policy: none, and continue asked for.
CONTINUE_ASKED: tuple[tuple[tuple[str, str], ...], ...] = (
    (),
    (("Prefer", "batch-on-error=continue"),),
)


def _produced(ctx: Context, judge: Judge) -> list[int]:
    """The FAILING_CODES the status resource answers with that code when its GET is sent alone
    (a code refused alone shows nothing about a batch, so it is noted and left out)."""
    out = []
    for code in FAILING_CODES:
        alone = ctx.alone(judge, _status(ctx, judge, code)).status
        if alone == code:
            out.append(code)
        else:
            judge.note(f"GET of the status resource for {code} alone answered {alone}")
    if not out:
        judge.not_applicable("the status resource produced none of the failing codes alone")
    return out


@checker(
    "continue-after-every-failing-status",
    ("MB-PROC-5",),
    "Without a preference and with batch-on-error=continue, a part answered any failing status (4xx and 5xx, 401, 403, 407, 409, 412, 429, 431, 451, 511 among them) is followed by parts that run and are answered 200, in every declared form.",
    state=State.READ_ONLY,
)
def continue_after_every_failing_status(ctx: Context, judge: Judge) -> None:
    ok, _ = ok_and_not_found(ctx, judge)
    ctx.resource(judge, "status")
    for media, asked, resp, entries, wants in _after_each_failure(ctx, judge, ok, 200):
        for i, want in enumerate(wants):
            what = f"{media}{asked}: part {i} ({'after ' + str(wants[i - 1]) if i % 2 else want})"
            # MB-PROC-5: "Without a preference, the error policy is continue: every part runs
            # whatever earlier parts returned": no failing status, whatever it says of the
            # request or the server, ends the batch.
            judge.expect(f"{what} outcome", entries[i].outcome, {None}, "MB-PROC-5")
            judge.expect(f"{what} status", entries[i].status, {want}, "MB-PROC-5")
        judge.expect_true(
            f"{media}{asked}: Preference-Applied",
            not _applied_stop(resp),
            repr(resp.get_all("Preference-Applied")),
            "no batch-on-error=stop",
            "MB-PROC-5",
        )


def _after_each_failure(
    ctx: Context, judge: Judge, follower: SubRequest, follower_status: int
) -> Iterator[tuple[str, str, Response, list[Entry], list[int]]]:
    """Batches of parts answered each failing code the status resource produces, each failing
    part followed by `follower`, sent without Prefer and with batch-on-error=continue in every
    declared form: yields the form, a phrase naming the Prefer sent, the response, its entries
    and the status each part wants."""
    codes = _produced(ctx, judge)
    for start in range(0, len(codes), GROUP):
        subs: list[SubRequest] = []
        wants: list[int] = []
        for code in codes[start : start + GROUP]:
            subs += [_status(ctx, judge, code), follower]
            wants += [code, follower_status]
        for prefer in CONTINUE_ASKED:
            asked = f" with Prefer {prefer[0][1]!r}" if prefer else " without Prefer"
            for media, resp, entries in answers_in_every_form(ctx, judge, subs, prefer):
                yield media, asked, resp, entries, wants


@checker(
    "continue-write-after-every-failing-status",
    ("MB-PROC-5", "MB-TEST-3"),
    "Without a preference and with batch-on-error=continue, a POST to the sandbox collection after a part answered any failing status (4xx and 5xx) runs and creates its member (201), in every declared form.",
    state=State.WRITES_IN_SANDBOX,
)
def continue_write_after_every_failing_status(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    ctx.resource(judge, "status")
    member = ctx.target.sandbox_member
    if member is None:
        judge.not_applicable("the target declares no sandbox.member document to write")
    post = SubRequest(
        "POST", coll, (("Content-Type", "application/json"),), json.dumps(member).encode()
    )
    created = ctx.alone(judge, post)
    made = [created.get("Location")]
    try:
        if created.status != 201:
            judge.setup_error(f"POST {coll} alone answered {created.status}, not 201")
        _writes_after_failures(ctx, judge, post, made)
    finally:
        # MB-TEST-3: "A suite deletes every member it creates before it finishes".
        for location in {m for m in made if m}:
            # MB-RESP-7 (RFC 9110 §10.2.2): resolved against the POST's target.
            path = created_path(ctx, coll, location)
            if path:
                ctx.alone(judge, SubRequest("DELETE", path))


def _writes_after_failures(
    ctx: Context, judge: Judge, post: SubRequest, made: list[str | None]
) -> None:
    """Batches of failing parts each followed by `post`, in every form; each Location made is
    added to `made`."""
    for media, asked, _, entries, wants in _after_each_failure(ctx, judge, post, 201):
        made += [dict((n.lower(), v) for n, v in e.fields).get("location") for e in entries]
        for i, want in enumerate(wants):
            what = (
                f"{media}{asked}: part {i} ({'POST after ' + str(wants[i - 1]) if i % 2 else want})"
            )
            # MB-PROC-5: "every part runs whatever earlier parts returned"; MB-TEST-3: the
            # sandbox collection "creates members on POST (201 + Location)".
            judge.expect(f"{what} outcome", entries[i].outcome, {None}, "MB-PROC-5")
            judge.expect(f"{what} status", entries[i].status, {want}, "MB-PROC-5")
        if media != "multipart/mixed":
            continue
        for i in range(1, len(wants), 2):
            location = dict((n.lower(), v) for n, v in entries[i].fields).get("location")
            if entries[i].status != 201 or not location:
                continue
            path = ctx.resolve(location) if not location.startswith("/") else location
            # The write happened: the member the part created is there (MB-TEST-3).
            got = ctx.alone(judge, SubRequest("GET", path)).status
            judge.expect(f"{media}{asked}: GET of part {i}'s member", got, {200}, "MB-PROC-5")
