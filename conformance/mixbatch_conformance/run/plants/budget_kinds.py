"""Planted budgets of batches in flight applied to some kinds of batch only (spec 9.1:
MB-LIMIT-6).

A server that takes the budget on one path only lets the batches of the other kinds run beyond
it. Each plant is the relay as a server of its own: it counts the batches it has admitted and
not yet answered, and refuses one beyond `BUDGET` with 503, Retry-After and a problem document,
unforwarded, except for the kind it plants against:

    budget-exempts-multipart-accept    batches with Accept: multipart/mixed neither counted
                                       nor refused
    budget-exempts-xml-form            likewise batches asking for the XML 207 form
    budget-exempts-json-form           likewise batches asking for the JSON 207 form
    budget-exempts-stop-policy         likewise batches with Prefer: batch-on-error=stop
    budget-exempts-atomic-mode         likewise batches with Batch-Mode: atomic
    budget-exempts-references-mode     likewise batches with Batch-Mode: references
    budget-exempts-http10              likewise batches sent over HTTP/1.0
    budget-exempts-chunked-content     likewise batches whose content is framed chunked
    json-batches-hold-no-place         batches asking for the JSON form refused beyond the
                                       budget but not counted in it: a budget held by them
                                       lets batches of any other kind in
    json-batches-never-refused         batches asking for the JSON form counted in the
                                       budget but never refused: a budget held by the others
                                       lets them in

The budget is the reference server's published `max_batches_in_flight`, so the relay refuses
what the reference server would; a batch the relay admits that the reference server refuses
(it counts every batch) is held and sent again until it is taken, so that it runs beyond the
budget as it would on the server planted.
"""

from __future__ import annotations

import re

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import Pred, header_has, is_batch
from mixbatch_conformance.transport.relay import Behaviour, RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: The reference server's published max_batches_in_flight.
BUDGET = 8
CATCHERS = ("budget-holds-every-kind-of-batch",)
JSON_FORM = "application/vnd.mixbatch.multistatus+json"


class _KindBudget:
    """A budget of `BUDGET` batches in flight that counts the batches of the kind `kind`
    matches only when `counted`, and refuses them beyond the budget only when `refused`; every
    other batch is counted and refused as the budget says."""

    def __init__(self, kind: Pred, *, counted: bool = False, refused: bool = False) -> None:
        self.kind = kind
        self.counted = counted
        self.refused = refused
        #: The batches admitted and counted, by id, until they are answered.
        self.held: set[int] = set()

    def refuse(self, req: RelayRequest) -> bool:
        if not is_batch(req):
            return False
        planted = self.kind(req)
        if len(self.held) >= BUDGET and (self.refused or not planted):
            return True
        if self.counted or not planted:
            self.held.add(id(req))
        return False

    def response(self, req: RelayRequest, resp: RelayResponse) -> None:
        self.held.discard(id(req))


def _accepts(media: str) -> Pred:
    return header_has("Accept", rf"(?i)(^|[,\s]){re.escape(media)}\s*($|[,;])")


def _http10(req: RelayRequest) -> bool:
    return req.version == "1.0"


def _chunked(req: RelayRequest) -> bool:
    return bool(req.chunks)


def _plant(name: str, breaks: str, budget: _KindBudget) -> Mutation:
    # MB-LIMIT-6: "SHOULD bound the batches it holds in flight ... and SHOULD answer a batch
    # request beyond that budget with 503": a batch of every kind.
    return Mutation(
        name,
        f"MB-LIMIT-6 {breaks}",
        CATCHERS,
        caught_by=("WARN", "FAIL", "FLAKY"),
        on_response=budget.response,
        behaviour=Behaviour(queue_when_busy=True, refuse=budget.refuse),
    )


_EXEMPT: tuple[tuple[str, str, Pred], ...] = (
    ("multipart-accept", "Accept: multipart/mixed", _accepts("multipart/mixed")),
    ("xml-form", "Accept of the XML form", _accepts("application/xml")),
    ("json-form", "Accept of the JSON form", _accepts(JSON_FORM)),
    ("stop-policy", "batch-on-error=stop", header_has("Prefer", r"(?i)batch-on-error=stop")),
    ("atomic-mode", "Batch-Mode: atomic", header_has("Batch-Mode", r"(?i)\batomic\b")),
    (
        "references-mode",
        "Batch-Mode: references",
        header_has("Batch-Mode", r"(?i)\breferences\b"),
    ),
    ("http10", "HTTP/1.0", _http10),
    ("chunked-content", "chunked content", _chunked),
)

PLANTS: tuple[Mutation, ...] = (
    *(
        _plant(f"budget-exempts-{slug}", f"batches with {what} outside the budget", _KindBudget(p))
        for slug, what, p in _EXEMPT
    ),
    _plant(
        "json-batches-hold-no-place",
        "batches asking for the JSON form not counted in the budget",
        _KindBudget(_accepts(JSON_FORM), refused=True),
    ),
    _plant(
        "json-batches-never-refused",
        "batches asking for the JSON form never refused beyond the budget",
        _KindBudget(_accepts(JSON_FORM), counted=True),
    ),
)
