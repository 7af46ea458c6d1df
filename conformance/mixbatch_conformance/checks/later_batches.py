"""A batch's error policy and mode are its own (spec 7.4, 7.5): the batch sent after it on the
same connection, asking for neither, runs under `continue`.

Theory of operation: MB-PROC-5 makes `continue` the policy of "a batch request that does not
ask for another policy". A server that stores the policy or the mode it read on its connection
object, or in state shared between batches, runs a later batch that asks for nothing under the
stop or the atomicity an earlier one asked for. The suite sends a check's requests on one kept
connection (unless run with --fresh-connections), so the check sends there a batch under
`Prefer: batch-on-error=stop` when the target offers the error-policy profile and a
`Batch-Mode: atomic` batch when it offers the atomic profile, each [not_found, ok] or
[ok, not_found], and after each the batch [ok, not_found, ok] with neither field, in every
declared form. Every part of that later batch runs with its own status and no
`Batch-Outcome`, and its `Preference-Applied` names no stop. It writes nothing.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import answers_in_every_form

__all__: list[str] = []


def _earlier_batches(
    ctx: Context, ok: SubRequest, nf: SubRequest
) -> list[tuple[str, list[SubRequest], tuple[tuple[str, str], ...]]]:
    """(what, parts, fields) of each batch asking for another policy the target offers."""
    out: list[tuple[str, list[SubRequest], tuple[tuple[str, str], ...]]] = []
    if ctx.target.claims("error-policy"):
        out.append(("Prefer: batch-on-error=stop", [nf, ok], (("Prefer", "batch-on-error=stop"),)))
    if ctx.target.claims("atomic"):
        out.append(("Batch-Mode: atomic", [ok, nf], (("Batch-Mode", "atomic"),)))
    return out


@checker(
    "policy-and-mode-not-kept-for-later-batches",
    ("MB-PROC-5",),
    "A batch without Prefer or Batch-Mode sent on a connection after a batch under batch-on-error=stop, or after an atomic batch, runs every part with its own status and no outcome, and names no stop in Preference-Applied, in every declared form.",
    state=State.READ_ONLY,
)
def policy_and_mode_not_kept(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    earlier = _earlier_batches(ctx, ok, nf)
    if not earlier:
        judge.not_applicable("the target offers neither the error-policy nor the atomic profile")
    later = [ok, nf, ok]
    wanted = [200, 404, 200]
    for what, subs, fields in earlier:
        first = ctx.batch(judge, subs, headers=fields)
        expect_processed(ctx, judge, first, [s.content_id for s in subs])
        judge.note(f"a batch under {what}, then one asking for no policy or mode")
        for media, resp, entries in answers_in_every_form(ctx, judge, later):
            label = f"after {what}, {media}"
            for i, (entry, status) in enumerate(zip(entries, wanted, strict=True)):
                # MB-PROC-5: "MUST apply the `continue` policy to a batch request that does not
                # ask for another policy: every part runs whatever earlier parts returned". The
                # earlier batch's policy or mode is not this batch's.
                judge.expect(f"{label}: part {i} outcome", entry.outcome, {None}, "MB-PROC-5")
                judge.expect(f"{label}: part {i} status", entry.status, {status}, "MB-PROC-5")
            applied = ",".join(resp.get_all("Preference-Applied")).replace(" ", "").lower()
            # MB-PROC-5 with spec 7.4: the batch asked for no stop, so it ran under continue,
            # and a Preference-Applied naming stop would say otherwise.
            judge.expect_true(
                f"{label}: Preference-Applied",
                "batch-on-error=stop" not in applied,
                repr(resp.get_all("Preference-Applied")),
                "no batch-on-error=stop",
                "MB-PROC-5",
            )
