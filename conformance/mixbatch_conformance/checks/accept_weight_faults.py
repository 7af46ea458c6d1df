"""Accept elements whose weight is no qvalue (spec 6.1, MB-MULTI-1).

Theory of operation: RFC 9110 §12.4.2 writes a weight as `q=` and a qvalue, `0` to `1` with at
most three decimals. Spec 6.1 makes an element whose weight is anything else one that does not
follow the grammar: a server may treat the field as absent, read its valid elements alone
(406 when they admit no form) or refuse the request 400, and "never reads such an element as a
form", neither with the number a general-purpose reader makes of its weight (`1e0`, `2`, `inf`,
`0.5000`, `+0.5`, digits outside US-ASCII) nor as a range whose parameter `q` is no weight, at
the default weight 1.

For each 207 form the target declares, the check sends the form under each such weight beside
`multipart/mixed;q=0.1`, and alone. Beside it, every reading the spec allows answers
multipart/mixed (the valid element alone, or no Accept) or 400; a server that reads the weight
as a number above 0.1, or the element at weight 1, answers the form. Alone, the allowed answers
are the one to no Accept, 406 and 400.

The fault is also put on `multipart/mixed` itself, beside `*/*;q=0.5`. Read alone, the wildcard
gives every form 0.5, and MB-MULTI-1 chooses multipart/mixed at a weight as high as any other;
treated as absent, the field chooses it too; so every reading answers multipart/mixed or 400. A
server that reads the faulty weight as 0 refuses multipart/mixed and answers another form (or
406, when it offers none). This half runs on every target, and the first only where a 207
form is declared.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.accept_cases import MULTIPART, answer_under, offered_forms
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

#: Weights that are no qvalue, each one a general-purpose number reader takes for a number
#: above the valid element's 0.1. A quoted weight is left out: spec 6.1 lets a server read it
#: as the value inside the quotes. Header values go out as Latin-1, so the Arabic-Indic digits
#: are written as their UTF-8 octets.
NOT_QVALUES = (
    "1e0",
    "2",
    "1.5",
    "1.0001",
    "0.5000",
    ".5",
    "+0.5",
    "0.5e0",
    "1_0",
    "inf",
    "\u0660.\u0665".encode().decode("latin-1"),
)
#: The valid element the faulty one is weighed against.
VALID = f"{MULTIPART};q=0.1"
#: The valid element a faulty weight on multipart/mixed stands beside: every form at 0.5.
WILDCARD = "*/*;q=0.5"


@checker(
    "accept-weights-that-are-no-qvalue",
    ("MB-MULTI-1",),
    "An Accept element of a 207 form whose weight is no qvalue (q=1e0, q=2, q=1.5, q=0.5000, q=.5, q=+0.5, q=inf, non-ASCII digits) is never read as that form: beside multipart/mixed;q=0.1 the answer is multipart/mixed or 400, alone it is the answer to no Accept, 406 or 400; multipart/mixed under such a weight beside */*;q=0.5 is answered multipart/mixed or 400.",
    state=State.READ_ONLY,
)
def accept_weights_that_are_no_qvalue(ctx: Context, judge: Judge) -> None:
    forms = offered_forms(ctx)[1:]
    absent = answer_under(ctx, judge, ())
    wildcard = answer_under(ctx, judge, (("Accept", WILDCARD),))
    judge.expect("answer for no Accept", absent, {MULTIPART}, "MB-MULTI-1")
    judge.expect(f"answer for Accept {WILDCARD!r}", wildcard, {MULTIPART}, "MB-MULTI-1")
    for weight in NOT_QVALUES:
        # Spec 6.1: such an element is left out, the field treated as absent, or the request
        # refused 400; MB-MULTI-1: "MUST choose `multipart/mixed` when `Accept` is absent ...
        # or gives `multipart/mixed` a quality value at least as high as any other".
        _expect_answer(
            ctx,
            judge,
            f"{WILDCARD}, {MULTIPART};q={weight}",
            {MULTIPART, "400"},
            f"{MULTIPART} (the wildcard alone, or no Accept) or 400",
        )
    alone = answer_under(ctx, judge, (("Accept", VALID),))
    for form in forms:
        for weight in NOT_QVALUES:
            faulty = f"{form};q={weight}"
            # Spec 6.1: "A weight whose value is no `qvalue` ... makes its element such an
            # element"; "A server may treat such a field as absent, read its valid elements
            # alone ... or refuse the request 400 as malformed; it never reads such an element
            # as a form."
            _expect_answer(
                ctx,
                judge,
                f"{faulty}, {VALID}",
                {alone, absent, "400"},
                f"{alone!r} (the valid element alone), {absent!r} (no Accept) or 400",
            )
            _expect_answer(
                ctx, judge, faulty, {absent, "406", "400"}, f"{absent!r} (no Accept), 406 or 400"
            )


def _expect_answer(
    ctx: Context, judge: Judge, accept: str, allowed: set[str], allowed_text: str
) -> None:
    """Expect the answer to a one-part batch under `Accept: accept` to be one of `allowed`."""
    shown = accept.encode("latin-1").decode("utf-8", "replace")
    judge.expect(
        f"answer for Accept {shown!r}",
        answer_under(ctx, judge, (("Accept", accept),)),
        allowed,
        "MB-MULTI-1",
        allowed_text=allowed_text,
    )
