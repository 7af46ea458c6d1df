"""The largest count of random octets a target's random resource serves alone.

Theory of operation: checks that need an answer larger than the socket buffers (so that the
server is still writing when the client leaves) ask the random resource for a large count.
MB-TEST-5 has it answer "with 200 and exactly *n* octets of content, for every *n* up to the
largest it accepts, and with a 4xx status for any larger *n*", so the largest of the counts a
check offers that it answers 200 alone is learnt from the head of that answer, without reading
its content.
"""

from __future__ import annotations

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.transport.http import HeadFirst

__all__ = ["largest_served"]


def largest_served(
    ctx: Context, judge: Judge, template: str, counts: tuple[int, ...]
) -> int | None:
    """The first of `counts` (largest first) whose GET of the random resource `template`
    alone is answered 200, each refusal noted; None when none is."""
    for n in counts:
        request = ctx.raw_request("GET", ctx.path(template.replace("{n}", str(n))))
        alone = HeadFirst(ctx.host, ctx.port, request, ctx.timeout, ctx.tls)
        alone.close()
        # MB-TEST-5: "with 200 and exactly *n* octets of content, for every *n* up to the
        # largest it accepts, and with a 4xx status for any larger *n*".
        if alone.status == 200:
            return n
        judge.note(f"GET of {n} random octets alone answered {alone.status or alone.error}")
    return None
