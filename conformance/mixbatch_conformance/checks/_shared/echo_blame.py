"""Which requirement an echo part that describes other octets than those sent breaks, learnt
from the same request sent alone (MB-PART-8, MB-TEST-2)."""

from __future__ import annotations

from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.echo import read_echo
from mixbatch_conformance.core.judge import Judge

__all__ = ["blame_echo"]


def blame_echo(ctx: Context, judge: Judge, sub: SubRequest, seen: bytes) -> None:
    """Name the requirement an echo part's description of other octets than those sent
    breaks, learnt from the same request sent alone.

    MB-PART-8: "the part body is its content", so the echo resource received the octets sent,
    unless the server changed them on the way in; MB-TEST-2: the echo describes the content
    it received in `body`, "the content as a string when its octets are valid UTF-8", or in
    `body_base64`. When the same request alone is described with other octets too, the
    description is what is wrong (MB-TEST-2), whatever reached the resource; when alone it
    is described right, the part delivered other content (MB-PART-8)."""
    answer = ctx.alone(judge, sub)
    alone = read_echo(answer.body)
    # A standalone request the server refuses (its own size policy, which the spec leaves
    # free) says nothing of the echo's descriptions: the part alone is blamed.
    refused = 400 <= answer.status < 500
    alone_right = refused or (alone is not None and alone.body == sub.body)
    shown = f"{len(seen)} octets, different"
    if not alone_right:
        judge.expect_true(
            f"echo of {len(sub.body)} octets, alone as in a part",
            False,
            f"{shown}; alone: {'unreadable' if alone is None else f'{len(alone.body)} octets'}",
            f"the {len(sub.body)} octets sent, described as received",
            "MB-TEST-2",
        )
    if alone_right or (alone is not None and alone.body != seen):
        judge.expect_true(
            f"echo of {len(sub.body)} octets",
            False,
            shown,
            f"the {len(sub.body)} octets sent",
            "MB-PART-8",
        )
