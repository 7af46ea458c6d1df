"""Status codes a server may not know, reported exactly in every form and mode (spec 3.3.1,
6.3, 6.4, 7.4, 7.5).

Theory of operation: MB-RESP-2 puts "the sub-response's three-digit status code" in each part
that ran, whatever the code. A server whose framework has no name for a code can be tempted to
report it as something it knows: the x00 code of its class (the rule RFC 9110 §15 gives a
*client* that does not recognise a code), the nearest registered code, or a 500. The target's
`status` resource (MB-TEST-6: "a code from 200 to 599 with that status") answers any code, so
`status-codes-reported-exactly` asks it, alone first, for codes registered in no table (218,
299, 306 (reserved, unused), 419, 432, 499, 509, 599) and registered ones few frameworks name
(203, 208, 226, 421, 425). Where the resource alone answers a code (else MB-TEST-6 fails and
nothing more is judged), the same GETs are sent as parts:

- all in one batch with no mode;
- under `Prefer: batch-on-error=stop` (error-policy profile) and under `Batch-Mode: atomic`
  (atomic profile): the codes below 400 first, then one failing code, then a GET of `ok`, one
  batch per failing code, so that every code is a part that ran (before the failure: run, or
  rolled-back "with its real status", MB-PROC-8) and every failing code is the failing part
  itself;

each in every form the target declares. A part that ran carries the code its resource answered
alone: in `Http-Status-Code` (MB-RESP-2), in the XML form's DAV:status, "`HTTP/1.1 NNN`, a space
and a reason phrase, which may be empty for a code that has none" (MB-MULTI-6), and in the JSON
form's `status`, "The sub-response status" (MB-MULTI-4's schema). Whether a part ran is judged
apart, by the mode's requirement (MB-PROC-6, MB-PROC-8), so a wrong stop is not taken for a
wrong code. Only GETs are sent: nothing is written.
"""

from __future__ import annotations

from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import FORM_REQUIREMENT, answers_in_every_form

__all__: list[str] = []

#: Codes no IANA registration names, one or more in each class: 218, 299; 306 (reserved by RFC
#: 9110 §15.4.7, "Unused"); 419, 432, 499; 509, 599.
UNREGISTERED = (218, 299, 306, 419, 432, 499, 509, 599)
#: Registered codes a framework may still lack a name for: 203, 208 (RFC 5842), 226 (RFC
#: 3229), 421, 425 (RFC 8470).
RARE = (203, 208, 226, 421, 425)
CODES = tuple(sorted(UNREGISTERED + RARE))
#: Spec 7.4: "A part **fails** when its status is 400 or above".
PASSING = tuple(c for c in CODES if c < 400)
FAILING = tuple(c for c in CODES if c >= 400)
#: (profile, mode, the field asking for it, the requirement fixing which parts run).
MODES = (
    ("error-policy", "stop", ("Prefer", "batch-on-error=stop"), "MB-PROC-6"),
    ("atomic", "atomic", ("Batch-Mode", "atomic"), "MB-PROC-8"),
)


def _status_part(ctx: Context, judge: Judge, code: int) -> SubRequest:
    return SubRequest("GET", ctx.path(ctx.resource(judge, "status").replace("{code}", str(code))))


def _judge_statuses(
    judge: Judge, label: str, media: str, codes: list[int | None], statuses: list[int | None]
) -> None:
    """Each part that ran (its code not None) carries that code in form `media`."""
    # MB-RESP-2: "exactly one `Http-Status-Code` field holding the sub-response's three-digit
    # status code"; MB-MULTI-6: "`DAV:status` (`HTTP/1.1 NNN`, a space and a reason phrase,
    # which may be empty for a code that has none) exactly when the part ran"; MB-MULTI-4: the
    # JSON entry's `status` is "The sub-response status".
    requirement = FORM_REQUIREMENT.get(media, "MB-RESP-2")
    for i, (code, status) in enumerate(zip(codes, statuses, strict=False)):
        if code is not None:
            judge.expect(f"{label}: {media} part {i} status (answered {code})", status, {code},
                         requirement)  # fmt: skip


@checker(
    "status-codes-reported-exactly",
    ("MB-RESP-2", "MB-MULTI-6", "MB-MULTI-4", "MB-TEST-6", "MB-PROC-6", "MB-PROC-8"),
    "Parts answered 203, 208, 218, 226, 299, 306, 419, 421, 425, 432, 499, 509 and 599 by the status resource carry exactly that code, not one the server knows, in Http-Status-Code and in every declared 207 form, in a plain batch, under the stop preference and in an atomic batch, as a part that ran, a rolled-back part and the failing part.",
    state=State.READ_ONLY,
)
def status_codes_reported_exactly(ctx: Context, judge: Judge) -> None:
    room = ctx.limit("max_parts")
    codes = list(CODES[: room if room else None])
    for code in codes:
        alone = ctx.alone(judge, _status_part(ctx, judge, code))
        # MB-TEST-6: the status resource answers "a code from 200 to 599 with that status";
        # without it the code a part should carry is not known.
        judge.require(f"GET of the status resource for {code} alone", alone.status, {code},
                      "MB-TEST-6")  # fmt: skip
    subs = [_status_part(ctx, judge, c) for c in codes]
    for media, _, entries in answers_in_every_form(ctx, judge, subs):
        _judge_statuses(judge, "no mode", media, list(codes), [e.status for e in entries])
    ok = SubRequest("GET", ctx.path(ctx.resource(judge, "ok")))
    passing = [c for c in PASSING if c in codes]
    for profile, mode, field, requirement in MODES:
        if not ctx.target.claims(profile):
            continue
        for failing in (c for c in FAILING if c in codes):
            if room and len(passing) + 2 > room:
                break
            batch = [*passing, failing]
            subs = [*(_status_part(ctx, judge, c) for c in batch), ok]
            label = f"{mode}, failing part answered {failing}"
            # MB-PROC-6: the parts before the first failing one run and "every part after the
            # first failing part" is skipped; MB-PROC-8: the parts before it are "rolled-back
            # with its real status", the failing part has "its own status and no
            # `Batch-Outcome`", later parts are skipped.
            before = "rolled-back" if mode == "atomic" else None
            want = [*((before, c) for c in passing), (None, failing), ("skipped", None)]
            for media, _, entries in answers_in_every_form(ctx, judge, subs, (field,)):
                got = [(e.outcome, e.status) for e in entries]
                judge.expect(
                    f"{label}: {media} outcome of each part",
                    [o for o, _ in got],
                    [[o for o, _ in want]],
                    requirement,
                )
                ran = [
                    code if e.outcome in (None, "rolled-back") and o == e.outcome else None
                    for e, (o, code) in zip(entries, want, strict=False)
                ]
                _judge_statuses(judge, label, media, ran, [e.status for e in entries])
