"""Planted violation of what a rollback may touch (spec 7.5, MB-PROC-15): an atomic batch that
does not commit leaves no effect, on the resources it wrote and on every other.

    rollback-drops-read-only-collection  the rollback puts back a snapshot of the writable
                                         collections alone, so a read-only collection is gone
                                         from the store; the next read of it, answered 404,
                                         loads it again from its source (MB-PROC-15)

The relay's reference server keeps its empty collection at /collections/empty. The loss lasts
for one read, so a check that reads the collection before an atomic batch, and again after it,
sees it each time it runs.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import is_batch, problem
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: The reference server's read-only empty collection.
READ_ONLY_COLLECTION = "/collections/empty"
#: A rolled-back part's field line in a multipart answer.
_ROLLED_BACK = re.compile(rb"(?im)^batch-outcome:[ \t]*rolled-back[ \t]*\r?$")
#: Whether the last atomic batch rolled back and the collection was not read since.
_LOST: dict[str, bool] = {}


def _drops_collection(req: RelayRequest, resp: RelayResponse) -> None:
    if is_batch(req):
        if _ROLLED_BACK.search(resp.body):
            _LOST[READ_ONLY_COLLECTION] = True
        return
    read = req.method in ("GET", "HEAD") and urlsplit(req.target).path == READ_ONLY_COLLECTION
    if read and _LOST.pop(READ_ONLY_COLLECTION, False):
        problem(resp, 404, "MB-PROC-15")


PLANTS: tuple[Mutation, ...] = (
    # MB-PROC-15: "No other request observes ... any effect of an atomic batch that does not
    # commit."
    Mutation(
        "rollback-drops-read-only-collection",
        "MB-PROC-15 a rolled-back atomic batch loses a read-only collection",
        ("atomic-failure-undoes-writes",),
        on_response=_drops_collection,
    ),
)
