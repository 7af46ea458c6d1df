"""Planted violations of how a batch stops: the abort of a spent time budget (spec 5.4) and the
part at which the stop policy or an atomic batch stops (spec 7.4, 7.5).

Each is a mistake a competent implementer makes where two features meet:

    abort-before-first-part-answered-503   a server that sends nothing until the first part is
                                           answered, and so answers a batch whose budget ran out
                                           while its first part ran with a 503 problem document,
                                           though that part ran (MB-STATUS-12)
    spent-budget-under-stop-skips          under batch-on-error=stop, a spent time budget taken
                                           for a failing part: the running part and every later
                                           one written skipped, no abort part (MB-STATUS-6)
    running-part-answered-200-at-budget    the part still running when the time budget ends
                                           written Http-Status-Code: 200 with no content, the
                                           abort part moved after it or left out, a status
                                           its sub-request never produced (MB-RESP-2)
    running-part-answered-500-at-budget    the same part written as an ordinary failure, 500
                                           with a text body, where the budget's timer landed
                                           in the handler of a failing sub-request: the abort
                                           part names the part after it, or is left out when
                                           it was the last part (MB-STATUS-6)
    running-part-answered-504-at-budget    the same with 504, the timeout taken for a gateway's
                                           (MB-STATUS-6)
    last-part-abort-left-out               no abort part when the part the budget cut off is
                                           the last one, as a server that writes the abort only
                                           while parts are left to run (MB-STATUS-6)
    batch-stopped-before-declared-budget   a budget kept shorter than the one the target
                                           declares (milliseconds that overflowed, a unit
                                           misread): a batch is stopped as soon as a part on
                                           the delay resource of a second or more begins, the
                                           abort part naming that part, long before the
                                           declared budget has passed (MB-TEST-7)
    stopping-part-written-as-problem       the part that stops a batch (stop policy, atomic)
                                           written as a problem document saying so, in place of
                                           its sub-response's fields and content (MB-RESP-4)

    batch-answer-broken-off-at-599          an exception where the status 599 is classed
                                           (a status table without it): the batch answer is
                                           broken off after the part before, no abort part,
                                           no close delimiter, the connection closed
                                           (MB-STATUS-6)

Each edits the reference server's answer in the multipart/mixed and the JSON form, except
batch-stopped-before-declared-budget, which stops multipart/mixed batches only: it forwards the
slow part as a wait of 0 ms and writes the abort part in place of its answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from mixbatch_conformance.run.mutations import Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    Part,
    boundary_of,
    field_of,
    header_has,
    is_batch,
    map_json,
    parts_of,
    problem,
    set_field,
    without_field,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

_STOP = header_has("Prefer", r"(?i)batch-on-error\s*=\s*\"?stop")
_ATOMIC = header_has("Batch-Mode", r"(?i)\batomic\b")
#: The problem document the planted stopping part carries.
_STOPPED = json.dumps(
    {
        "type": "https://mixbatch.dev/problems/batch-stopped",
        "title": "Batch stopped",
        "detail": "this part failed; the parts after it are skipped",
    }
).encode()


def _abort_index(body: bytes) -> int | None:
    try:
        doc = json.loads(body)
    except ValueError:
        return None
    index = doc.get("part_index") if isinstance(doc, dict) else None
    return index if isinstance(index, int) else None


def _first_part_aborted_503(req: RelayRequest, resp: RelayResponse) -> None:
    """The whole batch answered 503 when its abort part is its first part."""
    if not is_batch(req):
        return
    b = boundary_of(resp)
    parts = parts_of(resp.body, b) if b else None
    if parts and field_of(parts[0][0], "Batch-Outcome") == "aborted":
        problem(resp, 503, "MB-STATUS-12")
        return
    if resp.status == 207 and "json" in (resp.get("Content-Type") or ""):
        doc = json.loads(resp.body)
        items = doc.get("responses") if isinstance(doc, dict) else None
        if isinstance(items, list) and items and items[0].get("outcome") == "aborted":
            problem(resp, 503, "MB-STATUS-12")


def _request_ids(req: RelayRequest) -> list[str]:
    b = boundary_of(req)
    return [field_of(f, "Content-Id") or "" for f, _ in (parts_of(req.body, b) or [])] if b else []


def _skipped(cid: str) -> Part:
    return ([("Content-Id", cid), ("Batch-Outcome", "skipped"), ("Content-Length", "0")], b"")


def _spent_budget_skips(req: RelayRequest, resp: RelayResponse) -> None:
    """Under the stop policy the abort part becomes skipped parts, from its part_index on."""
    if not (is_batch(req) and _STOP(req)):
        return
    ids = _request_ids(req)
    b = boundary_of(resp)
    parts = parts_of(resp.body, b) if b else None
    if b and parts and field_of(parts[-1][0], "Batch-Outcome") == "aborted":
        start = _abort_index(parts[-1][1])
        if start is not None:
            resp.body = write_parts(parts[:-1] + [_skipped(cid) for cid in ids[start:]], b)
        return

    def entries(doc: dict[str, Any]) -> None:
        items = doc.get("responses")
        if not isinstance(items, list) or not items or items[-1].get("outcome") != "aborted":
            return
        start = _abort_index(str(items[-1].get("body") or "").encode())
        if start is None:
            return
        items[-1:] = [
            {"index": i, "content_id": ids[i].strip("<>") if i < len(ids) else None}
            | {"status": None, "outcome": "skipped", "headers": [], "body": ""}
            for i in range(start, len(ids))
        ]

    map_json(entries)(req, resp)


def _running_part_answered_200(req: RelayRequest, resp: RelayResponse) -> None:
    """The part an abort names, cut off by the budget, written as a 200 with no content; the
    abort part then names the part after it, or is left out after the last part."""
    if not is_batch(req):
        return
    ids = _request_ids(req)
    b = boundary_of(resp)
    parts = parts_of(resp.body, b) if b else None
    if not (b and parts and field_of(parts[-1][0], "Batch-Outcome") == "aborted"):
        return
    start = _abort_index(parts[-1][1])
    if start is None or start >= len(ids):
        return
    answered: Part = (
        [("Http-Status-Code", "200"), ("Content-Id", ids[start]), ("Content-Length", "0")],
        b"",
    )
    resp.body = write_parts(_abort_after(parts, answered, start + 1 < len(ids)), b)


def _abort_after(parts: list[Part], written: Part, more: bool) -> list[Part]:
    """`parts`, whose last is an abort part, with `written` in the place of the part it names,
    and the abort part naming the next one when there is one (`more`), else left out."""
    tail: list[Part] = []
    if more:
        doc = json.loads(parts[-1][1])
        doc["part_index"] += 1
        body = json.dumps(doc).encode()
        tail = [(set_field(parts[-1][0], "Content-Length", str(len(body))), body)]
    return [*parts[:-1], written, *tail]


#: The body of a part written as failed when the budget cut its sub-request off.
_CUT_OFF = b"the sub-request ran out of the batch's time budget\n"


def _running_part_failed(status: int) -> Callable[[RelayRequest, RelayResponse], None]:
    """The part an abort names, cut off by the budget, written as a `status` sub-response with a
    text body; the abort part (or entry) then names the part after it, or is left out when the
    part was the last; in multipart/mixed and in the JSON form."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        if not is_batch(req):
            return
        ids = _request_ids(req)
        b = boundary_of(resp)
        parts = parts_of(resp.body, b) if b else None
        if b and parts and field_of(parts[-1][0], "Batch-Outcome") == "aborted":
            start = _abort_index(parts[-1][1])
            if start is None or start >= len(ids):
                return
            failed: Part = (
                [
                    ("Http-Status-Code", str(status)),
                    ("Content-Id", ids[start]),
                    ("Content-Type", "text/plain; charset=utf-8"),
                    ("Content-Length", str(len(_CUT_OFF))),
                ],
                _CUT_OFF,
            )
            resp.body = write_parts(_abort_after(parts, failed, start + 1 < len(ids)), b)
            return

        def entries(doc: dict[str, Any]) -> None:
            items = doc.get("responses")
            if not isinstance(items, list) or not items or items[-1].get("outcome") != "aborted":
                return
            report = items[-1]
            body = str(report.get("body") or "").encode()
            start = _abort_index(body)
            if start is None or start >= len(ids):
                return
            target = ids[start].strip("<>")
            # The resolved target, written as the entries before it write theirs.
            href = target
            for item in items[:-1]:
                cid, seen = item.get("content_id"), item.get("href")
                if isinstance(cid, str) and isinstance(seen, str) and seen.endswith(cid):
                    href = seen[: len(seen) - len(cid)] + target
            failed = {
                "index": start,
                "href": href,
                "content_id": target,
                "status": status,
                "outcome": None,
                "headers": [["Content-Type", "text/plain; charset=utf-8"]],
                "body": _CUT_OFF.decode(),
            }
            summary = doc.get("summary")
            if isinstance(summary, dict) and isinstance(summary.get("failed"), int):
                summary["failed"] += 1
            if start + 1 < len(ids):
                problem_doc = json.loads(body)
                problem_doc["part_index"] = start + 1
                report["index"] = start + 1
                report["body"] = json.dumps(problem_doc)
                items[-1:] = [failed, report]
            else:
                items[-1:] = [failed]

        map_json(entries)(req, resp)

    return edit


def _last_part_abort_left_out(req: RelayRequest, resp: RelayResponse) -> None:
    """The abort part (or entry) left out when the part it names is the batch's last."""
    if not is_batch(req):
        return
    last = len(_request_ids(req)) - 1
    b = boundary_of(resp)
    parts = parts_of(resp.body, b) if b else None
    if b and parts and field_of(parts[-1][0], "Batch-Outcome") == "aborted":
        if _abort_index(parts[-1][1]) == last:
            resp.body = write_parts(parts[:-1], b)
        return

    def entries(doc: dict[str, Any]) -> None:
        items = doc.get("responses")
        if not isinstance(items, list) or not items or items[-1].get("outcome") != "aborted":
            return
        if _abort_index(str(items[-1].get("body") or "").encode()) == last:
            del items[-1]

    map_json(entries)(req, resp)


#: A target on the reference server's delay resource and its ms.
_DELAY = re.compile(r"^<?/delay/(\d+)>?$")
#: The shortest wait the planted budget lets a part begin: a second.
_KEPT_MS = 1000


def _stop_slow_part(req: RelayRequest) -> None:
    """Forward the first part waiting `_KEPT_MS` or more as a wait of 0 ms, noting its index."""
    req.connection.pop("stopped-at", None)
    b = boundary_of(req)
    parts = parts_of(req.body, b) if b and is_batch(req) else None
    for i, (fields, body) in enumerate(parts or []):
        found = _DELAY.match((field_of(fields, "Content-Id") or "").strip())
        if found and int(found[1]) >= _KEPT_MS and b and parts:
            parts[i] = (set_field(fields, "Content-Id", "</delay/0>"), body)
            req.body = write_parts(parts, b)
            req.connection["stopped-at"] = i
            return


def _abort_at_slow_part(req: RelayRequest, resp: RelayResponse) -> None:
    """The parts before the slow one, then the abort part naming it."""
    index = req.connection.pop("stopped-at", None)
    b = boundary_of(resp)
    parts = parts_of(resp.body, b) if b else None
    if not isinstance(index, int) or not b or not parts or len(parts) <= index:
        return
    doc = json.dumps(
        {
            "type": "https://mixbatch.dev/problems/batch-aborted",
            "title": "Batch aborted",
            "status": 503,
            "detail": "the batch ran out of its time budget",
            "part_index": index,
        }
    ).encode()
    abort: Part = (
        [
            ("Batch-Outcome", "aborted"),
            ("Content-Type", "application/problem+json"),
            ("Content-Length", str(len(doc))),
        ],
        doc,
    )
    resp.body = write_parts([*parts[:index], abort], b)


def _as_problem(fields: list[tuple[str, str]]) -> Part:
    kept = [(n, v) for n, v in fields if n.lower() in ("http-status-code", "content-id")]
    kept = set_field(
        without_field(kept, "Content-Type"), "Content-Type", "application/problem+json"
    )
    return (set_field(kept, "Content-Length", str(len(_STOPPED))), _STOPPED)


def _stopping_part_as_problem(req: RelayRequest, resp: RelayResponse) -> None:
    """The failing part of a stop-policy or atomic batch written as a stop report."""
    if not (is_batch(req) and (_STOP(req) or _ATOMIC(req))):
        return
    b = boundary_of(resp)
    parts = parts_of(resp.body, b) if b else None
    if b and parts:
        out = [
            _as_problem(f)
            if field_of(f, "Batch-Outcome") is None
            and int(field_of(f, "Http-Status-Code") or "0") >= 400
            else (f, body)
            for f, body in parts
        ]
        resp.body = write_parts(out, b)
        return

    def entries(doc: dict[str, Any]) -> None:
        for item in doc.get("responses") or []:
            status = item.get("status")
            if item.get("outcome") is None and isinstance(status, int) and status >= 400:
                item["headers"] = [["Content-Type", "application/problem+json"]]
                item["body"] = _STOPPED.decode()

    map_json(entries)(req, resp)


def _broken_off_at_599(req: RelayRequest, resp: RelayResponse) -> None:
    """A batch answer holding a part answered 599 cut off where that part begins."""
    if not is_batch(req) or resp.status != 200:
        return
    at = re.search(rb"(?im)^Http-Status-Code:[ \t]*599[ \t]*\r?$", resp.body)
    if at is None:
        return
    cut = len(resp.body) - at.start()
    # The octets up to the cut go out as framed; the connection then closes, unmarked.
    resp.wire = lambda octets: octets[: len(octets) - cut - 16]
    resp.close_unmarked = True


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "abort-before-first-part-answered-503",
        "MB-STATUS-12 a batch whose first part was running answered 503",
        ("batch-abort-after-timeout", "batch-abort-under-stop", "atomic-abort-rolls-back"),
        on_response=_first_part_aborted_503,
    ),
    Mutation(
        "spent-budget-under-stop-skips",
        "MB-STATUS-6 a spent budget under the stop policy written as skipped parts",
        ("batch-abort-under-stop", "batch-abort-in-multistatus"),
        on_response=_spent_budget_skips,
    ),
    Mutation(
        "running-part-answered-200-at-budget",
        "MB-RESP-2 the part running when the time budget ends written 200 with no content",
        ("batch-abort-after-timeout",),
        on_response=_running_part_answered_200,
    ),
    Mutation(
        "running-part-answered-500-at-budget",
        "MB-STATUS-6 the part running when the time budget ends written as a 500 part, the abort "
        "part after it or left out",
        ("batch-abort-after-timeout", "batch-abort-in-multistatus", "batch-abort-in-every-form"),
        on_response=_running_part_failed(500),
    ),
    Mutation(
        "running-part-answered-504-at-budget",
        "MB-STATUS-6 the part running when the time budget ends written as a 504 part, the abort "
        "part after it or left out",
        ("batch-abort-after-timeout", "batch-abort-under-stop", "batch-abort-over-http10"),
        on_response=_running_part_failed(504),
    ),
    Mutation(
        "last-part-abort-left-out",
        "MB-STATUS-6 no abort part when the part the time budget cut off is the last part",
        ("batch-abort-after-timeout", "batch-abort-in-multistatus"),
        on_response=_last_part_abort_left_out,
    ),
    Mutation(
        "batch-stopped-before-declared-budget",
        "MB-TEST-7 a batch stopped for its time once a part of a second or more begins, before "
        "the declared batch_timeout_ms has passed",
        ("batch-abort-after-timeout",),
        caught_by=("FAIL",),
        on_request=_stop_slow_part,
        on_response=_abort_at_slow_part,
    ),
    Mutation(
        "stopping-part-written-as-problem",
        "MB-RESP-4 the part that stops a batch written as a stop report",
        ("stopping-part-keeps-its-response",),
        on_response=_stopping_part_as_problem,
    ),
    Mutation(
        "batch-answer-broken-off-at-599",
        "MB-STATUS-6 a batch answer broken off at a part answered 599, no abort part",
        ("status-codes-reported-exactly",),
        caught_by=("FAIL",),
        on_response=_broken_off_at_599,
    ),
)
