"""Judging an exchange against a case: the allowed statuses, the connection's fate, the problem
document, and the named predicates some cases add on the parsed batch response.

``judge`` returns the list of violations (empty when the exchange is one the spec allows), so a
test can report every broken expectation at once, with the citation that decides it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mixbatch.codec import (
    BatchParser,
    MixbatchError,
    PartData,
    ResponsePartStart,
    Role,
    parse_batch_content_type,
)

from ._case import CLOSED_SILENTLY, PROBLEM_TYPE_BASE, Case, Close
from ._wire import Answer, Exchange

__all__ = ["PREDICATES", "ResponsePart", "judge", "response_parts"]


@dataclass
class ResponsePart:
    status: int | None
    outcome: str | None
    fields: list[tuple[str, str]]
    body: bytes = b""

    def header(self, name: str) -> str | None:
        lname = name.lower()
        return next((v for k, v in self.fields if k.lower() == lname), None)


def response_parts(answer: Answer) -> list[ResponsePart]:
    """The parts of a multipart batch response, parsed strictly by the codec."""
    boundary = parse_batch_content_type(answer.header("Content-Type"))
    parser = BatchParser(boundary, Role.RESPONSE)
    parts: list[ResponsePart] = []
    for event in [*parser.feed(answer.body), *parser.feed_eof()]:
        if isinstance(event, ResponsePartStart):
            parts.append(ResponsePart(event.status, event.outcome, list(event.fields)))
        elif isinstance(event, PartData):
            parts[-1].body += bytes(event.data)
    return parts


def _parts_or_problem(answer: Answer) -> list[ResponsePart] | str:
    try:
        return response_parts(answer)
    except (MixbatchError, ValueError) as exc:
        return f"the 200 answer is no well-formed batch response: {exc}"


def _on_parts(
    verdict: Callable[[list[ResponsePart]], str | None],
) -> Callable[[Exchange], str | None]:
    """A predicate on the parts of a 200 answer: nothing to judge when the first answer is not
    200; a 200 that is no well-formed batch response is itself the finding."""

    def on_exchange(exchange: Exchange) -> str | None:
        answer = exchange.first
        if answer is None or answer.status != 200:
            return None
        parts = _parts_or_problem(answer)
        return parts if isinstance(parts, str) else verdict(parts)

    return on_exchange


@_on_parts
def _all_parts_200(parts: list[ResponsePart]) -> str | None:
    statuses = [p.status for p in parts]
    return None if statuses and all(s == 200 for s in statuses) else f"part statuses {statuses}"


@_on_parts
def _all_parts_answered(parts: list[ResponsePart]) -> str | None:
    missing = [i for i, p in enumerate(parts) if p.status is None]
    return f"parts without a status: {missing[:5]}" if missing else None


@_on_parts
def _one_part_answered(parts: list[ResponsePart]) -> str | None:
    return None if len(parts) == 1 else f"{len(parts)} response parts for one request part"


@_on_parts
def _head_parts_have_no_body(parts: list[ResponsePart]) -> str | None:
    bodies = [p.body for p in parts if p.body]
    return f"a HEAD part carries content: {bodies[0][:80]!r}" if bodies else None


@_on_parts
def _no_nested_run(parts: list[ResponsePart]) -> str | None:
    for part in parts:
        kind = (part.header("Content-Type") or "").lower()
        if part.status == 200 and kind.startswith("multipart/mixed"):
            return "the nested batch ran: its part answered 200 multipart/mixed"
    return None


def _second_answer_is_book_2(exchange: Exchange) -> str | None:
    if len(exchange.answers) < 2:
        return "the request after the batch was not answered"
    second = exchange.answers[1]
    if second.status != 200 or b'"id"' not in second.body or b"2" not in second.body:
        return f"the second answer is not GET /books/2: {second.status} {second.body[:80]!r}"
    return None


PREDICATES: dict[str, Callable[[Exchange], str | None]] = {
    "all_parts_200": _all_parts_200,
    "all_parts_answered": _all_parts_answered,
    "one_part_answered": _one_part_answered,
    "head_parts_have_no_body": _head_parts_have_no_body,
    "no_nested_run": _no_nested_run,
    "second_answer_is_book_2": _second_answer_is_book_2,
}


def judge(case: Case, exchange: Exchange) -> list[str]:
    """Every way ``exchange`` departs from what ``case`` allows (empty: it conforms)."""
    problems: list[str] = []
    if exchange.malformed:
        problems.append(f"malformed HTTP answer: {exchange.malformed}")
    if exchange.hung:
        problems.append(f"no answer and no close within {exchange.elapsed:.1f} s")
    answer = exchange.first
    status = answer.status if answer is not None else CLOSED_SILENTLY
    if status not in case.statuses and not exchange.hung:
        shown = "closed without an answer" if answer is None else str(status)
        problems.append(f"status {shown}, allowed {sorted(case.statuses)}")
    if answer is not None and answer.status >= 400:
        doc = answer.problem
        if doc is None:
            problems.append(
                "a 4xx/5xx answer without an application/problem+json body (MB-STATUS-4)"
            )
        else:
            if case.problem and doc.get("type") != PROBLEM_TYPE_BASE + case.problem:
                problems.append(f"problem type {doc.get('type')!r}, expected slug {case.problem!r}")
            if case.requirement and doc.get("requirement") != case.requirement:
                problems.append(
                    f"problem requirement {doc.get('requirement')!r}, expected {case.requirement!r}"
                )
            if case.limit and doc.get("limit") != case.limit:
                problems.append(f"problem limit {doc.get('limit')!r}, expected {case.limit!r}")
    if case.close is Close.MUST and not exchange.closed:
        problems.append("the connection stayed open; it must close after this answer")
    if case.close is Close.KEEP and exchange.closed:
        problems.append("the connection closed; it must stay open")
    if exchange.leftover and exchange.closed:
        problems.append(f"octets after the last answer: {exchange.leftover[:60]!r}")
    if case.check is not None:
        found = PREDICATES[case.check](exchange)
        if found:
            problems.append(f"{case.check}: {found}")
    return problems
