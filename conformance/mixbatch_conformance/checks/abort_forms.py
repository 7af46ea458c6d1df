"""The abort of a spent time budget in every form of one batch (spec 5.4, 6.x).

Theory of operation: MB-MULTI-5 says "Every representation of one batch result carries the
same statuses, outcomes, header fields and bodies", an aborted batch's included. The check
sends the outlasting batch of `_shared/outlast` (a quick part, a part that waits past the
declared limit, a quick part) as multipart/mixed and in each 207 form the target claims, all
at once, so it costs one budget. The quick first part is answered before the budget runs out
in every form (spec 5.4 lets the abort name part 1 or 2, never part 0), and the multipart form
carries it before its abort part; so each 207 document carries, before its abort report, one
entry for every part the report does not name: parts 0 to part_index - 1, part 0 answered as
the multipart form answers it. A document that holds the abort report alone drops answered
parts. Which of the slow parts ran is timing, so the number answered is not compared across
forms. N/A without a claimed 207 form, a declared limit or a delay resource.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from mixbatch_conformance.checks._shared.outlast import outlasting_batch
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import MULTISTATUS_FORMS
from mixbatch_conformance.core.validator import read_multipart
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []


def _send(ctx: Context, judge: Judge, subs: list[SubRequest], accept: str) -> Response:
    return ctx.batch(judge, subs, headers=(("Accept", accept),))


@checker(
    "batch-abort-forms-keep-answered",
    ("MB-MULTI-5",),
    "An aborted batch asked for in a 207 form carries, before its abort report, the entries of the parts already answered, as the multipart form of the same batch carries them.",
    tier="standard",
    state=State.READ_ONLY,
)
def abort_forms_keep_answered(ctx: Context, judge: Judge) -> None:
    forms = [f for f in MULTISTATUS_FORMS if ctx.target.claims(f[0])]
    if not forms:
        judge.not_applicable("the target claims neither the xml nor the json profile")
    subs = outlasting_batch(ctx, judge)
    accepts = ["multipart/mixed", *(accept for _, accept, _, _ in forms)]
    with ThreadPoolExecutor(len(accepts), thread_name_prefix="mixbatch-abort-forms") as pool:
        sent = [pool.submit(_send, ctx, judge, subs, accept) for accept in accepts]
        answers = [f.result() for f in sent]
    multipart, documents = answers[0], answers[1:]
    if multipart.status != 200 or multipart.media_type != "multipart/mixed":
        judge.not_applicable(
            f"the multipart form answered {multipart.status} {multipart.media_type}; "
            "batch-abort-after-timeout judges that"
        )
    _, params = judge.media_type(
        "response Content-Type", multipart.get("Content-Type"), "MB-WIRE-3"
    )
    env = read_multipart(multipart.body, params.get("boundary", ""))
    first = part_status(env, 0)
    if first is None:
        judge.not_applicable(
            "the multipart form answered no part 0; batch-abort-after-timeout judges that"
        )
    for (_, accept, reader, _), resp in zip(forms, documents, strict=True):
        if resp.status != 207:
            judge.note(f"{accept}: answered {resp.status}; batch-abort-in-multistatus judges that")
            continue
        entries, problem = reader(resp.body)
        aborted = [e for e in entries if e.outcome == "aborted"]
        if problem is not None or len(aborted) != 1 or aborted[0] is not entries[-1]:
            judge.note(f"{accept}: no readable document ending in one abort report")
            continue
        report = entries[-1]
        stop = report.index if isinstance(report.index, int) else len(entries) - 1
        before = [e.index for e in entries[:-1]]
        # MB-MULTI-5: "Every representation of one batch result carries the same statuses,
        # outcomes, header fields and bodies": the parts the abort report does not name were
        # answered (spec 5.4: "parts 0 to k-1, then the abort part with `part_index` k"), and
        # the document carries each of them, as the multipart form does, before the report.
        judge.expect(
            f"{accept}: entries before the abort report (it names part {stop})",
            before,
            [list(range(stop))],
            "MB-MULTI-5",
            allowed_text=f"one entry for each part answered before it, parts 0 to {stop - 1}",
        )
        # The quick first part is answered before the budget runs out in every form: the
        # multipart form of the same batch carries it, so the document does, with its status.
        zero = [e.status for e in entries[:-1] if e.index == 0]
        judge.expect(
            f"{accept}: part 0 entry (the multipart form answered it {first})",
            zero,
            [[first]],
            "MB-MULTI-5",
            allowed_text=f"one entry for part 0 with status {first}, as in multipart/mixed",
        )
        # MB-MULTI-5, the same "bodies": part 0 reads the unchanging `ok` resource.
        bodies = [e.body for e in entries[:-1] if e.index == 0]
        if bodies:
            judge.expect(
                f"{accept}: part 0 entry body",
                bodies[0],
                {env.parts[0].body},
                "MB-MULTI-5",
                allowed_text="the body part 0 carries in multipart/mixed",
            )
    if not judge.expectations:
        judge.not_applicable(
            "no 207 form ended in one abort report; batch-abort-in-multistatus judges that"
        )
