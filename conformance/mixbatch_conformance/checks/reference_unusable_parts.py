"""References to a part that failed or was skipped, whose response part carries the named field
all the same (spec 7.7, MB-PROC-20).

Theory of operation: MB-PROC-20 makes a reference unresolvable when "the part it names failed
(status 400 or above), was skipped or did not run", whatever that part's answer carries. A
server that asks only whether the named field is there resolves such a reference from the
failed response, or from the fields of a skipped part's problem, so each case is built where
the field is there. The failing parts are a GET of `etag_resource` whose `If-Match` names no
tag it has (412, RFC 9110 §13.1.1), a GET of `not_found` (404) and GETs of `status` for 400
and 500; which fields their response parts carry is learnt from the same server first, by the
same parts alone in a references batch, and a later part names one of those fields (`ETag`
where there is one, else `Location`, `Last-Modified`, `Content-Type` or another it carries),
with `$(N)` in a Content-Id and in a field value too when the failed part carries a
`Location`. A skipped part's response part carries the `Content-Type` of its problem document,
so a part naming that field of a skipped part, or `$(N)` of it in a Content-Id or a field
value, is skipped in turn. A part whose reference names a 200 of `etag_resource` runs with its
tag, and an independent part at the end runs, so a server that skips every reference is not
mistaken for one that reads them right. Under `stop` a part skipped for its reference does not
stop the batch, so a chain of them is skipped for their references and the batch goes on;
after a failed part every part is skipped whatever it names, under `stop` and in an atomic
batch alike. A part of an atomic batch that is later rolled back had succeeded when the later
parts read it, so it is no case of its own. Every part is a GET.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.alone import readable_echoes
from mixbatch_conformance.checks._shared.nameable_fields import nameable
from mixbatch_conformance.checks._shared.unresolved_parts import (
    ABSENT_FIELD,
    expect_unresolved_part,
)
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import answers_in_every_form
from mixbatch_conformance.core.validator import Part

REFERENCES = (("Batch-Mode", "references"),)
#: A tag no test resource has, for a precondition that fails.
NO_SUCH_TAG = '"mb-suite-no-such-tag"'
#: The field a later part carries its reference in.
REF_FIELD = "X-Mb-Ref"


def _failing_parts(ctx: Context, judge: Judge) -> list[tuple[str, SubRequest]]:
    """The failing GETs the target's resources allow, each with a label."""
    out: list[tuple[str, SubRequest]] = []
    etag = ctx.target.resource("etag_resource")
    if etag:
        out.append(
            (
                "the 412 of etag_resource",
                SubRequest("GET", ctx.path(etag), (("If-Match", NO_SUCH_TAG),)),
            )
        )
    out.append(
        ("the 404 of not_found", SubRequest("GET", ctx.path(ctx.resource(judge, "not_found"))))
    )
    template = ctx.target.resource("status")
    if template:
        for code in (400, 500):
            target = ctx.path(template.replace("{code}", str(code)))
            out.append((f"the {code} of status", SubRequest("GET", target)))
    return out


def _as_part(index: int, fields: tuple[tuple[str, str], ...], body: bytes) -> Part:
    return Part(index, fields, body, 0, 0)


@checker(
    "references-to-failed-or-skipped-parts",
    ("MB-PROC-20",),
    "A reference to a part that failed (a 412 of the etag resource, a 404, a 400 and a 500 of the status resource) or was skipped for its own reference is unresolved even where that part's response part carries the named field, in a field value and as $(N) in a Content-Id: the part is skipped with the MB-PROC-20 problem in every form, the failed parts keep their statuses, a reference to a 200 runs and an independent part runs; under stop a chain of such parts does not stop the batch, and after a failed part under stop or atomic every part is skipped.",
    profile="references",
    state=State.READ_ONLY,
)
def references_to_failed_or_skipped(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    echo = ctx.path(ctx.resource(judge, "echo"))
    etag = ctx.target.resource("etag_resource")
    failing = _failing_parts(ctx, judge)
    # What the failing parts' response parts carry, learnt from the same parts alone.
    probe = expect_processed(
        ctx,
        judge,
        ctx.batch(judge, [s for _, s in failing], headers=REFERENCES),
        [s.content_id for _, s in failing],
    )
    kept: list[tuple[str, SubRequest, int, str, bool]] = []
    for (label, sub), part in zip(failing, probe.parts, strict=True):
        status = part_status(probe, part.index)
        if status is None or status < 400:
            judge.note(f"{label} was answered {status}, not a failure: left out")
            continue
        field = nameable(part)
        if field is None:
            judge.note(f"{label} carries no field a reference may name: Content-Type named")
        kept.append(
            (label, sub, status, field or "Content-Type", len(part.get_all("Location")) == 1)
        )
    if not kept:
        judge.setup_error("no failing part could be made from the target's resources")

    subs: list[SubRequest] = [sub for _, sub, _, _, _ in kept]
    # (index of the referencing part, index it names, the reference as written, what it is)
    refs: list[tuple[int, int, str, str]] = []
    for i, (label, _, _, field, located) in enumerate(kept):
        written = f"$({i}:{field})"
        refs.append((len(subs), i, written, f"{written} of {label}"))
        subs.append(SubRequest("GET", echo, ((REF_FIELD, written),)))
        if located:
            refs.append((len(subs), i, f"$({i})", f"$({i}) of {label} in a Content-Id"))
            subs.append(SubRequest("GET", f"$({i})"))
            refs.append((len(subs), i, f"$({i})", f"$({i}) of {label} in a field value"))
            subs.append(SubRequest("GET", echo, ((REF_FIELD, f"$({i})"),)))
    skipped = refs[0][0]
    chained = f"$({skipped}:Content-Type)"
    refs.append((len(subs), skipped, chained, f"{chained} of a skipped part"))
    subs.append(SubRequest("GET", echo, ((REF_FIELD, chained),)))
    refs.append(
        (len(subs), skipped, f"$({skipped})", f"$({skipped}) of a skipped part in a Content-Id")
    )
    subs.append(SubRequest("GET", f"$({skipped})"))
    refs.append(
        (len(subs), skipped, f"$({skipped})", f"$({skipped}) of a skipped part in a field value")
    )
    subs.append(SubRequest("GET", echo, ((REF_FIELD, f"$({skipped})"),)))
    control = len(subs)
    if etag:
        subs.append(SubRequest("GET", ctx.path(etag)))
        subs.append(SubRequest("GET", echo, ((REF_FIELD, f"$({control}:ETag)"),)))
    subs.append(SubRequest("GET", ok))

    referencing = {at: (named, written, what) for at, named, written, what in refs}
    limit = ctx.limit("max_parts")
    if limit is not None and len(subs) > limit:
        # MB-LIMIT-3: "A client that knows a server's limits MUST NOT send a batch that exceeds
        # them"; the references name parts of one batch, so it cannot be split.
        judge.not_applicable(f"the batch needs {len(subs)} parts; max_parts is {limit}")
    for media, _, entries in answers_in_every_form(ctx, judge, subs, REFERENCES):
        for i, (label, _, status, _, _) in enumerate(kept):
            # MB-PROC-18: the server "MUST run the part as the same request sent alone".
            judge.expect(
                f"{media} part {i} ({label}) status", entries[i].status, {status}, "MB-PROC-18"
            )
        for at, (named, written, what) in referencing.items():
            e = entries[named]
            unusable = e.outcome == "skipped" or (e.status is not None and e.status >= 400)
            if not unusable:
                judge.note(
                    f"{media} part {named} neither failed nor was skipped: {what} not judged"
                )
                continue
            # MB-PROC-20: "A server MUST answer a part whose reference cannot be resolved without
            # running it: the part it names failed (status 400 or above), was skipped or did not
            # run ... The answer is `Batch-Outcome: skipped` with an `application/problem+json`
            # body that the problem schema admits, whose `status` is a 4xx code, whose
            # `requirement` is `MB-PROC-20` and whose `reference` member is the reference as
            # written".
            if media == "multipart/mixed":
                part = _as_part(at, entries[at].fields, entries[at].body)
                expect_unresolved_part(judge, f"part {at} ({what})", part, {written})
            else:
                judge.expect(
                    f"{media} part {at} ({what}) (outcome, status)",
                    (entries[at].outcome, entries[at].status),
                    {("skipped", None)},
                    "MB-PROC-20",
                )
        if etag:
            # MB-PROC-18 and "the error policy treats that part as one that did not fail": a
            # reference to a part that ran with a 200 and an ETag still resolves after them.
            judge.expect(
                f"{media} part {control} (etag_resource) status",
                entries[control].status,
                {200},
                "MB-TEST-1",
            )
            judge.expect(
                f"{media} part {control + 1} ($({control}:ETag) of a 200) (outcome, status)",
                (entries[control + 1].outcome, entries[control + 1].status),
                {(None, 200)},
                "MB-PROC-18",
            )
            if media == "multipart/mixed" and entries[control + 1].status == 200:
                seen = readable_echoes(judge, entries[control + 1].body)[0]
                tag = [v for n, v in entries[control].fields if n.lower() == "etag"]
                judge.expect(
                    f"part {control + 1} {REF_FIELD} received",
                    seen.get_all(REF_FIELD),
                    [tag],
                    "MB-PROC-18",
                )
        # MB-PROC-20 prose: "a chain of dependants stops where its first link broke, and an
        # independent part after it runs".
        judge.expect(
            f"{media} last part (independent) status", entries[-1].status, {200}, "MB-PROC-20"
        )

    first_label, first, _, first_field, _ = kept[0]
    if ctx.target.claims("error-policy"):
        _under_stop(ctx, judge, ok, echo, first, first_field, first_label)
    if ctx.target.claims("atomic"):
        _after_a_failure(
            ctx,
            judge,
            (("Batch-Mode", "atomic, references"),),
            ok,
            echo,
            first,
            first_field,
            first_label,
        )


def _under_stop(
    ctx: Context, judge: Judge, ok: str, echo: str, failed: SubRequest, field: str, label: str
) -> None:
    """Under stop, a chain of unresolved parts with the field there is skipped for its
    references and the batch goes on; after a failed part every part is skipped."""
    stop = (*REFERENCES, ("Prefer", "batch-on-error=stop"))
    subs = [
        SubRequest("GET", ok),
        SubRequest("GET", echo, ((REF_FIELD, f"$(0:{ABSENT_FIELD})"),)),
        SubRequest("GET", echo, ((REF_FIELD, "$(1:Content-Type)"),)),
        SubRequest("GET", "$(1)"),
        SubRequest("GET", ok),
    ]
    env = expect_processed(
        ctx, judge, ctx.batch(judge, subs, headers=stop), [s.content_id for s in subs]
    )
    judge.require("stop: part 0 status", part_status(env, 0), {200}, "MB-TEST-1")
    if env.parts[0].get_all(ABSENT_FIELD):
        judge.setup_error(f"the ok resource sends {ABSENT_FIELD}, so the reference resolves")
    # MB-PROC-20: "the error policy treats that part as one that did not fail", and a part
    # naming a skipped part is itself unresolved.
    expect_unresolved_part(judge, "stop: part 1", env.parts[1], {f"$(0:{ABSENT_FIELD})"})
    expect_unresolved_part(
        judge,
        "stop: part 2 ($(1:Content-Type) of a skipped part)",
        env.parts[2],
        {"$(1:Content-Type)"},
    )
    expect_unresolved_part(judge, "stop: part 3 ($(1) of a skipped part)", env.parts[3], {"$(1)"})
    judge.expect("stop: part 4 (independent) status", part_status(env, 4), {200}, "MB-PROC-20")
    _after_a_failure(ctx, judge, stop, ok, echo, failed, field, label)


def _after_a_failure(
    ctx: Context,
    judge: Judge,
    headers: tuple[tuple[str, str], ...],
    ok: str,
    echo: str,
    failed: SubRequest,
    field: str,
    label: str,
) -> None:
    """After a failed part under stop or in an atomic batch, a part naming it, one naming a
    part the failure skipped and one naming that part's Content-Type are all skipped."""
    mode = "atomic" if "atomic" in headers[0][1] else "stop"
    subs = [
        failed,
        SubRequest("GET", ok),
        SubRequest("GET", echo, ((REF_FIELD, f"$(0:{field})"),)),
        SubRequest("GET", echo, ((REF_FIELD, "$(1:Content-Type)"),)),
        SubRequest("GET", "$(1)"),
    ]
    env = expect_processed(
        ctx, judge, ctx.batch(judge, subs, headers=headers), [s.content_id for s in subs]
    )
    status = part_status(env, 0)
    if status is None or status < 400:
        judge.note(f"{mode}: {label} answered {status}, not a failure: not judged")
        return
    # MB-PROC-6 (stop): "MUST answer every part after the first failing part with
    # `Batch-Outcome: skipped`, run none of them"; MB-PROC-8 (atomic): "MUST answer every later
    # part `Batch-Outcome: skipped`". MB-PROC-20: "Under `stop` the part a reference names can
    # only have failed if the batch has already stopped", so no part naming the failed part, or
    # one the failure skipped, runs; a skipped part has no status (MB-RESP-5).
    requirement = "MB-PROC-8" if mode == "atomic" else "MB-PROC-6"
    for i in range(1, len(subs)):
        judge.expect(
            f"{mode}: part {i} after {label} (outcome, status)",
            (env.parts[i].get("Batch-Outcome"), part_status(env, i)),
            {("skipped", None)},
            requirement if i == 1 else "MB-PROC-20",
        )
