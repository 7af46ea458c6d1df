"""An atomic batch implies the stop policy without announcing it (spec 7.5).

Theory of operation: spec 7.5 ends its account of an atomic batch's shapes (MB-PROC-8) with
"An atomic batch implies the `stop` policy; a server names `batch-on-error=stop` in
`Preference-Applied` only when the client asked for it." A server that runs atomic batches
through its stop path is tempted to write the stop preference whatever the client sent. The
check sends `Batch-Mode: atomic` with no `Prefer`, as a batch that commits ([GET ok]) and as
one that fails ([GET ok, GET not_found, GET ok]); both are read-only, so nothing is undone
but the outcomes. Neither answer's `Preference-Applied` may name `batch-on-error`, in any
case. A 207 form's header section is the server's too, so each form the target declares is
asked for.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import MULTISTATUS_FORMS
from mixbatch_conformance.core.validator import list_members

__all__: list[str] = []

ATOMIC = ("Batch-Mode", "atomic")


def _named_preferences(values: list[str]) -> list[str]:
    """The lower-cased preference names a Preference-Applied field lists (RFC 7240 §3)."""
    return [m.split(";", 1)[0].split("=", 1)[0].strip(" \t").lower() for m in list_members(values)]


@checker(
    "atomic-preference-applied-only-when-asked",
    ("MB-PROC-8",),
    "An atomic batch sent without Prefer, committed or failed, is answered with no batch-on-error in Preference-Applied, in every declared form.",
    profile="atomic",
    state=State.READ_ONLY,
)
def atomic_preference_only_when_asked(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    accepts = [None] + [accept for p, accept, _, _ in MULTISTATUS_FORMS if ctx.target.claims(p)]
    for name, subs in (("committed", [ok]), ("failed", [ok, nf, ok])):
        for accept in accepts:
            headers = (ATOMIC,) if accept is None else (ATOMIC, ("Accept", accept))
            resp = ctx.batch(judge, subs, headers=headers)
            what = f"{name} atomic batch{'' if accept is None else ' as ' + accept}"
            if resp.status not in (200, 207):
                judge.note(f"{what}: answered {resp.status}; the atomic checks judge that")
                continue
            # Spec 7.5 (MB-PROC-8's shapes): "An atomic batch implies the `stop` policy; a
            # server names `batch-on-error=stop` in `Preference-Applied` only when the client
            # asked for it."
            judge.expect(
                f"{what}: Preference-Applied names batch-on-error",
                "batch-on-error" in _named_preferences(resp.get_all("Preference-Applied")),
                {False},
                "MB-PROC-8",
                allowed_text="False (the client sent no Prefer)",
            )
