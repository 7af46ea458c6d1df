"""The shape of a stopped or rolled-back answer with its failing part at every position
(spec 3.3.1, 3.3.4, 7.4, 7.5).

Theory of operation: the atomic and stop checks put the failing part in the middle of a batch,
where it has parts before it and after it. A server that keeps the index of the failing part
can get the ends wrong: a failure at part 0 read as "no failure yet" (the batch commits, or
runs on), a failing last part marked with the parts before it, no part skipped when nothing
follows. `outcome-shapes-at-every-position` sends three GET parts, the failing one (the
`not_found` resource, 404 by MB-TEST-1) first, in the middle and last, and one failing part
alone, under `Batch-Mode: atomic` and under `Prefer: batch-on-error=stop`, in every form the
target declares, and judges each part's (outcome, status): before the failing part
`rolled-back` with 200 (atomic) or unmarked 200 (stop), the failing part unmarked 404, after it
`skipped` without a status. In the multipart form each part that ran carries exactly one
`Http-Status-Code` line, each skipped part none, and each marked part one `Batch-Outcome`
line.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import (
    Entry,
    answers_in_every_form,
    entry_requirement,
)

#: (profile, what, the field asking for the mode, the requirement that shapes its answer).
MODES = (
    ("atomic", "atomic", ("Batch-Mode", "atomic"), "MB-PROC-8"),
    ("error-policy", "stop", ("Prefer", "batch-on-error=stop"), "MB-PROC-6"),
)
#: (parts in the batch, index of the failing one).
SHAPES = ((3, 0), (3, 1), (3, 2), (1, 0))


def _lines(entry: Entry, name: str) -> int:
    return sum(1 for n, _ in entry.fields if n.lower() == name.lower())


def _expected(mode: str, count: int, failing: int) -> list[tuple[str | None, int | None]]:
    # MB-PROC-8: "mark each part before the failing one `Batch-Outcome: rolled-back` with its
    # real status; MUST answer the failing part with its own status and no `Batch-Outcome`;
    # and MUST answer every later part `Batch-Outcome: skipped`". MB-PROC-6: "answer every
    # part after the first failing part with `Batch-Outcome: skipped`", the parts before it
    # having run as in any batch. MB-TEST-1: ok answers 200, not_found 404.
    before: tuple[str | None, int | None] = ("rolled-back" if mode == "atomic" else None, 200)
    return [before] * failing + [(None, 404)] + [("skipped", None)] * (count - failing - 1)


@checker(
    "outcome-shapes-at-every-position",
    ("MB-PROC-8", "MB-PROC-6", "MB-RESP-1", "MB-RESP-2", "MB-RESP-5", "MB-MULTI-6", "MB-MULTI-4"),
    "An atomic batch and a batch under the stop preference whose failing part is first, in the middle, last or alone answer one part per request part in every declared form, rolled-back or run before it, the failing part unmarked with its status, skipped after it, each part that ran with one Http-Status-Code line and each skipped part with none.",
    state=State.READ_ONLY,
)
def outcome_shapes_at_every_position(ctx: Context, judge: Judge) -> None:
    modes = [m for m in MODES if ctx.target.claims(m[0])]
    if not modes:
        judge.not_applicable("the target claims neither the atomic nor the error-policy profile")
    ok, nf = ok_and_not_found(ctx, judge)
    for _, mode, field, requirement in modes:
        for count, failing in SHAPES:
            subs = [nf if i == failing else ok for i in range(count)]
            shape = f"{mode}, part {failing} of {count} failing"
            want = _expected(mode, count, failing)
            decided = False
            for media, _, entries in answers_in_every_form(ctx, judge, subs, (field,)):
                # MB-RESP-1: "exactly one response part for each request part, in request
                # order" (MB-MULTI-3 and MB-MULTI-4 hold the 207 forms to the same count).
                judge.expect(f"{shape}: {media} part count", len(entries), {count}, "MB-RESP-1")
                got = [(e.outcome, e.status) for e in entries]
                # In a 207 form, once the multipart form is as the mode wants, an entry that is
                # not breaks the form's own requirement: MB-MULTI-6 ("`mb:outcome` when the
                # part has a `Batch-Outcome`", "`DAV:status` ... exactly when the part ran")
                # or MB-MULTI-4 (the JSON schema's `outcome` and `status`).
                judge.expect(
                    f"{shape}: {media} (outcome, status) of each part",
                    got,
                    [want],
                    entry_requirement(media, decided, requirement),
                )
                if media == "multipart/mixed":
                    decided = got == want
                if media != "multipart/mixed":
                    continue
                _judge_lines(judge, shape, entries, want, requirement)


def _judge_lines(
    judge: Judge,
    shape: str,
    entries: list[Entry],
    want: list[tuple[str | None, int | None]],
    requirement: str,
) -> None:
    for i, (entry, (outcome, _)) in enumerate(zip(entries, want, strict=False)):
        if outcome == "skipped":
            # MB-RESP-5: "a `Batch-Outcome: skipped` field and no `Http-Status-Code` field".
            judge.expect(
                f"{shape}: part {i} Http-Status-Code lines",
                _lines(entry, "Http-Status-Code"),
                {0},
                "MB-RESP-5",
            )
            judge.expect(
                f"{shape}: part {i} Batch-Outcome lines",
                _lines(entry, "Batch-Outcome"),
                {1},
                "MB-RESP-5",
            )
            continue
        # MB-RESP-2: "each response part whose sub-request ran exactly one `Http-Status-Code`
        # field"; a rolled-back part ran ("it ran and its effects were undone", spec 3.3.4).
        judge.expect(
            f"{shape}: part {i} Http-Status-Code lines",
            _lines(entry, "Http-Status-Code"),
            {1},
            "MB-RESP-2",
        )
        # MB-PROC-8: a rolled-back part is marked `Batch-Outcome: rolled-back`, one field,
        # and the failing part has "no `Batch-Outcome`"; under stop (MB-PROC-6) a part that
        # ran is "(field absent) the sub-request ran and this is its response" (spec 3.3.4).
        judge.expect(
            f"{shape}: part {i} Batch-Outcome lines",
            _lines(entry, "Batch-Outcome"),
            {1 if outcome else 0},
            requirement,
        )


__all__: list[str] = []
