"""Planted violations of the fields every batch response carries, met in one kind of batch
only: the suite judges `Vary` (MB-MULTI-10) and `Cache-Control: no-transform` (MB-INTER-4) on
every batch response it receives, whichever check sent the batch.

    vary-withheld-from-http10           a batch sent over HTTP/1.0 is answered without Vary (a
                                        writer that keeps Vary from HTTP/1.0 caches)
    vary-star-under-stop                a batch under batch-on-error=stop is answered Vary: *
                                        (a policy taken as one more input caches cannot name)
    vary-withheld-from-atomic           an atomic batch's answer carries no Vary (the atomic
                                        writer's own header section)
    no-transform-withheld-pipelined     a batch that arrives behind another on one connection is
                                        answered without no-transform (a pipelined writer's own
                                        header section)

Each edits a batch response (200 or 207) only.
"""

from __future__ import annotations

from collections.abc import Callable

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import field_of, is_batch, without_field
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]


def _set_field(
    name: str, value: str | None, when: Callable[[RelayRequest], bool]
) -> Callable[[RelayRequest, RelayResponse], None]:
    """Replace the batch response's `name` field with `value` (None: drop it) when `when`."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        if not is_batch(req) or not when(req) or resp.status not in (200, 207):
            return
        resp.headers = without_field(resp.headers, name)
        if value is not None:
            resp.headers.append((name, value))

    return edit


def _under_stop(req: RelayRequest) -> bool:
    return "batch-on-error=stop" in (field_of(req.headers, "Prefer") or "").replace(" ", "")


def _atomic(req: RelayRequest) -> bool:
    return "atomic" in (field_of(req.headers, "Batch-Mode") or "")


def _behind_another(req: RelayRequest) -> bool:
    """Whether a batch came before this one on its connection."""
    seen = req.connection.get("batches", 0)
    assert isinstance(seen, int)
    req.connection["batches"] = seen + 1
    return seen > 0


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "vary-withheld-from-http10",
        "MB-MULTI-10 a batch sent over HTTP/1.0 answered without Vary",
        ("http10-batch-in-every-form",),
        caught_by=("WARN", "FAIL"),
        on_response=_set_field("Vary", None, lambda req: req.version == "1.0"),
    ),
    Mutation(
        "vary-star-under-stop",
        "MB-MULTI-10 a batch under batch-on-error=stop answered Vary: *",
        ("error-policy-stop-failing-edges",),
        caught_by=("WARN", "FAIL"),
        on_response=_set_field("Vary", "*", _under_stop),
    ),
    Mutation(
        "vary-withheld-from-atomic",
        "MB-MULTI-10 an atomic batch answered without Vary",
        ("atomic-failure-outcomes",),
        caught_by=("WARN", "FAIL"),
        on_response=_set_field("Vary", None, _atomic),
    ),
    Mutation(
        "no-transform-withheld-pipelined",
        "MB-INTER-4 a batch behind another on its connection answered without no-transform",
        ("pipelining-in-order",),
        caught_by=("WARN", "FAIL"),
        on_response=_set_field("Cache-Control", "no-cache", _behind_another),
    ),
)
