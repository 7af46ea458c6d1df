"""An atomic batch implies the stop policy without announcing it (spec 7.5).

Theory of operation: spec 7.5 ends its account of an atomic batch's shapes (MB-PROC-8) with
"An atomic batch implies the `stop` policy; a server names `batch-on-error=stop` in
`Preference-Applied` only when the client asked for it." A server that runs atomic batches
through its stop path is tempted to write the stop preference whatever the client sent. The
check sends `Batch-Mode: atomic` with no `Prefer`, as a batch that commits ([GET ok]) and as
one that fails ([GET ok, GET not_found, GET ok]); both are read-only, so nothing is undone
but the outcomes. Neither answer's `Preference-Applied` may name `batch-on-error`, in any
case. A 207 form's header section is the server's too, so each form the target declares is
asked for. The failing batch is sent twice more: with `Prefer: respond-async`, a preference
that is not the policy, and with `Prefer: batch-on-error=continue`, where the client asked for
the policy, but not for `stop`: neither answer may name `batch-on-error=stop` (whether a server
names `continue` there is its choice, spec 7.4).

`atomic-with-stop-preference` sends the other side: `Batch-Mode: atomic` together with
`Prefer: batch-on-error=stop`, as a batch that commits ([ok, ok]) and as one that fails
([ok, not_found, ok]), in every declared form. The mode still decides the outcomes (part 0
`rolled-back` with its status, the failing part unmarked, the last `skipped`: a server that
sends a batch asking for both down its stop path leaves part 0 as it ran), and a server that
offers the error-policy profile honours the preference it was sent and names it.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import (
    MULTISTATUS_FORMS,
    answers_in_every_form,
    entry_requirement,
)
from mixbatch_conformance.core.validator import list_members

__all__: list[str] = []

ATOMIC = ("Batch-Mode", "atomic")
#: Prefer values that do not ask for stop: another preference, and the other policy.
ASKED_OTHERWISE = ("respond-async", "batch-on-error=continue")


def _applied(values: list[str]) -> list[tuple[str, str]]:
    """(name, value) of each preference a Preference-Applied field lists (RFC 7240 §3), both
    lower-cased and the value unquoted."""
    out = []
    for member in list_members(values):
        name, _, value = member.split(";", 1)[0].partition("=")
        out.append((name.strip(" \t").lower(), value.strip(" \t").strip('"').lower()))
    return out


@checker(
    "atomic-preference-applied-only-when-asked",
    ("MB-PROC-8",),
    "An atomic batch sent without Prefer, committed or failed, names no batch-on-error in Preference-Applied in any declared form, and one whose Prefer is respond-async or batch-on-error=continue does not name batch-on-error=stop.",
    profile="atomic",
    state=State.READ_ONLY,
)
def atomic_preference_only_when_asked(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    accepts = [None] + [accept for p, accept, _, _ in MULTISTATUS_FORMS if ctx.target.claims(p)]
    batches = (("committed", [ok]), ("failed", [ok, nf, ok]))
    cases: list[tuple[str, list[SubRequest], str | None, str | None]] = [
        (name, subs, accept, None) for name, subs in batches for accept in accepts
    ]
    cases += [("failed", [ok, nf, ok], None, prefer) for prefer in ASKED_OTHERWISE]
    for name, subs, accept, prefer in cases:
        headers = [ATOMIC]
        if accept is not None:
            headers.append(("Accept", accept))
        if prefer is not None:
            headers.append(("Prefer", prefer))
        resp = ctx.batch(judge, subs, headers=tuple(headers))
        what = f"{name} atomic batch" + (f" as {accept}" if accept else "")
        what += f" with Prefer: {prefer}" if prefer else " without Prefer"
        if resp.status not in (200, 207):
            judge.note(f"{what}: answered {resp.status}; the atomic checks judge that")
            continue
        applied = _applied(resp.get_all("Preference-Applied"))
        # Spec 7.5 (MB-PROC-8's shapes): "An atomic batch implies the `stop` policy; a server
        # names `batch-on-error=stop` in `Preference-Applied` only when the client asked for
        # it."
        named = [f"{n}={v}" for n, v in applied if n == "batch-on-error"]
        if prefer is not None:
            named = [m for m in named if m == "batch-on-error=stop"]
        judge.expect(
            f"{what}: Preference-Applied",
            named,
            [[]],
            "MB-PROC-8",
            allowed_text="no batch-on-error" if prefer is None else "no batch-on-error=stop",
        )


@checker(
    "atomic-with-stop-preference",
    ("MB-PROC-8", "MB-PROC-6", "MB-MULTI-6", "MB-MULTI-4"),
    "An atomic batch that also asks for batch-on-error=stop commits whole or is rolled back, its failing part unmarked and the later part skipped, and names batch-on-error=stop in Preference-Applied where the error policy is offered, in every declared form.",
    profile="atomic",
    state=State.READ_ONLY,
)
def atomic_with_stop_preference(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    fields = (ATOMIC, ("Prefer", "batch-on-error=stop"))
    # (what, parts, (status, outcome) of each part).
    batches = (
        ("committed", [ok, ok], [(200, None), (200, None)]),
        ("failed", [ok, nf, ok], [(200, "rolled-back"), (404, None), (None, "skipped")]),
    )
    for name, subs, wanted in batches:
        forms = answers_in_every_form(ctx, judge, subs, fields)
        base = forms[0][2]
        for media, resp, entries in forms:
            what = f"{name} atomic batch under batch-on-error=stop, {media}"
            for i, (entry, (status, outcome)) in enumerate(zip(entries, wanted, strict=True)):
                # The 207 forms: see entry_requirement.
                cited = entry_requirement(
                    media, (base[i].status, base[i].outcome) == (status, outcome), "MB-PROC-8"
                )
                # MB-PROC-8: "MUST mark each part before the failing one `Batch-Outcome:
                # rolled-back` with its real status; MUST answer the failing part with its own
                # status and no `Batch-Outcome`; and MUST answer every later part
                # `Batch-Outcome: skipped`"; a batch that commits marks none (spec 7.5).
                judge.expect(f"{what}: part {i} outcome", entry.outcome, {outcome}, cited)
                judge.expect(f"{what}: part {i} status", entry.status, {status}, cited)
            if not ctx.target.claims("error-policy"):
                continue
            named = [
                f"{n}={v}"
                for n, v in _applied(resp.get_all("Preference-Applied"))
                if n == "batch-on-error"
            ]
            # MB-PROC-6: a server that offers the `error-policy` profile and receives `Prefer:
            # batch-on-error=stop` MUST "send `Preference-Applied: batch-on-error=stop`"; spec
            # 7.5: it names it "only when the client asked for it", as this client did.
            judge.expect(
                f"{what}: Preference-Applied", named, [["batch-on-error=stop"]], "MB-PROC-6"
            )
