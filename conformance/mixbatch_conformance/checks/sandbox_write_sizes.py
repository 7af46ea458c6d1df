"""Sandbox writes of every size get in a part what they get alone (spec 3.2.4, 8.1, MB-SUB-1).

Theory of operation: MB-SUB-1 runs a sub-request through "the same checks" the same request
alone meets, and a resource's own bound on what it stores is one of them. A server that checks
such a bound where standalone requests arrive (its HTTP front, a body-size filter), and not in
the resource, lets a part store what the resource refuses alone; one that checks it only on the
batch path refuses in a part what the resource stores alone. The check writes the target's
`sandbox.member` document, one string member padded, at sizes either side of the bounds stores
commonly set (64 KiB, 1 MiB, 4 MiB), first alone and then as the one part of a batch, and
expects the part's status to be the one the request alone got. A size over the published
`max_part_bytes` or `max_batch_bytes` is not sent (MB-LIMIT-3). What a size is answered is the
resource's choice; only the agreement is judged.
"""

from __future__ import annotations

import json

from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

#: Content sizes written: either side of 64 KiB, 1 MiB and 4 MiB.
SIZES = tuple(n + d for n in (64 * 1024, 1024 * 1024, 4 * 1024 * 1024) for d in (-1, 1))
#: Octets a part's header section and the batch's delimiters add to its content, at most.
OVERHEAD = 1024


def _padded(ctx: Context, judge: Judge, size: int, tag: str) -> bytes:
    """The sandbox member document with its first string member padded to `size` octets."""
    member = ctx.target.sandbox_member
    if member is None:
        judge.not_applicable("the target declares no sandbox.member document to write")
    key = next((k for k, v in member.items() if isinstance(v, str)), None)
    if key is None:
        judge.not_applicable("sandbox.member has no string member to pad")
    doc = {**member, key: f"mb-suite-size-{tag}-"}
    short = len(json.dumps(doc).encode())
    if short > size:
        judge.not_applicable(f"sandbox.member is longer than {size} octets")
    doc[key] += "x" * (size - short)
    return json.dumps(doc).encode()


@checker(
    "sandbox-write-sizes-as-alone",
    ("MB-SUB-1",),
    "A POST of the sandbox member document padded to either side of 64 KiB, 1 MiB and 4 MiB gets, as the one part of a batch, the status the same POST alone gets.",
    state=State.WRITES_IN_SANDBOX,
    tier="standard",
)
def sandbox_write_sizes_as_alone(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    part_limit = ctx.limit("max_part_bytes")
    batch_limit = ctx.limit("max_batch_bytes")
    judged = 0
    for size in SIZES:
        if (part_limit is not None and size + OVERHEAD > part_limit) or (
            batch_limit is not None and size + OVERHEAD > batch_limit
        ):
            judge.note(f"{size} octets: over a published limit, not sent")
            continue
        fields = (("Content-Type", "application/json"),)
        alone = ctx.alone(judge, SubRequest("POST", coll, fields, _padded(ctx, judge, size, "a")))
        sub = SubRequest("POST", coll, fields, _padded(ctx, judge, size, "p"))
        env = expect_processed(ctx, judge, ctx.batch(judge, [sub]), [sub.content_id])
        # MB-SUB-1: "the same checks ... as the same request sent alone": the resource's bound
        # on what it stores answers a part as it answers the request alone.
        judge.expect(
            f"POST of {size} octets: part status as alone",
            part_status(env, 0),
            {alone.status},
            "MB-SUB-1",
        )
        judged += 1
    if not judged:
        judge.not_applicable("every size is over a published limit")
