"""Batch modes the server does not implement, and the form of the answer in every mode (spec 6.1, 7.7).

Theory of operation: a server reads `Batch-Mode` before it reads the parts, and chooses the
form of its answer by `Accept` whatever mode the batch asks for. Two ways of getting that
wrong are judged here, each over every member of its class:

- `unimplemented-mode-refused-unused`: every mode the spec defines that the target does not
  claim (atomic, references), and modes no server implements, are answered 501 even when the
  content would run the same without them (no reference in any target, a batch of one safe
  GET), alone, after a mode the target does implement, and under each Accept the target
  offers (MB-PROC-17; MB-PROC-7 for atomic). A server that decides by looking at the content
  runs such a batch;
- `form-chosen-in-every-mode`: each Accept that admits one form only gets that form, 200
  multipart/mixed or a 207 XML or JSON document, for a continue batch, a stop batch (with the
  error-policy profile), an atomic batch (atomic), a references batch (references) and an
  atomic references batch (both): MB-MULTI-1 chooses "by the request's `Accept` field" and
  names no mode that overrides it;
- `part-fields-leave-batch-form`: an Accept or a Batch-Mode field inside a part is that
  sub-request's field (MB-PART-8): the batch with no Accept of its own is answered in
  multipart/mixed (MB-MULTI-1), and a part naming a mode no server implements does not make
  the batch a 501. Each such field, an Accept list among them, is also sent to the `echo`,
  which must receive it as the same request alone does (MB-PART-8), so a server that drops a
  part's Batch-Mode or keeps only the first member of its Accept is caught.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.alone import expect_parts_as_alone
from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_rejected
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import MULTISTATUS_FORMS

__all__: list[str] = []

MULTIPART = "multipart/mixed"
#: The modes spec 7.7 defines, each with the profile that implements it and the requirement
#: that answers it 501 where the profile is not claimed.
DEFINED_MODES: tuple[tuple[str, str, str], ...] = (
    ("atomic", "atomic", "MB-PROC-7"),
    ("references", "references", "MB-PROC-17"),
)
#: Mode tokens no server implements: an unknown token, and extensions of the defined ones.
UNKNOWN_MODES = ("mb-suite-no-such-mode", "atomic-mb-suite", "references2")


def _accepts(ctx: Context) -> list[str | None]:
    """No Accept, then the Accept of each form the target offers."""
    out: list[str | None] = [None, MULTIPART]
    out += [accept for profile, accept, _, _ in MULTISTATUS_FORMS if ctx.target.claims(profile)]
    return out


@checker(
    "unimplemented-mode-refused-unused",
    ("MB-PROC-17", "MB-PROC-7"),
    "Batch-Mode naming a mode the target does not implement (a defined mode it does not claim, or an unknown one) is answered 501 though the batch's content does not use it, alone or after an implemented mode, under every Accept the target offers.",
    state=State.READ_ONLY,
)
def unimplemented_mode_refused_unused(ctx: Context, judge: Judge) -> None:
    ok, _ = ok_and_not_found(ctx, judge)
    claimed = [mode for mode, profile, _ in DEFINED_MODES if ctx.target.claims(profile)]
    unclaimed = [(m, req) for m, p, req in DEFINED_MODES if not ctx.target.claims(p)]
    unclaimed += [(m, "MB-PROC-17") for m in UNKNOWN_MODES]
    for mode, requirement in unclaimed:
        values = [mode] + [f"{known}, {mode}" for known in claimed]
        for value in values:
            for accept in _accepts(ctx):
                head: tuple[tuple[str, str], ...] = (("Batch-Mode", value),)
                if accept is not None:
                    head = (*head, ("Accept", accept))
                # A batch of one GET and no reference: it would run alike in any mode.
                resp = ctx.batch(judge, [ok], headers=head)
                # MB-PROC-17: "MUST answer 501 (Not Implemented), before any part runs, a batch
                # request that lists a mode it does not implement"; MB-PROC-7 says so of
                # atomic: "answer a batch request carrying `Batch-Mode: atomic` with 501".
                # Whether the content uses the mode is not asked.
                expect_rejected(
                    judge, resp, {501}, requirement if "," not in value else "MB-PROC-17"
                )


def _modes(
    ctx: Context, judge: Judge
) -> list[tuple[str, list[SubRequest], tuple[tuple[str, str], ...]]]:
    """(name, parts, header fields) of each mode the target implements."""
    ok, nf = ok_and_not_found(ctx, judge)
    out: list[tuple[str, list[SubRequest], tuple[tuple[str, str], ...]]] = [
        ("continue", [nf, ok], ())
    ]
    if ctx.target.claims("error-policy"):
        out.append(("stop", [nf, ok], (("Prefer", "batch-on-error=stop"),)))
    atomic = ctx.target.claims("atomic")
    refs = ctx.target.claims("references")
    if atomic:
        out.append(("atomic", [ok, ok], (("Batch-Mode", "atomic"),)))
    if refs:
        out.append(("references", [ok, nf], (("Batch-Mode", "references"),)))
    if atomic and refs:
        out.append(("atomic references", [ok, ok], (("Batch-Mode", "atomic, references"),)))
    return out


@checker(
    "form-chosen-in-every-mode",
    ("MB-MULTI-1", "MB-MULTI-2"),
    "Each Accept admitting one form only gets that form (200 multipart/mixed, 207 XML, 207 JSON) for continue, stop, atomic, references and atomic references batches, each mode the target implements.",
    state=State.READ_ONLY,
)
def form_chosen_in_every_mode(ctx: Context, judge: Judge) -> None:
    forms = [(MULTIPART, 200)] + [
        (accept, 207) for profile, accept, _, _ in MULTISTATUS_FORMS if ctx.target.claims(profile)
    ]
    if len(forms) == 1:
        judge.not_applicable("the target offers multipart/mixed only")
    for mode, subs, head in _modes(ctx, judge):
        for accept, status in forms:
            resp = ctx.batch(judge, subs, headers=(*head, ("Accept", accept)))
            what = f"{mode} batch with Accept: {accept}"
            # MB-MULTI-1: "choose the representation of a batch result by the request's
            # `Accept` field"; an Accept admitting one form leaves that form only, and no mode
            # is named as overriding it.
            if not judge.expect(f"{what}: status", resp.status, {status, 200, 207}, "MB-MULTI-1"):
                continue
            media, _ = judge.media_type(
                f"{what}: Content-Type", resp.get("Content-Type"), "MB-MULTI-1"
            )
            judge.expect(f"{what}: media type", media, {accept}, "MB-MULTI-1")
            # Spec 6.1's table: multipart/mixed is answered 200, the 207 forms 207 (MB-MULTI-2:
            # "MUST NOT send a 207 response with `multipart/mixed` content").
            judge.expect(f"{what}: status of the form", resp.status, {status}, "MB-MULTI-2")


@checker(
    "part-fields-leave-batch-form",
    ("MB-MULTI-1", "MB-PART-8"),
    "Accept and Batch-Mode fields inside parts are their sub-requests' fields: the batch is answered 200 multipart/mixed when its own request has no Accept, and runs though a part names a mode the target does not implement.",
    state=State.READ_ONLY,
)
def part_fields_leave_batch_form(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    offered = [accept for profile, accept, _, _ in MULTISTATUS_FORMS if ctx.target.claims(profile)]
    modes = ("mb-suite-no-such-mode", *(m for m, p, _ in DEFINED_MODES if not ctx.target.claims(p)))
    echo = ctx.target.resource("echo")
    if echo:
        # MB-PART-8: "The part's other header fields are the sub-request's header fields": each
        # reaches the echo as it does alone, every member of a list included.
        asked = [("Accept", f"{a}, */*;q=0.1") for a in (*offered, MULTIPART)]
        asked += [("Batch-Mode", mode) for mode in modes]
        where = ctx.path(echo)
        subs = [SubRequest("GET", f"{where}?mb-part-field={i}", (f,)) for i, f in enumerate(asked)]
        expect_parts_as_alone(ctx, judge, subs)
    for accept in offered:
        subs = [SubRequest("GET", ok.target, (("Accept", f"{accept}, */*;q=0.1"),)), nf]
        resp = ctx.batch(judge, subs)
        # MB-MULTI-1: "choose `multipart/mixed` when `Accept` is absent": the batch request's
        # Accept, not a part's (MB-PART-8: a part's other fields are its sub-request's).
        judge.expect(f"status with Accept {accept} in part 0", resp.status, {200}, "MB-MULTI-1")
        media, _ = judge.media_type(
            f"Content-Type with Accept {accept} in part 0", resp.get("Content-Type"), "MB-MULTI-1"
        )
        judge.expect(f"media type with Accept {accept} in part 0", media, {MULTIPART}, "MB-MULTI-1")
    for mode in modes:
        subs = [SubRequest("GET", ok.target, (("Batch-Mode", mode),)), nf]
        resp = ctx.batch(judge, subs)
        # MB-PART-8: "The part's other header fields are the sub-request's header fields": a
        # Batch-Mode there is no mode of the batch, which MB-PROC-17 would refuse.
        judge.expect(f"status with Batch-Mode: {mode} in part 0", resp.status, {200}, "MB-PART-8")
