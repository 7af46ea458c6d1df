"""Work split into batches the target's published `max_parts` admits (spec 9.1, MB-LIMIT-3)."""

from __future__ import annotations

from collections.abc import Sequence

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge

__all__ = ["within_max_parts"]


def within_max_parts[T](
    ctx: Context, judge: Judge, items: Sequence[T], per_item: int = 1
) -> list[list[T]]:
    """`items` in runs whose batches, `per_item` parts for each item, stay within the published
    `max_parts` (all in one run when none is published); N/A when one item's parts exceed it.

    MB-LIMIT-3: "A client that knows a server's limits MUST NOT send a batch that exceeds them;
    it splits the work into several batches instead": a batch over `max_parts` is answered 413
    (MB-LIMIT-1) whatever its parts are.
    """
    limit = ctx.limit("max_parts")
    if limit is None:
        return [list(items)] if items else []
    if limit < per_item:
        judge.not_applicable(
            f"the published max_parts {limit} is fewer than the {per_item} parts one step needs"
        )
    room = limit // per_item
    return [list(items[i : i + room]) for i in range(0, len(items), room)]
