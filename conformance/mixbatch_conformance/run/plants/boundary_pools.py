"""A planted boundary source that runs dry (MB-WIRE-5).

boundary-pool-never-refilled   the response boundaries are cut in turn from one pool of
                               random octets drawn at start and never refilled: each is
                               random, consecutive ones differ, and after `POOL` of them
                               the pool starts over, so boundaries repeat
"""

from __future__ import annotations

import itertools
import secrets

from mixbatch_conformance.run.mutations import Mutation, write_parts
from mixbatch_conformance.run.plants._edits import boundary_of, is_batch, parts_of
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: Boundaries the planted pool holds before it starts over.
POOL = 128
_BOUNDARIES = itertools.cycle([f"plant-pool-{secrets.token_urlsafe(18)}" for _ in range(POOL)])


def _boundary_from_pool(req: RelayRequest, resp: RelayResponse) -> None:
    b = boundary_of(resp)
    parts = parts_of(resp.body, b) if b else None
    if not is_batch(req) or parts is None:
        return
    drawn = next(_BOUNDARIES)
    resp.set("Content-Type", f"multipart/mixed; boundary={drawn}")
    resp.body = write_parts(parts, drawn)


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "boundary-pool-never-refilled",
        "MB-WIRE-5 response boundaries drawn again from a pool of 128",
        ("response-boundaries-fresh-over-many",),
        caught_by=("WARN", "FAIL"),
        on_response=_boundary_from_pool,
    ),
)
