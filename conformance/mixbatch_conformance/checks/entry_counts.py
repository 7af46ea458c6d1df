"""One 207 entry per part in every mode, whatever the part's outcome (spec 6.3, 6.4).

Theory of operation: MB-MULTI-3 gives the XML form "one response per part, in order", and
MB-MULTI-4 the JSON form "one entry per request part, in request order". A part that did not
run has no status, and a server that builds its document from the parts that ran (RFC 4918
gives each DAV:response a status) leaves it out. `entries-for-every-part-in-every-mode` sends
batches that leave parts without a status in each mode the target implements: a stop batch
(skipped parts), a references batch with an unresolved reference (skipped, MB-PROC-20), the two
together, and an atomic batch with a failing part (rolled-back parts), and counts the entries
of each declared 207 form, each indexed by its position.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import (
    ENTRY_COUNT_REQUIREMENT,
    MULTISTATUS_FORMS,
    broken_by,
)

__all__: list[str] = []

STOP = ("Prefer", "batch-on-error=stop")
REFERENCES = ("Batch-Mode", "references")


def _batches(
    ctx: Context, judge: Judge
) -> list[tuple[str, list[SubRequest], tuple[tuple[str, str], ...]]]:
    """(mode, parts, header fields) for each mode the target implements."""
    ok, nf = ok_and_not_found(ctx, judge)
    out: list[tuple[str, list[SubRequest], tuple[tuple[str, str], ...]]] = []
    if ctx.target.claims("error-policy"):
        out.append(("stop", [ok, nf, ok, nf], (STOP,)))
    if ctx.target.claims("references"):
        unresolved = [nf, SubRequest("GET", "$(0)"), ok]
        out.append(("references", unresolved, (REFERENCES,)))
        if ctx.target.claims("error-policy"):
            out.append(("references under stop", unresolved, (REFERENCES, STOP)))
    if ctx.target.claims("atomic"):
        out.append(("atomic", [ok, nf, ok], (("Batch-Mode", "atomic"),)))
    return out


@checker(
    "entries-for-every-part-in-every-mode",
    ("MB-MULTI-3", "MB-MULTI-4"),
    "The XML and JSON forms carry one entry per part, each indexed by its position, for a stop batch, a references batch with an unresolved reference, both together and a failing atomic batch: skipped and rolled-back parts are not left out.",
    state=State.READ_ONLY,
)
def entries_for_every_part_in_every_mode(ctx: Context, judge: Judge) -> None:
    forms = [(a, r, q) for p, a, r, q in MULTISTATUS_FORMS if ctx.target.claims(p)]
    batches = _batches(ctx, judge)
    if not forms or not batches:
        judge.not_applicable("the target offers no 207 form or no mode that leaves a part unrun")
    for mode, subs, head in batches:
        for accept, reader, requirement in forms:
            resp = ctx.batch(judge, subs, headers=(*head, ("Accept", accept)))
            what = f"{mode} batch in {accept}"
            if not judge.expect(f"{what}: status", resp.status, {207}, "MB-MULTI-1"):
                continue
            entries, problem = reader(resp.body)
            count = ENTRY_COUNT_REQUIREMENT[accept]
            if problem is not None:
                judge.expect(f"{what}: readable", problem, {None}, broken_by(problem, requirement))
                continue
            # MB-MULTI-3: "one response per part, in order, each carrying its part index";
            # MB-MULTI-4: "one entry per request part, in request order". A part that did not
            # run is a part.
            judge.expect(f"{what}: entry count", len(entries), {len(subs)}, count)
            indexes = [e.index for e in entries]
            judge.expect(f"{what}: indexes", indexes, [list(range(len(subs)))], count)
