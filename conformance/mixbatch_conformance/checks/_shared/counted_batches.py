"""Batches whose parts answer every class of status, with the counts spec 5.5 gives them.

Spec 5.5: "`ok` counts parts that ran with a status below 400 and no `Batch-Outcome`, `failed`
those that ran with 400 or above and no `Batch-Outcome`, and `skipped` and `rolled-back` the
parts with those outcomes". A count taken over 200 and 404 parts alone cannot tell that rule
from "ok is 2xx" or "failed is 4xx", so these batches hold a 304 (a GET of `ok` with
`If-None-Match: *`, with the conditional profile: RFC 9110 §13.1.2, the field is false for a
resource that has a current representation, and a false If-None-Match on a GET is answered
304), a 204, a 302 and a 307 from the status resource (MB-TEST-6: "with that status, with no
content for 204 and 304"), a 1xx the status resource refuses ("any other code (a 1xx ...) with
400 or 404", a failure either way) and a 503; the plain batch also holds a 399 and a 400, the
two codes either side of the line the spec draws. Each batch's counts are fixed by the spec alone,
in the trailer's spelling: the plain policy runs every part; stop ends at the first part that
fails (spec 7.4: "A part **fails** when its status is 400 or above", MB-PROC-6), the rest
skipped; an atomic batch with no failing part commits every part, and one with a failing part
marks the parts before it rolled-back and skips those after it (MB-PROC-8).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge

__all__ = ["COUNTED", "CountedBatch", "counted_batches"]

#: The members of spec 5.5, in the trailer's spelling.
COUNTED = ("ok", "failed", "skipped", "rolled-back")


@dataclass(frozen=True, slots=True)
class CountedBatch:
    """A batch, the mode it is sent in and the counts the spec gives its answer."""

    what: str
    profiles: tuple[str, ...]
    headers: tuple[tuple[str, str], ...]
    subs: list[SubRequest]
    counts: dict[str, int] = field(default_factory=dict)


def counted_batches(ctx: Context, judge: Judge) -> list[CountedBatch]:
    """The batches the target's status resource allows (none without one)."""
    template = ctx.target.resource("status")
    if not template:
        return []
    ok = ctx.path(ctx.resource(judge, "ok"))

    def code(n: int) -> SubRequest:
        return SubRequest("GET", ctx.path(template.replace("{code}", str(n))))

    # A GET of ok with If-None-Match: *, answered 304, where conditionals are offered.
    unmodified = (
        [SubRequest("GET", ok, (("If-None-Match", "*"),))]
        if ctx.target.claims("conditional")
        else []
    )
    n = len(unmodified)
    ran = [*unmodified, code(204), code(302), code(307)]
    stop = (("Prefer", "batch-on-error=stop"),)
    atomic = (("Batch-Mode", "atomic"),)

    def counts(ok: int = 0, failed: int = 0, skipped: int = 0, rolled: int = 0) -> dict[str, int]:
        return {"ok": ok, "failed": failed, "skipped": skipped, "rolled-back": rolled}

    return [
        CountedBatch(
            # 399 and 400 stand either side of the line spec 5.5 draws ("below 400").
            "plain: 304, 204, 302, 307, 399, 1xx, 400, 503, 200",
            (),
            (),
            [*ran, code(399), code(100), code(400), code(503), SubRequest("GET", ok)],
            counts(ok=n + 5, failed=3),
        ),
        CountedBatch(
            "stop at a 1xx: 304, 204, 302, 307, 1xx, 503, 200",
            ("error-policy",),
            stop,
            [*ran, code(100), code(503), SubRequest("GET", ok)],
            counts(ok=n + 3, failed=1, skipped=2),
        ),
        CountedBatch(
            "stop at a 503: 302, 503, 1xx",
            ("error-policy",),
            stop,
            [code(302), code(503), code(100)],
            counts(ok=1, failed=1, skipped=1),
        ),
        CountedBatch(
            "atomic, committed: 304, 204, 302, 307, 200",
            ("atomic",),
            atomic,
            [*ran, SubRequest("GET", ok)],
            counts(ok=n + 4),
        ),
        CountedBatch(
            "atomic, rolled back at a 1xx: 304, 204, 302, 307, 1xx, 503",
            ("atomic",),
            atomic,
            [*ran, code(100), code(503)],
            counts(failed=1, skipped=1, rolled=n + 3),
        ),
        CountedBatch(
            "atomic, rolled back at a 503: 307, 503, 1xx",
            ("atomic",),
            atomic,
            [code(307), code(503), code(100)],
            counts(failed=1, skipped=1, rolled=1),
        ),
    ]
