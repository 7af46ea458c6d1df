"""The representation of a batch that asks for a mode is chosen by Accept as without one
(spec 6.1).

Theory of operation: `accept-quality-values` and `accept-default-multipart` read Accept on
batches without a mode, and the mode checks ask for each form by an Accept naming it alone. A
server that answers a mode on a writer of its own (an atomic batch held until it commits, a
stopped batch) may negotiate there by a shortcut: the first member of Accept, the form named
anywhere in it, an empty Accept read as admitting nothing. So Accept values whose answer
MB-MULTI-1 and MB-STATUS-9 fix, whatever the server's taste, are sent on a batch asking for
`Prefer: batch-on-error=stop` (the ok resource, then the not-found one: it stops) and on one
asking for `Batch-Mode: atomic` (the ok resource: it commits), each where the target claims
the profile: no Accept, an empty one and `*/*` choose multipart/mixed, as does a 207 form of
lower quality listed first and a tie of every form; a 207 form of higher quality is chosen
over multipart/mixed; `text/html` alone is answered 406. The chosen form's status is 200 for
multipart/mixed and 207 for the others (MB-MULTI-2). It writes nothing.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import MULTISTATUS_FORMS

__all__: list[str] = []

MULTIPART = "multipart/mixed"
STATUS = {MULTIPART: 200}


def _cases(forms: list[str]) -> list[tuple[str | None, str]]:
    """(Accept, the only answer MB-MULTI-1 and MB-STATUS-9 allow), None for no Accept."""
    # MB-MULTI-1: "choose `multipart/mixed` when `Accept` is absent or empty, or gives
    # `multipart/mixed` a quality value at least as high as any other representation it
    # offers"; MB-STATUS-9: 406 when it "admits none of the batch representations".
    cases: list[tuple[str | None, str]] = [
        (None, MULTIPART),
        ("", MULTIPART),
        ("*/*", MULTIPART),
        ("text/html", "406"),
    ]
    if forms:
        cases.append((f"{forms[0]};q=0.5, {MULTIPART}", MULTIPART))
        cases.append((", ".join([*forms, MULTIPART]), MULTIPART))
        for form in forms:
            cases.append((f"{MULTIPART};q=0.2, {form};q=0.6", form))
    return cases


@checker(
    "accept-read-alike-in-every-mode",
    ("MB-MULTI-1", "MB-MULTI-2", "MB-STATUS-9"),
    "A batch asking for batch-on-error=stop or for Batch-Mode atomic is answered in multipart/mixed without Accept, with an empty one, with */*, and when multipart/mixed ties or outranks a 207 form listed first; in a 207 form that outranks it; and 406 to text/html alone.",
    state=State.READ_ONLY,
)
def accept_read_alike_in_every_mode(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    modes: list[tuple[str, tuple[str, str], list[SubRequest]]] = []
    if ctx.target.claims("error-policy"):
        modes.append(("stop", ("Prefer", "batch-on-error=stop"), [ok, nf]))
    if ctx.target.claims("atomic"):
        modes.append(("atomic", ("Batch-Mode", "atomic"), [ok]))
    if not modes:
        judge.not_applicable("the target claims neither the error-policy nor the atomic profile")
    forms = [accept for profile, accept, _, _ in MULTISTATUS_FORMS if ctx.target.claims(profile)]
    for label, field, subs in modes:
        for accept, want in _cases(forms):
            headers = (field, ("Accept", accept)) if accept is not None else (field,)
            resp = ctx.batch(judge, subs, headers=headers)
            got = "406" if resp.status == 406 else resp.media_type
            what = f"{label}, Accept {accept!r}"
            judge.note(f"{what}: {resp.status} {got}")
            judge.expect(
                f"{what}: form", got, {want}, "MB-STATUS-9" if want == "406" else "MB-MULTI-1"
            )
            if got == want and want != "406":
                # MB-MULTI-2: "MUST NOT send a 207 response with `multipart/mixed` content"; the
                # table of spec 6.1: 200 for multipart/mixed, 207 for the XML and JSON forms.
                judge.expect(
                    f"{what}: status",
                    resp.status,
                    {STATUS.get(want, 207)},
                    "MB-MULTI-2" if want == MULTIPART else "MB-MULTI-1",
                )
