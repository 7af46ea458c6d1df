"""The Content-Id echo of a part that did not simply run (spec 3.3.2, 6.3, 6.4).

Theory of operation: `content-id-forms-echoed` sends a reference in each form (relative, with
a dot segment, path-absolute, absolute URI) on parts that run, and the mode checks send
path-absolute references, whose echo and resolved target are spelled alike. A writer that
fills the `Content-Id` of a `skipped` or `rolled-back` part from the part's resolved target
(what it keeps for a part it did not answer itself) instead of the request's field value shows
only on a reference spelled otherwise. So the ok resource, in the four forms, is sent after a
failing part under `Prefer: batch-on-error=stop` (each is skipped), and before and after one
in a `Batch-Mode: atomic` batch (rolled back, then skipped), where the target claims the
profile. Each multipart part must echo its request's `Content-Id` octet for octet (MB-RESP-3)
and each 207 entry the reference between its brackets (MB-MULTI-5, MB-MULTI-6, MB-MULTI-4),
as `answers_in_every_form` judges. It writes nothing: every part is a GET.
"""

from __future__ import annotations

from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import answers_in_every_form

__all__: list[str] = []


def _forms(ctx: Context, path: str) -> list[SubRequest]:
    """GETs of `path` in every reference form the suite writes."""
    refs = [
        ctx.ref(path, "relative"),
        "./" + ctx.ref(path, "relative"),
        ctx.ref(path, "absolute-path"),
        ctx.ref(path, "absolute-uri"),
    ]
    return [SubRequest("GET", r) for r in refs]


@checker(
    "outcome-parts-echo-every-reference-form",
    ("MB-RESP-3", "MB-MULTI-5"),
    "Skipped and rolled-back parts whose targets are relative, dot-segment, path-absolute or absolute-URI references echo each request's Content-Id octet for octet, and carry its reference in every declared 207 form.",
    state=State.READ_ONLY,
)
def outcome_parts_echo_every_reference_form(ctx: Context, judge: Judge) -> None:
    ok = ctx.path(ctx.resource(judge, "ok"))
    nf = SubRequest("GET", ctx.path(ctx.resource(judge, "not_found")))
    batches: list[tuple[str, tuple[tuple[str, str], ...], list[SubRequest]]] = []
    if ctx.target.claims("error-policy"):
        batches.append(("stop", (("Prefer", "batch-on-error=stop"),), [nf, *_forms(ctx, ok)]))
    if ctx.target.claims("atomic"):
        subs = [*_forms(ctx, ok), nf, *_forms(ctx, ok)]
        batches.append(("atomic", (("Batch-Mode", "atomic"),), subs))
    if not batches:
        judge.not_applicable("the target claims neither the error-policy nor the atomic profile")
    for label, fields, subs in batches:
        # MB-RESP-3: "give each response part that answers a request part a `Content-Id`
        # field whose value is the request part's `Content-Id` value, octet for octet": a
        # skipped or rolled-back part answers its request part too. answers_in_every_form
        # judges the echo of each multipart part and each 207 entry's content-id (MB-MULTI-5).
        forms = answers_in_every_form(ctx, judge, subs, fields)
        for media, _, entries in forms:
            outcomes = [e.outcome for e in entries]
            judge.note(f"{label}, {media}: outcomes {outcomes}")
            # The parts did not simply run, or the echo judged is not an outcome part's.
            judge.require_true(
                f"{label}, {media}: outcome parts",
                sum(o in ("skipped", "rolled-back") for o in outcomes) >= 4,
                repr(outcomes),
                "the ok parts skipped or rolled back",
                "MB-PROC-6" if label == "stop" else "MB-PROC-8",
            )
