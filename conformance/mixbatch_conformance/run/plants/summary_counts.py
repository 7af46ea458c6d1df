"""Planted counting rules narrower than spec 5.5's, in the Batch-Summary trailer and the JSON
summary (MB-STATUS-15, MB-MULTI-4).

Spec 5.5: "`ok` counts parts that ran with a status below 400 and no `Batch-Outcome`, `failed`
those that ran with 400 or above". A server that wrote its rule from the statuses it met most
(200 and 404) counts those right and the rest wrong. Each plant counts the answer as such a
server does: `ok` for 2xx alone and `failed` for every other part that ran (a 304, a 302
failed); `failed` for 4xx alone and `ok` for the rest (a 503 ok); parts answered without
content (204, 304) left out; the test turned round (`failed` above 400), so a 400 counts ok. The trailer plants write the field the relay puts in the trailer
section (`TRAILER_PREFIX`), announced; the JSON plants rewrite the document's `summary`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mixbatch_conformance.run.mutations import FieldList, Mutation
from mixbatch_conformance.run.plants._edits import (
    boundary_of,
    field_of,
    is_batch,
    map_json,
    parts_of,
)
from mixbatch_conformance.transport.relay import TRAILER_PREFIX, RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: A narrow rule: the member a part that ran with this status is counted in (None: none).
Rule = Callable[[int], str | None]


def _ok_only_2xx(status: int) -> str | None:
    return "ok" if 200 <= status < 300 else "failed"


def _failed_only_4xx(status: int) -> str | None:
    return "failed" if 400 <= status < 500 else "ok"


def _bodyless_uncounted(status: int) -> str | None:
    if status in (204, 304):
        return None
    return "failed" if status >= 400 else "ok"


def _failed_above_400(status: int) -> str | None:
    return "failed" if status > 400 else "ok"


def _count(outcomes: list[tuple[str | None, int]], rule: Rule) -> dict[str, int]:
    counts = {"ok": 0, "failed": 0, "skipped": 0, "rolled-back": 0}
    for outcome, status in outcomes:
        member = outcome if outcome is not None else rule(status)
        if member in counts:
            counts[member] += 1
    return counts


def _status(fields: FieldList) -> int:
    value = field_of(fields, "Http-Status-Code") or ""
    return int(value) if value.isdigit() else 0


def _trailer(rule: Rule) -> Callable[[RelayRequest, RelayResponse], None]:
    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        b = boundary_of(resp)
        parts = parts_of(resp.body, b) if b and is_batch(req) else None
        if parts is None:
            return
        outcomes = [(field_of(f, "Batch-Outcome"), _status(f)) for f, _ in parts]
        value = ", ".join(f"{k}={n}" for k, n in _count(outcomes, rule).items())
        resp.headers.append((TRAILER_PREFIX + "Batch-Summary", value))
        resp.set("Trailer", "Batch-Summary")

    return edit


def _json(rule: Rule) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        entries = doc.get("responses")
        if not isinstance(entries, list) or not isinstance(doc.get("summary"), dict):
            return
        outcomes: list[tuple[str | None, int]] = []
        for e in entries:
            if isinstance(e, dict):
                status = e.get("status")
                outcomes.append((e.get("outcome"), status if isinstance(status, int) else 0))
        doc["summary"] = {k.replace("-", "_"): n for k, n in _count(outcomes, rule).items()}

    return edit


_TRAILER = ("batch-summary-trailer",)
_JSON = ("multistatus-json-summary",)
P = Mutation
PLANTS: tuple[Mutation, ...] = (
    P(
        "summary-trailer-ok-only-2xx",
        "MB-STATUS-15 a trailer counting only 2xx parts ok, a 304 or 302 failed",
        _TRAILER,
        on_response=_trailer(_ok_only_2xx),
    ),
    P(
        "summary-trailer-failed-only-4xx",
        "MB-STATUS-15 a trailer counting only 4xx parts failed, a 503 ok",
        _TRAILER,
        on_response=_trailer(_failed_only_4xx),
    ),
    P(
        "summary-trailer-bodyless-parts-uncounted",
        "MB-STATUS-15 a trailer leaving 204 and 304 parts out of ok",
        _TRAILER,
        on_response=_trailer(_bodyless_uncounted),
    ),
    P(
        "summary-trailer-400-counted-ok",
        "MB-STATUS-15 a trailer counting a 400 part ok, failed only above 400",
        _TRAILER,
        on_response=_trailer(_failed_above_400),
    ),
    P(
        "json-summary-ok-only-2xx",
        "MB-MULTI-4 a JSON summary counting only 2xx entries ok, a 304 or 302 failed",
        _JSON,
        on_response=map_json(_json(_ok_only_2xx)),
    ),
    P(
        "json-summary-failed-only-4xx",
        "MB-MULTI-4 a JSON summary counting only 4xx entries failed, a 503 ok",
        _JSON,
        on_response=map_json(_json(_failed_only_4xx)),
    ),
)
