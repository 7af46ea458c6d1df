"""Planted violations of MB-INTER-4 under batch requests other than the plain one.

    credentialed-batch-private           a batch request carrying Authorization or Cookie is
                                         answered with Cache-Control: private in place of
                                         no-transform (a server that marks answers to
                                         credentialed requests private, RFC 9111 §5.2.2.7, and
                                         drops the directive it wrote before)
    http10-batch-without-no-transform    a batch sent over HTTP/1.0 is answered without
                                         no-transform (a writer for HTTP/1.0 that never learnt
                                         the field)
    chunked-batch-without-no-transform   a batch whose content came chunked is answered without
                                         no-transform (the streaming reader's own writer)

Each edits the batch response (200 or 207) only; refusals of the whole batch, which spec 10
says are not batch responses, are left as the server wrote them.
"""

from __future__ import annotations

from collections.abc import Callable

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import field_of
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]


def _batch_post(req: RelayRequest) -> bool:
    return req.method == "POST" and (req.get("Content-Type") or "").lower().startswith("multip")


def _cache_control(
    when: Callable[[RelayRequest], bool], value: str | None
) -> Callable[[RelayRequest, RelayResponse], None]:
    """Replace the batch response's Cache-Control with `value` (None: drop it) when `when`."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        if not _batch_post(req) or not when(req) or resp.status not in (200, 207):
            return
        resp.headers = [(n, v) for n, v in resp.headers if n.lower() != "cache-control"]
        if value is not None:
            resp.headers.append(("Cache-Control", value))

    return edit


def _credentialed(req: RelayRequest) -> bool:
    return field_of(req.headers, "Authorization") is not None or (
        field_of(req.headers, "Cookie") is not None
    )


CATCHERS = ("no-transform-under-request-variants",)
PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "credentialed-batch-private",
        "MB-INTER-4 a batch with Authorization or Cookie answered Cache-Control: private alone",
        CATCHERS,
        caught_by=("WARN", "FAIL"),
        on_response=_cache_control(_credentialed, "private"),
    ),
    Mutation(
        "http10-batch-without-no-transform",
        "MB-INTER-4 a batch sent over HTTP/1.0 answered without no-transform",
        CATCHERS,
        caught_by=("WARN", "FAIL"),
        on_response=_cache_control(lambda req: req.version == "1.0", None),
    ),
    Mutation(
        "chunked-batch-without-no-transform",
        "MB-INTER-4 a batch whose content came chunked answered without no-transform",
        CATCHERS,
        caught_by=("WARN", "FAIL"),
        on_response=_cache_control(lambda req: bool(req.chunks), None),
    ),
)
