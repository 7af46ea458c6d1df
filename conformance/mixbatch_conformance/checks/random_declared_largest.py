"""The random resource at the largest n its target declares (spec 14.4, MB-TEST-5).

Theory of operation: MB-TEST-5 asks the `random` resource for "200 and exactly *n* octets of
content, for every *n* up to the largest it accepts, and with a 4xx status for any larger *n*".
Asked from outside, that largest n is whatever the resource first refuses, so a resource whose
bound is one short (a `<` written for a `<=`) looks as right as one that serves it: the other
random checks leave out every count from the first refused one on. A target description that
declares the largest n (`random_max_n`) fixes the edge: the resource then serves that n, the
declared n itself included, and refuses the next with a 4xx.

`random-sizes-at-declared-largest` asks, where the target declares `random_max_n`, for 0, 1
and that n, each alone (200 with exactly n octets, MB-TEST-5) and then all as the parts of one
batch, and for the n after it alone (a 4xx, MB-TEST-5). A part must carry what the resource
answered alone: 200 and n octets as its part body (MB-RESP-4: "its content as the part body");
where the resource alone answered otherwise, a part that does too is the resource's doing
(MB-TEST-5). A count over the published `max_part_bytes` is sent alone only, so that a server
keeping its part bodies within its own published bound is not asked past it. The declared n may
be several MiB; it is asked for twice, which costs well under a second on loopback.
"""

from __future__ import annotations

from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

#: The smallest counts, asked beside the declared largest: "every *n* up to the largest it
#: accepts" begins at zero.
SMALLEST = (0, 1)


def _get(ctx: Context, template: str, n: int) -> SubRequest:
    return SubRequest("GET", ctx.path(template.replace("{n}", str(n))))


@checker(
    "random-sizes-at-declared-largest",
    ("MB-TEST-5", "MB-RESP-4"),
    "Where the target declares random_max_n, the random resource answers 0, 1 and that n with 200 and exactly n octets, alone and as parts of one batch, and the n after it with a 4xx.",
    state=State.READ_ONLY,
)
def random_sizes_at_declared_largest(ctx: Context, judge: Judge) -> None:
    template = ctx.resource(judge, "random")
    largest = ctx.target.random_max_n
    if largest is None:
        judge.not_applicable("the target declares no random_max_n, the largest n it serves")
    # Only counts the declaration covers: a server may declare a random_max_n of 0.
    counts = sorted({*(n for n in SMALLEST if n <= largest), largest})
    served: dict[int, bool] = {}
    for n in counts:
        resp = ctx.alone(judge, _get(ctx, template, n))
        # MB-TEST-5: "MUST answer a `GET` of that resource for a count *n* with 200 and exactly
        # *n* octets of content, for every *n* up to the largest it accepts"; "a server whose
        # description declares it MUST answer every *n* up to and including it as above".
        ok = judge.expect(f"GET {n} alone status", resp.status, {200}, "MB-TEST-5")
        ok = judge.expect(f"GET {n} alone octets", len(resp.body), {n}, "MB-TEST-5") and ok
        served[n] = ok
    over = ctx.alone(judge, _get(ctx, template, largest + 1))
    # MB-TEST-5: "and any larger *n* with a 4xx status".
    judge.expect(
        f"GET {largest + 1} alone (one over the declared random_max_n {largest})",
        over.status,
        set(range(400, 500)),
        "MB-TEST-5",
        allowed_text="a 4xx status",
    )
    part_limit = ctx.limit("max_part_bytes")
    in_parts = [n for n in counts if part_limit is None or n <= part_limit]
    subs = [_get(ctx, template, n) for n in in_parts]
    env = expect_processed(ctx, judge, ctx.batch(judge, subs), [s.content_id for s in subs])
    for i, n in enumerate(in_parts):
        status = part_status(env, i)
        length = len(env.parts[i].body) if i < len(env.parts) else None
        # MB-RESP-4: a part carries "its content as the part body", the content the resource
        # answered the same request alone with; where that answer was already not 200 with n
        # octets, the part repeats the resource's fault (MB-TEST-5).
        judge.expect_true(
            f"part GET {n}",
            status == 200 and length == n,
            f"{status} with {length} octets",
            f"200 with exactly {n} octets",
            "MB-RESP-4" if served[n] else "MB-TEST-5",
        )
