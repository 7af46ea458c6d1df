"""Policy checks: problem documents, unknown modes and preferences, top-level fields.

Theory of operation: these checks look at the batch response as a whole rather than at its
parts: the problem document of a rejection (MB-STATUS-4, validated by
spec/schemas/problem.schema.json, and naming the part a fault was found in), what a server does with a Batch-Mode or a
batch-on-error value it does not know (MB-PROC-12, MB-PROC-11), which fields it puts in the
top-level header section in every form (MB-SEC-2, MB-INTER-4, MB-MULTI-10), its status in every
form whatever its parts answered (MB-STATUS-5); the boundaries it chooses (MB-WIRE-5) are
judged in checks.boundary_choice.
Batch-Mode values are compared case-sensitively, so a known mode in another case is unknown.
The stop policy is judged at the edges of "failing" (399 against 400, 499, 500, 599, from the
target's status resource), and the policy checks whose requirement binds the batch response
whatever its form ask for every form the target declares.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mixbatch_conformance.checks._shared.forms_alike import expect_entries_as_multipart
from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.checks._shared.status_parts import require_status_code
from mixbatch_conformance.core.context import Context, SubRequest, problem_of
from mixbatch_conformance.core.json_text import is_json_integer
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import (
    ENTRY_COUNT_REQUIREMENT,
    MULTISTATUS_FORMS,
    answers_in_every_form,
    entry_requirement,
)
from mixbatch_conformance.core.requirements import load_index
from mixbatch_conformance.core.schemas import validate_against
from mixbatch_conformance.core.validator import (
    directive_names,
    list_members,
)
from mixbatch_conformance.transport.http import Response

BOUNDARY = "mb-pol-93b1c07e4f2d6a58"


def _ok_nf(ctx: Context, judge: Judge) -> tuple[SubRequest, SubRequest]:
    ok = ctx.path(ctx.resource(judge, "ok"))
    nf = ctx.path(ctx.resource(judge, "not_found"))
    return SubRequest("GET", ok), SubRequest("GET", nf)


@checker(
    "problem-document",
    ("MB-STATUS-4",),
    "A rejected batch carries a problem+json document that validates and names a requirement ID.",
    state=State.READ_ONLY,
)
def problem_document(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    body = (
        f"--{BOUNDARY}\r\nHttp-Method: GET\r\nContent-Id: <{ok}>\r\n\r\n\r\n"
        f"--{BOUNDARY}\nHttp-Method: GET\r\nContent-Id: <{ok}>\r\n\r\n\r\n--{BOUNDARY}--"
    ).encode()
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body))
    judge.require("status", resp.status, {400}, "MB-WIRE-8")
    doc = problem_of(resp)
    judge.require_true(
        "problem+json", doc is not None, repr(resp.get("Content-Type")), "application/problem+json"
    )
    judge.expect(
        "problem schema",
        validate_against("problem.schema.json", doc),
        {None},
        allowed_text="valid against problem.schema.json",
    )
    assert doc is not None
    # MB-STATUS-4: "a `requirement` member naming the ID of the requirement the request broke,
    # when it broke one": this request broke MB-WIRE-8 (or, MB-STATUS-13, another of its
    # faults), so the member is required and must be an ID of the index. The problem `type`
    # is not judged: the spec describes the reference's URIs, no requirement fixes them.
    judge.expect_true(
        "requirement member",
        isinstance(doc.get("requirement"), str) and doc["requirement"] in load_index(),
        repr(doc.get("requirement")),
        "a requirement ID from spec/requirements.json",
    )


@checker(
    "problem-names-part",
    ("MB-STATUS-4",),
    "A batch refused for a fault in its second part names part_index 1, and a byte_offset inside the content when it gives one.",
    state=State.READ_ONLY,
)
def problem_names_part(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    part = f"Http-Method: GET\r\nContent-Id: <{ok}>\r\n\r\n"
    # Part 1 has no Http-Method (MB-PART-2): a fault a server can only find by reading that
    # part, so it knows the part's index when it reports it.
    faulty = f"Content-Id: <{ok}>\r\n\r\n"
    body = f"--{BOUNDARY}\r\n{part}\r\n--{BOUNDARY}\r\n{faulty}\r\n--{BOUNDARY}\r\n{part}\r\n--{BOUNDARY}--"
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body.encode()))
    judge.require("status", resp.status, {400}, "MB-PART-2")
    doc = problem_of(resp)
    judge.require_true(
        "problem+json", doc is not None, repr(resp.get("Content-Type")), "application/problem+json"
    )
    assert doc is not None
    # MB-STATUS-4: "with `part_index` (from 0) and `byte_offset` (octets from the start of the
    # request content) members when the server knows them".
    judge.expect("part_index", doc.get("part_index"), {1}, "MB-STATUS-4")
    offset = doc.get("byte_offset")
    if offset is not None:
        judge.expect_true(
            "byte_offset",
            is_json_integer(offset) and 0 <= offset <= len(body),
            repr(offset),
            f"an octet offset from 0 to {len(body)}",
            "MB-STATUS-4",
        )


@checker(
    "batch-mode-unknown",
    ("MB-PROC-12",),
    "A Batch-Mode value the server does not implement is answered 501.",
    state=State.READ_ONLY,
)
def batch_mode_unknown(ctx: Context, judge: Judge) -> None:
    ok, _ = _ok_nf(ctx, judge)
    resp = ctx.batch(judge, [ok], headers=(("Batch-Mode", "mb-suite-no-such-mode"),))
    # MB-PROC-12: "answer a batch request whose `Batch-Mode` value it does not implement with
    # 501 before any part runs".
    judge.expect("status", resp.status, {501})


#: Known modes in another case, alone and in a list (spec 5: "the values of ... `Batch-Mode`
#: are compared case-sensitively, as HTTP compares methods"), so none of them names a mode
#: any server implements, whichever modes it offers.
MODE_SPELLINGS = (
    "ATOMIC",
    "Atomic",
    "References",
    "REFERENCES",
    "atomic, ATOMIC",
    "Atomic, references",
)


@checker(
    "batch-mode-case-sensitive",
    ("MB-PROC-12", "MB-PROC-17"),
    "Batch-Mode values are case-sensitive: ATOMIC, Atomic and References, alone or in a list, are modes no server implements and are answered 501, whatever form the answer would take.",
    state=State.READ_ONLY,
)
def batch_mode_case_sensitive(ctx: Context, judge: Judge) -> None:
    ok, _ = _ok_nf(ctx, judge)
    for value in MODE_SPELLINGS:
        resp = ctx.batch(judge, [ok], headers=(("Batch-Mode", value),))
        # MB-PROC-12: "answer a batch request whose `Batch-Mode` value it does not implement
        # with 501 before any part runs"; MB-PROC-17: "a batch request that lists a mode it
        # does not implement". A processed answer (200) ran the part.
        judge.expect(f"status with Batch-Mode: {value}", resp.status, {501}, "MB-PROC-12")
    # A server reads Batch-Mode before it knows the form of its answer; one that reads it
    # only on the way to multipart/mixed runs the parts for a 207 form.
    for profile, accept, _, _ in MULTISTATUS_FORMS:
        if not ctx.target.claims(profile):
            continue
        for value in (MODE_SPELLINGS[0], "mb-suite-no-such-mode"):
            head = (("Batch-Mode", value), ("Accept", accept))
            resp = ctx.batch(judge, [ok], headers=head)
            judge.expect(
                f"status with Batch-Mode: {value} and Accept: {accept}",
                resp.status,
                {501},
                "MB-PROC-12",
            )


#: batch-on-error preferences whose value is none the spec defines (MB-PROC-11): an unknown
#: token, the preference bare (RFC 7240 2: a preference without a value; no default meaning is
#: given to it, unlike an on/off preference), an empty quoted value, a prefix and an extension
#: of "stop", and "stop" as a parameter name and value rather than the preference's value.
UNRECOGNISED_VALUES: tuple[str, ...] = (
    "batch-on-error=mb-suite-bogus",
    "batch-on-error",
    'batch-on-error=""',
    "batch-on-error=sto",
    "batch-on-error=stopped",
    "batch-on-error; stop",
    "batch-on-error;mb-suite=stop",
    # Near neighbours of stop and of continue. A quoted-string stands for the octets between
    # its quotes (RFC 9110 §5.6.4), so whitespace inside them, written as is or as a
    # quoted-pair, is part of the value, not OWS: "stop " is no policy. Nor is a token that
    # ends in a character tchar allows (".", a second "p"), a value in single quotes (a token,
    # quotes included), a quoted list or parameter, a value quoted twice, or one beside a
    # no-break space or a next-line octet (obs-text, valid in a quoted-string, and whitespace to
    # many string libraries' trims). Case makes no neighbour: MB-PROC-13 recognises the value
    # "whatever the case of its name and value", so STOP is stop; but that case is US-ASCII's
    # only (RFC 5234 §2.3, spec 7.4), so "stop" spelt with a long s (U+017F, sent as its UTF-8
    # octets C5 BF), which a Unicode case fold makes "stop", is no policy either.
    'batch-on-error="stop "',
    'batch-on-error=" stop"',
    'batch-on-error="stop\t"',
    'batch-on-error="\tstop"',
    'batch-on-error=" stop "',
    'batch-on-error="stop\\ "',
    'batch-on-error="stop\xa0"',
    'batch-on-error="\x85stop"',
    "batch-on-error=stop.",
    "batch-on-error=stopp",
    "batch-on-error='stop'",
    'batch-on-error="stop,continue"',
    'batch-on-error="stop;x=1"',
    'batch-on-error="\\"stop\\""',
    'batch-on-error="continue "',
    'batch-on-error=" continue"',
    'batch-on-error="continue\t"',
    "batch-on-error=continue.",
    "batch-on-error=continuee",
    "batch-on-error=continu",
    'batch-on-error="continue,stop"',
    "batch-on-error=\xc5\xbftop",
    'batch-on-error="\xc5\xbftop"',
)


@checker(
    "prefer-unknown-value",
    ("MB-PROC-11", "MB-PROC-5"),
    "An unrecognised batch-on-error value (unknown, bare, empty, a prefix or extension of stop, stop as a parameter, or a near neighbour of stop or continue: padded inside its quotes, with a character more or less, in single quotes, quoted twice, a quoted list) is treated as absent: every part runs and it is not applied.",
    state=State.READ_ONLY,
)
def prefer_unknown(ctx: Context, judge: Judge) -> None:
    ok, nf = _ok_nf(ctx, judge)
    subs = [nf, ok]
    # MB-PROC-11: "treat a `batch-on-error` preference with a value it does not recognise as if
    # it were absent, and MUST leave it out of `Preference-Applied`".
    for value in UNRECOGNISED_VALUES:
        prefer = (("Prefer", value),)
        # Every form the target declares: the header section of a 207 is the server's too.
        for media, resp, entries in answers_in_every_form(ctx, judge, subs, prefer):
            judge.expect(
                f"{media} part 1 status with Prefer {value!r}",
                entries[1].status,
                {200},
                "MB-PROC-11",
            )
            judge.expect(
                f"{media} part 1 outcome with Prefer {value!r}",
                entries[1].outcome,
                {None},
                "MB-PROC-11",
            )
            applied = ",".join(resp.get_all("Preference-Applied")).lower()
            judge.expect_true(
                f"{media} Preference-Applied with Prefer {value!r}",
                "batch-on-error" not in applied,
                repr(applied),
                "no batch-on-error",
                "MB-PROC-11",
            )


#: Sub-response fields whose copy at the top level is unmistakable: a server's own answer to
#: a batch has no entity tag, date of change, location or cookie of a member resource.
PART_ONLY_FIELDS = ("etag", "last-modified", "location", "set-cookie")


def _copied(part_fields: Sequence[tuple[str, str]], resp: Response) -> list[str]:
    """The part's fields that appear with the same value in `resp`'s header section."""
    top = {(n.lower(), v) for n, v in resp.headers}
    return [n for n, v in part_fields if n.lower() in PART_ONLY_FIELDS and (n.lower(), v) in top]


@checker(
    "top-level-fields",
    ("MB-SEC-2", "MB-INTER-4", "MB-MULTI-10"),
    "A batch response's header section copies no sub-response field and carries Cache-Control: no-transform.",
    state=State.READ_ONLY,
)
def top_level_fields(ctx: Context, judge: Judge) -> None:
    ok, _ = _ok_nf(ctx, judge)
    resp = ctx.batch(judge, [ok])
    env = expect_processed(ctx, judge, resp, [ok.content_id])
    # MB-SEC-2: "MUST NOT copy a header field of a sub-response into the header section of the
    # batch response": a field of the same name and value at the top level is a copy; the
    # server's own fields (another Set-Cookie, say) are not.
    judge.expect(
        "sub-response fields at top level", _copied(env.parts[0].fields, resp), [[]], "MB-SEC-2"
    )
    # The 207 forms are written whole after the parts ran, where a server could still add a
    # part's fields to the header section it has not sent yet; MB-SEC-2 binds every form.
    answers = [("multipart/mixed", resp)]
    for claimed, accept, _, _ in MULTISTATUS_FORMS:
        if ctx.target.claims(claimed):
            other = ctx.batch(judge, [ok], headers=(("Accept", accept),))
            judge.expect(
                f"sub-response fields at top level ({accept})",
                _copied(env.parts[0].fields, other),
                [[]],
                "MB-SEC-2",
            )
            answers.append((accept, other))
    for form, answer in answers:
        # MB-INTER-4 (SHOULD): "include `Cache-Control: no-transform` ... in batch responses":
        # every batch response, whichever form it is written in.
        cache = answer.get_all("Cache-Control")
        judge.expect_true(
            f"Cache-Control ({form})",
            "no-transform" in directive_names(cache),
            repr(cache),
            "no-transform (SHOULD)",
            "MB-INTER-4",
        )
    if len(answers) > 1:
        # MB-MULTI-10 (SHOULD) on the multipart answer; vary-in-every-form asks every form.
        vary = [m.lower() for m in list_members(resp.get_all("Vary"))]
        judge.expect_true(
            "Vary",
            "accept" in vary,
            repr(vary),
            "Vary naming Accept (SHOULD)",
            "MB-MULTI-10",
        )


@checker(
    "error-policy-stop",
    ("MB-PROC-6", "MB-RESP-5", "MB-RESP-1", "MB-MULTI-5", "MB-MULTI-3", "MB-MULTI-6", "MB-MULTI-4"),
    "With Prefer batch-on-error=stop, parts after the first failing one are skipped without a status, in request order, each form carrying what multipart does.",
    profile="error-policy",
    state=State.READ_ONLY,
)
def error_policy_stop(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    # The two skipped parts have targets of their own, so that their order is seen.
    subs = [ok, nf, ok, nf]
    prefer = (("Prefer", "batch-on-error=stop"),)
    volatile = ctx.target.volatile_headers
    # MB-PROC-6 binds the batch response whatever its form: each form the target declares is
    # asked for and judged alike.
    forms = answers_in_every_form(ctx, judge, subs, prefer)
    for media, resp, entries in forms:
        # MB-RESP-1: "exactly one response part for each request part, in request order", the
        # skipped parts too; in the 207 forms MB-MULTI-3 ("one `DAV:response` per request part,
        # in request order") and MB-MULTI-4 ("one entry per request part, in request order").
        judge.expect(
            f"{media} parts in request order (Content-Id)",
            [e.content_id for e in entries],
            [[s.target for s in subs]],
            ENTRY_COUNT_REQUIREMENT.get(media, "MB-RESP-1"),
        )
        if media != forms[0][0]:
            # MB-MULTI-5: a skipped part's status, fields and body too.
            expect_entries_as_multipart(judge, media, entries, forms[0][2], volatile)
        # MB-PROC-6: "answer every part after the first failing part with `Batch-Outcome:
        # skipped`, run none of them, and send `Preference-Applied: batch-on-error=stop`".
        # A member of the list (RFC 7240 §3: Preference-Applied = 1#applied-pref), not a
        # piece of one: `batch-on-error=stopped` applies no stop.
        applied = (
            ",".join(resp.get_all("Preference-Applied")).replace(" ", "").replace("\t", "").lower()
        )
        judge.expect_true(
            f"{media} Preference-Applied",
            "batch-on-error=stop" in applied.split(","),
            repr(applied),
            "batch-on-error=stop",
            "MB-PROC-6",
        )
        judge.expect(f"{media} part 0 status", entries[0].status, {200}, "MB-PROC-6")
        judge.expect(f"{media} part 1 status", entries[1].status, {404}, "MB-PROC-6")
        base = forms[0][2]
        for i in (2, 3):
            # The 207 forms: when the multipart form skipped the part, a 207 entry that does not
            # say so breaks its form's requirement (see entry_requirement): MB-MULTI-6
            # "`mb:outcome` when the part has a `Batch-Outcome`", MB-MULTI-4's schema `outcome`.
            decided = base[i].outcome == "skipped"
            judge.expect(
                f"{media} part {i} outcome",
                entries[i].outcome,
                {"skipped"},
                entry_requirement(media, decided, "MB-PROC-6"),
            )
            # MB-RESP-5: a skipped part has "no Http-Status-Code"; MB-MULTI-6: DAV:status
            # "exactly when the part ran"; the JSON schema: a skipped entry's status is null.
            judge.expect(
                f"{media} part {i} status",
                entries[i].status,
                {None},
                entry_requirement(media, decided, "MB-RESP-5"),
            )


#: Statuses at the edges of failing (spec 7.4: "A part **fails** when its status is 400 or
#: above"), each with whether it fails: the last that does not, the first and last 4xx, the
#: first and last 5xx.
FAILING_EDGES = ((399, False), (400, True), (499, True), (500, True), (599, True))


def _status_part(ctx: Context, judge: Judge, code: int) -> SubRequest:
    """A GET of the target's status resource for `code` (MB-TEST-6)."""
    return SubRequest("GET", ctx.path(ctx.resource(judge, "status").replace("{code}", str(code))))


@checker(
    "error-policy-stop-failing-edges",
    ("MB-PROC-6", "MB-RESP-2", "MB-MULTI-6", "MB-MULTI-4", "MB-TEST-6"),
    "Under batch-on-error=stop a part answered 400, 499, 500 or 599 stops the batch and one answered 399 does not, and Preference-Applied names stop either way, in every declared form.",
    profile="error-policy",
    state=State.READ_ONLY,
)
def error_policy_stop_edges(ctx: Context, judge: Judge) -> None:
    ok, _ = ok_and_not_found(ctx, judge)
    for code, fails in FAILING_EDGES:
        subs = [_status_part(ctx, judge, code), ok]
        prefer = (("Prefer", "batch-on-error=stop"),)
        for media, resp, entries in answers_in_every_form(ctx, judge, subs, prefer):
            require_status_code(
                ctx, judge, f"{media} part 0 status", subs[0], entries[0].status, code, media
            )
            # MB-PROC-6: "answer every part after the first failing part with `Batch-Outcome:
            # skipped`"; spec 7.4: "A part fails when its status is 400 or above".
            want = ("skipped", None) if fails else (None, 200)
            got = (entries[1].outcome, entries[1].status)
            judge.expect(f"{media} part 1 (outcome, status) after {code}", got, {want}, "MB-PROC-6")
            # MB-PROC-6: a server that "receives `Prefer: batch-on-error=stop` MUST ... send
            # `Preference-Applied: batch-on-error=stop`", whether or not a part failed.
            judge.expect_true(
                f"{media} Preference-Applied after {code}",
                "batch-on-error=stop" in _applied(resp),
                repr(resp.get_all("Preference-Applied")),
                "batch-on-error=stop",
                "MB-PROC-6",
            )


#: Prefer values that ask for no policy but continue: none, and continue in several spellings
#: (MB-PROC-13: any case, token or quoted-string).
CONTINUE_PREFERS: tuple[str | None, ...] = (
    None,
    "batch-on-error=continue",
    'Batch-On-Error="CONTINUE"',
)


@checker(
    "error-policy-default-continue",
    ("MB-PROC-5",),
    "Without a preference, and with batch-on-error=continue in any spelling, every part runs, whatever the earlier parts returned, in every declared form.",
    state=State.READ_ONLY,
)
def error_policy_default(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    # A client error before each success, and server errors (a 5xx is no licence to stop
    # either) before a success and a client error, so that no failing part is the last.
    batches = [
        ([nf, ok, nf, ok], (404, 200, 404, 200)),
        (
            [_status_part(ctx, judge, 500), ok, _status_part(ctx, judge, 503), nf, ok],
            (500, 200, 503, 404, 200),
        ),
    ]
    # Read first on its own terms: a server that ends the batch at a 5xx part (with an abort
    # part, or skipping the rest) answers fewer parts, or marked ones, and that is this
    # requirement broken before it is a malformed answer.
    subs, wants = batches[1]
    env = ctx.read_batch(judge, ctx.batch(judge, subs))
    # MB-PROC-5: "every part runs whatever earlier parts returned".
    judge.expect(f"parts answered of {wants}", len(env.parts), {len(subs)}, "MB-PROC-5")
    for i, part in enumerate(env.parts):
        outcome = part.get("Batch-Outcome")
        judge.expect(f"part {i} of {wants} Batch-Outcome", outcome, {None}, "MB-PROC-5")
    for prefer in CONTINUE_PREFERS:
        asked = f" with Prefer {prefer!r}" if prefer else ""
        head = (("Prefer", prefer),) if prefer else ()
        for subs, wants in batches:
            for media, resp, entries in answers_in_every_form(ctx, judge, subs, head):
                # MB-PROC-5: "every part runs whatever earlier parts returned"; MB-TEST-1
                # fixes 200 and 404, MB-TEST-6 the status resource's code. Asking for
                # continue is asking for no other policy.
                for i, want in enumerate(wants):
                    what = f"{media} part {i} of {wants}"
                    judge.expect(f"{what} status{asked}", entries[i].status, {want})
                    judge.expect(f"{what} outcome{asked}", entries[i].outcome, {None})
                # Spec 7.4: "A server may name `batch-on-error=continue` in `Preference-Applied`";
                # stop, which it did not apply, never.
                judge.expect_true(
                    f"{media} Preference-Applied{asked}",
                    "batch-on-error=stop" not in _applied(resp),
                    repr(resp.get_all("Preference-Applied")),
                    "no batch-on-error=stop",
                )


#: Part statuses whose batch must still be answered as processed: every part a client error,
#: every part a server error (the edges of the 5xx class among them), and a mix with a success.
PART_STATUS_SETS: tuple[tuple[int, ...], ...] = (
    # Every part succeeding: the batch is answered as processed all the same, not with a status
    # kept for batches whose parts fared alike or differently.
    (200,),
    (200, 204, 299),
    (301, 304),
    (400, 404, 499),
    (500, 502, 503, 599),
    (200, 500),
    (404, 500),
)


@checker(
    "batch-status-whatever-parts",
    ("MB-STATUS-5", "MB-STATUS-1"),
    "A batch whose parts all answer 4xx, all answer 5xx, or mix them with a success is answered 200 as multipart/mixed and 207 in each declared 207 form.",
    state=State.READ_ONLY,
)
def batch_status_whatever_parts(ctx: Context, judge: Judge) -> None:
    forms = [("multipart/mixed", None, 200)] + [
        (accept, accept, 207)
        for claimed, accept, _, _ in MULTISTATUS_FORMS
        if ctx.target.claims(claimed)
    ]
    for codes in PART_STATUS_SETS:
        subs = [_status_part(ctx, judge, code) for code in codes]
        for media, accept, want in forms:
            headers = (("Accept", accept),) if accept else ()
            resp = ctx.batch(judge, subs, headers=headers)
            # MB-STATUS-5: "choose the top-level status of a batch without regard to the
            # statuses of its parts: a part that fails with a 4xx or 5xx status is reported in
            # that part, and the batch is still answered as processed"; MB-STATUS-1's table:
            # 200 for multipart/mixed, 207 for the XML or JSON representation.
            judge.expect(f"{media} status, parts {codes}", resp.status, {want}, "MB-STATUS-5")


def _applied(resp: Any) -> list[str]:
    """The Preference-Applied members, as written (names and values not normalised)."""
    return [
        m.strip() for v in resp.get_all("Preference-Applied") for m in v.split(",") if m.strip()
    ]


@checker(
    "error-policy-stop-any-spelling",
    ("MB-PROC-13", "MB-PROC-6"),
    'Prefer: Batch-On-Error="STOP" asks for stop, and Preference-Applied names batch-on-error=stop in lower case, unquoted.',
    profile="error-policy",
    state=State.READ_ONLY,
)
def error_policy_any_spelling(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    subs = [nf, ok]
    # MB-PROC-13: "recognise the `batch-on-error` preference whatever the case of its name and
    # value, and whether the value is a token or a quoted-string".
    prefer = (("Prefer", 'Batch-On-Error="STOP"'),)
    for media, resp, entries in answers_in_every_form(ctx, judge, subs, prefer):
        judge.expect(f"{media} part 1 outcome", entries[1].outcome, {"skipped"}, "MB-PROC-6")
        # MB-PROC-13: "MUST write it in `Preference-Applied` in lower case with an unquoted
        # value", in every form.
        judge.expect_true(
            f"{media} Preference-Applied",
            "batch-on-error=stop" in _applied(resp),
            repr(resp.get_all("Preference-Applied")),
            "batch-on-error=stop, exactly",
            "MB-PROC-13",
        )


@checker(
    "several-faults-any-status",
    ("MB-STATUS-13", "MB-STATUS-4"),
    "A request with two faults is answered with the status one of them calls for, and its problem document describes that fault.",
    state=State.READ_ONLY,
)
def several_faults(ctx: Context, judge: Judge) -> None:
    ok, _ = _ok_nf(ctx, judge)
    # Two faults: a media type other than multipart/mixed (415, MB-WIRE-2) and a Batch-Mode no
    # server implements (501, MB-PROC-12). MB-STATUS-13: "answer with a status that one of
    # those faults calls for, and ... make the problem document's `requirement` ... describe
    # that same fault".
    body = (
        f"--{BOUNDARY}\r\nHttp-Method: GET\r\nContent-Id: <{ok.target}>\r\n\r\n\r\n--{BOUNDARY}--"
    )
    head = [("Content-Type", "text/plain"), ("Batch-Mode", "mb-suite-no-such-mode")]
    resp = ctx.send(judge, ctx.raw_request("POST", ctx.batch_path, head, body.encode()))
    calls_for = {415: {"MB-WIRE-2"}, 501: {"MB-PROC-12", "MB-PROC-7"}}
    judge.require("status", resp.status, set(calls_for), "MB-STATUS-13")
    doc = problem_of(resp)
    if resp.status == 415 and doc is None:
        # MB-STATUS-4 asks for problem details on every 4xx, but the 415 checks elsewhere
        # judge the media type; here only the agreement between status and fault is at stake.
        return
    judge.require_true(
        "problem+json", doc is not None, repr(resp.get("Content-Type")), "application/problem+json"
    )
    assert doc is not None
    judge.expect("problem status", doc.get("status"), {resp.status}, "MB-STATUS-13")
    judge.expect(
        "problem requirement describes the fault answered",
        doc.get("requirement"),
        calls_for[resp.status],
        "MB-STATUS-13",
    )
