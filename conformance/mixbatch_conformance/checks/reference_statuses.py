"""References to a part whose status is below 400 but not 2xx: resolved, not skipped (spec 7.7,
MB-PROC-18, MB-PROC-20).

Theory of operation: MB-PROC-20 makes a reference unresolvable when "the part it names failed
(status 400 or above), was skipped or did not run", or its response lacks the named field; a
part that answered 204, 3xx or 399 did not fail, so MB-PROC-18 replaces a reference to one of
its fields "with the value it names before that part runs". A server that takes "succeeded"
for 2xx, or for a status with content, skips the part instead. The check asks the `status`
resource for 201, 204, 300, 302, 304 and 399 (MB-TEST-6: every code from 200 to 599, no content
for 204 and 304) and learns from the same server which field each answer carries on exactly one
line, by that part alone in a references batch. A part whose answer carries none is not
judged. Each is then sent as part 0 of a references batch whose part 1, a GET of the echo,
names that field in a header field value: part 1 runs (200), and the echo received the value
part 0's response part carries in the same batch. Every part is a GET; it writes nothing.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.alone import readable_echoes
from mixbatch_conformance.checks._shared.nameable_fields import nameable
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

REFERENCES = (("Batch-Mode", "references"),)
#: The field the referring part carries its reference in.
REF_FIELD = "X-Mb-Ref"
#: Statuses below 400 that are no 200: a part answered so did not fail (MB-PROC-20).
UNFAILED = (201, 204, 300, 302, 304, 399)


@checker(
    "references-to-parts-below-400",
    ("MB-PROC-18", "MB-PROC-20"),
    "Under Batch-Mode: references, a reference to a field of a part the status resource answered 201, 204, 300, 302, 304 or 399 (no failure: its status is below 400) is replaced by that field's value, and the referring part runs.",
    profile="references",
    state=State.READ_ONLY,
)
def references_to_parts_below_400(ctx: Context, judge: Judge) -> None:
    template = ctx.path(ctx.resource(judge, "status"))
    echo = ctx.path(ctx.resource(judge, "echo"))
    judged = 0
    for code in UNFAILED:
        named = SubRequest("GET", template.replace("{code}", str(code)))
        alone = ctx.batch(judge, [named], headers=REFERENCES)
        learnt = ctx.read_batch(judge, alone) if alone.status == 200 else None
        if learnt is None or part_status(learnt, 0) != code:
            judge.note(f"the status resource asked for {code} in a batch: not answered {code}")
            continue
        field = nameable(learnt.parts[0])
        if field is None:
            judge.note(f"the {code} of the status resource carries no field a reference may name")
            continue
        written = f"$(0:{field})"
        subs = [named, SubRequest("GET", echo, ((REF_FIELD, written),))]
        env = expect_processed(
            ctx, judge, ctx.batch(judge, subs, headers=REFERENCES), [s.content_id for s in subs]
        )
        judge.require(f"{code}: part 0 status", part_status(env, 0), {code}, "MB-TEST-6")
        values = env.parts[0].get_all(field)
        if len(values) != 1:
            judge.note(f"{code}: part 0 carries {len(values)} {field} lines here: not judged")
            continue
        judged += 1
        # MB-PROC-20: a reference is unresolved when "the part it names failed (status 400 or
        # above)"; this one names a part answered below 400, so it is no such reference.
        if not judge.expect(
            f"{code}: part 1 ({REF_FIELD}: {written}) status",
            part_status(env, 1),
            {200},
            "MB-PROC-20",
        ):
            continue
        (seen,) = readable_echoes(judge, env.parts[1].body)
        # MB-PROC-18: "MUST replace each reference in a part's `Content-Id` and header field
        # values with the value it names before that part runs".
        judge.expect(
            f"{code}: {REF_FIELD} received", seen.get_all(REF_FIELD), [values], "MB-PROC-18"
        )
    if not judged:
        judge.not_applicable("no answer of the status resource below 400 carried a nameable field")
