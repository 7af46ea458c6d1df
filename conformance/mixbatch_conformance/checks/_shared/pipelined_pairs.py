"""A request pipelined ahead of another, answered first and as it is answered alone (spec 11)."""

from __future__ import annotations

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.transport.http import Exchange, Response

__all__ = ["leader_answered_first"]


def leader_answered_first(
    ctx: Context, judge: Judge, label: str, pair: tuple[bytes, bytes], alone: int, wait: float
) -> tuple[Response | None, Exchange]:
    """`pair` (a leader and the request behind it) pipelined on a connection of its own, each
    read waiting `wait` seconds at most: the leader's answer, None unless it is the status
    `alone` the leader gets alone, and the exchange of the request behind it.

    MB-PIPE-1: "answer pipelined requests on a connection ... in the order it received them":
    the request ahead is answered, as alone, before the one behind it."""
    first, second = ctx.send_many_within(judge, list(pair), wait)
    got = first.response
    held = judge.expect(
        f"{label}: its answer",
        got.status if got is not None else f"none ({first.error})",
        {alone},
        "MB-PIPE-1",
    )
    return (got if held else None), second
