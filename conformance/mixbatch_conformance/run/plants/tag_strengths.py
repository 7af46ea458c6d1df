"""Planted evaluations of If-Match that ignore the strength of the current tag.

RFC 9110 §13.1.1 evaluates If-Match by the strong comparison, which §8.8.3.2 grants only when
"both entity tags are not weak": a representation whose tag is weak fails every If-Match with a
tag, its strong spelling included. A server that checks only the client's tag for `W/` matches
the strong spelling of its own weak tag. The relay's reference server sends strong tags, so each
plant models such a server by weakening the ETag a standalone GET answers (the tag a client
learns), while the server behind it still matches the strong spelling: on the etag resource,
whose parts are then judged (MB-PROC-9), and on collection retrievals, which MB-METHOD-7 makes
weak wherever the boundary is random (MB-STATUS-7).
"""

from __future__ import annotations

from collections.abc import Callable

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import is_batch
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: The reference server's etag resource, a book.
ETAG_RESOURCE = "/books/1"


def _weakened(
    chosen: Callable[[RelayRequest], bool],
) -> Callable[[RelayRequest, RelayResponse], None]:
    """A response edit that gives the chosen standalone GETs and HEADs their ETag in W/ form."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        if is_batch(req) or req.method not in ("GET", "HEAD") or not chosen(req):
            return
        resp.headers = [
            (n, f"W/{v.strip()}" if n.lower() == "etag" and not v.strip().startswith("W/") else v)
            for n, v in resp.headers
        ]

    return edit


def _etag_resource(req: RelayRequest) -> bool:
    return req.target.split("?")[0] == ETAG_RESOURCE


def _retrieval(req: RelayRequest) -> bool:
    return "multipart" in (req.get("Accept") or "").lower()


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "if-match-ignores-weak-current-tag",
        "MB-PROC-9 If-Match matched by the strong spelling of a weak current tag",
        ("entity-tag-strength-compared",),
        on_response=_weakened(_etag_resource),
    ),
    Mutation(
        "collection-if-match-ignores-weak-aggregate-tag",
        "MB-STATUS-7 If-Match on a retrieval matched by the strong spelling of its weak tag",
        ("collection-tag-strength-compared",),
        on_response=_weakened(_retrieval),
    ),
)
