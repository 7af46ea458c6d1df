"""An unresolved reference that stands among other text is named alone (spec 7.7, MB-PROC-20).

Theory of operation: MB-PROC-20 answers a part whose reference cannot be resolved with a
problem "whose `reference` member is the reference as written". The other checks write each
reference as a whole field value or a whole Content-Id, where the value and the reference are
the same text, so a server that names the whole value passes them. Here each reference stands
among other text: in a field value after and before other words, after a reference that
resolves, with a field name, and inside a Content-Id's path. Each names a part that failed (the
`not_found` resource, 404), or a field the `ok` resource's answer does not carry, so none can be
resolved (the one after a reference that resolves names the ETag the `etag_resource` answers
with); the member must be the reference itself (`$(0)`, `$(1:X-Mb-Absent)`), not the value
around it. Where the target a substitution yields is refused after every reference resolved,
spec 7.7 lets the member name the whole Content-Id; no case here resolves, so that latitude does
not apply.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.checks._shared.unresolved_parts import expect_unresolved_part
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

REFERENCES = (("Batch-Mode", "references"),)
#: A field name no test resource answers with.
ABSENT = "X-Mb-Absent"


@checker(
    "references-unresolved-named-alone",
    ("MB-PROC-20",),
    "A part whose unresolvable reference stands among other text (words around it in a field value, after a reference that resolves, with a field name, inside a Content-Id path) is skipped with a problem whose reference member is that reference alone, not the value around it.",
    profile="references",
    state=State.READ_ONLY,
)
def unresolved_named_alone(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    echo_role = ctx.target.resource("echo")
    echo = ctx.path(echo_role) if echo_role else ok.target
    cases: list[tuple[str, list[SubRequest], str]] = [
        (
            "words around a reference to a failed part",
            [nf, SubRequest("GET", echo, (("X-Mb-Ref", "before $(0) after"),))],
            "$(0)",
        ),
        (
            "a reference to a field the answer lacks, inside a list",
            [ok, SubRequest("GET", echo, (("X-Mb-Ref", f"a, W/$(0:{ABSENT}), b"),))],
            f"$(0:{ABSENT})",
        ),
        (
            "a reference to a failed part inside a Content-Id path",
            [nf, SubRequest("GET", f"{ok.target}/$(0)/rest")],
            "$(0)",
        ),
    ]
    tagged = ctx.target.resource("etag_resource")
    if tagged:
        # MB-TEST-1: the etag_resource answers "200 with an `ETag`", which `$(0:ETag)` names.
        value = f"$(0:ETag)x$(1:{ABSENT})"
        subs = [
            SubRequest("GET", ctx.path(tagged)),
            ok,
            SubRequest("GET", echo, (("X-Mb-Ref", value),)),
        ]
        cases.append(("an unresolvable reference after one that resolves", subs, f"$(1:{ABSENT})"))
    for what, subs, written in cases:
        resp = ctx.batch(judge, subs, headers=REFERENCES)
        env = expect_processed(ctx, judge, resp, [s.content_id for s in subs], (), "MB-PROC-20")
        last = len(subs) - 1
        # MB-PROC-20: "The answer is `Batch-Outcome: skipped` with an `application/problem+json`
        # body ... whose `reference` member is the reference as written".
        expect_unresolved_part(judge, f"{what}: part {last}", env.parts[last], (written,))
