"""A planted budget of batches in flight that refuses requests that are not batches (spec 9.1,
9.2: MB-LIMIT-2).

    options-counted-in-flight        the budget taken at the top of the batch endpoint for every
                                     method: while it is full, OPTIONS (and GET, HEAD, DELETE)
                                     of the endpoint are answered 503 with Retry-After instead
                                     of 200 with the capabilities document (or 405)

A 503 to another request while the server is loaded is no fault (RFC 9110 §15.6.4 lets any
overloaded server shed a request), so only OPTIONS is planted against.

The relay counts the batches it has forwarded and not yet answered; while they number
`BUSY_AT`, the reference server's published `max_batches_in_flight`, a request of the kind
planted is answered 503 with Retry-After and a problem document in place of the server's
answer. Batches themselves pass untouched: the reference server refuses the one beyond its
budget on its own.
"""

from __future__ import annotations

from collections.abc import Callable

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import BATCH_PATH, is_batch
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: The reference server's published max_batches_in_flight.
BUSY_AT = 8
BUSY_BODY = (
    b'{"type": "https://mixbatch.dev/problems/busy", "title": "Too many batches in flight",'
    b' "status": 503, "limit": "max_batches_in_flight"}'
)


def _path(req: RelayRequest) -> str:
    return req.target.split("?", 1)[0]


class _Budget:
    """Batches forwarded and not yet answered; a request `refused` matches while they number
    `BUSY_AT` or more is answered 503."""

    def __init__(self, refused: Callable[[RelayRequest], bool]) -> None:
        self.refused = refused
        self.in_flight = 0

    def request(self, req: RelayRequest) -> None:
        if is_batch(req):
            self.in_flight += 1

    def response(self, req: RelayRequest, resp: RelayResponse) -> None:
        if is_batch(req):
            self.in_flight -= 1
            return
        if self.in_flight >= BUSY_AT and self.refused(req):
            resp.status = 503
            resp.headers = [
                ("Content-Type", "application/problem+json"),
                ("Retry-After", "1"),
            ]
            resp.body = BUSY_BODY


def _at_endpoint(req: RelayRequest) -> bool:
    return _path(req) == BATCH_PATH


_ENDPOINT = _Budget(_at_endpoint)

PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "options-counted-in-flight",
        "MB-LIMIT-2 OPTIONS of the batch endpoint refused while the budget of batches is full",
        ("budget-full-non-batches-answered-as-idle",),
        on_request=_ENDPOINT.request,
        on_response=_ENDPOINT.response,
    ),
)
