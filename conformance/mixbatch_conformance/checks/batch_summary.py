"""The Batch-Summary trailer, when a server sends one (spec 5.5, MB-STATUS-8).

Theory of operation: sending the trailer is a MAY, but one that is sent says something a log
or monitor will believe, so the check judges it when it is there: it must be announced with
`Trailer: Batch-Summary` ("A server that sends it announces it"), and its counts must be the
parts' ("`ok` counts parts that ran with a status below 400 and no `Batch-Outcome`, `failed`
those that ran with 400 or above and no `Batch-Outcome`, and `skipped` and `rolled-back` the
parts with those outcomes"). A batch that ran every part and, with the error-policy profile,
one that stopped are both counted; the request says `TE: trailers`. Without the trailer the check
is N/A.
"""

from __future__ import annotations

import re

from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

#: One member of an sf-dictionary of integers (RFC 9651 §3.2), as Batch-Summary uses it.
MEMBER = re.compile(r"\s*([a-z*][a-z0-9_\-.*]*)\s*=\s*(-?[0-9]{1,15})\s*(?:;[^,]*)?\s*")


def _counts(value: str) -> dict[str, int] | None:
    out: dict[str, int] = {}
    for member in value.split(","):
        m = MEMBER.fullmatch(member)
        if m is None:
            return None
        out[m.group(1)] = int(m.group(2))
    return out


@checker(
    "batch-summary-trailer",
    ("MB-STATUS-8",),
    "A Batch-Summary trailer, when sent, is announced in Trailer and counts ok, failed and skipped parts correctly.",
    state=State.READ_ONLY,
)
def batch_summary_trailer(ctx: Context, judge: Judge) -> None:
    ok, nf = ok_and_not_found(ctx, judge)
    cases: list[tuple[list[SubRequest], tuple[tuple[str, str], ...], dict[str, int]]] = [
        ([ok, nf, ok], (), {"ok": 2, "failed": 1, "skipped": 0}),
    ]
    if ctx.target.claims("error-policy"):
        stop = (("Prefer", "batch-on-error=stop"),)
        cases.append(([ok, nf, ok, ok], stop, {"ok": 1, "failed": 1, "skipped": 2}))
    seen = False
    for subs, headers, want in cases:
        # RFC 9110 §6.5.1: a server sends trailer fields a client said it accepts (TE: trailers).
        resp = ctx.batch(judge, subs, headers=(("TE", "trailers"), *headers))
        expect_processed(ctx, judge, resp, [s.content_id for s in subs])
        values = [v for n, v in resp.trailers if n.lower() == "batch-summary"]
        if not values:
            continue
        seen = True
        announced = [v.strip().lower() for v in ",".join(resp.get_all("Trailer")).split(",")]
        judge.expect_true(
            "Trailer announces Batch-Summary",
            "batch-summary" in announced,
            repr(resp.get_all("Trailer")),
            "Trailer: Batch-Summary",
        )
        counts = _counts(",".join(values))
        judge.require_true(
            "Batch-Summary is a dictionary of integers",
            counts is not None,
            repr(values),
            "ok=N, ...",
        )
        assert counts is not None
        for name, n in want.items():
            judge.expect(
                f"Batch-Summary {name} with {dict(headers) or 'no Prefer'}", counts.get(name), {n}
            )
    if not seen:
        judge.not_applicable("the target sends no Batch-Summary trailer")
