"""The collections a target declares, as the collection checks walk them."""

from __future__ import annotations

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge

__all__ = ["declared_collections"]

#: The roles that name a collection (target.schema.json).
COLLECTION_ROLES = ("collection", "empty_collection", "sandbox_collection")


def declared_collections(ctx: Context, judge: Judge) -> list[str]:
    """The paths of the collections the target declares, each once; N/A when it declares none."""
    paths = [ctx.path(p) for p in dict.fromkeys(map(ctx.target.resource, COLLECTION_ROLES)) if p]
    if not paths:
        judge.not_applicable("the target declares no collection")
    return paths
