"""Every problem document answering a batch request is held to the problem schema (MB-STATUS-4),
whichever check received it."""

from __future__ import annotations

import json

import pytest

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.target import Target
from mixbatch_conformance.transport.http import Response

VALID = {"type": "about:blank", "title": "busy", "status": 503}


@pytest.fixture
def ctx() -> Context:
    target = Target(
        base_url="http://127.0.0.1:9",
        profiles=frozenset({"core"}),
        resources={"collection": "/books", "sandbox_collection": "/sandbox"},
    )
    return Context(target)


def _problem(status: int, doc: object, media: str = "application/problem+json") -> Response:
    body = json.dumps(doc).encode()
    return Response(status, "", (("Content-Type", media),), body, body)


def _judged(ctx: Context, request: bytes, resp: Response) -> list[str]:
    judge = Judge("MB-STATUS-4")
    ctx._judge_problem(judge, request, resp)
    return [e.requirement for e in judge.expectations if not e.passed]


BATCH = b"POST /batch HTTP/1.1\r\nHost: x\r\n\r\n"


@pytest.mark.parametrize(
    ("status", "doc"),
    [
        (503, {**VALID, "limit": "max_connections", "value": 16}),
        (400, {**VALID, "status": 400, "limit": "max_batches_in_flight"}),
        (503, {"title": "busy", "status": 503}),
        (405, {**VALID, "status": "405"}),
        (400, ["not", "an", "object"]),
    ],
)
def test_a_document_the_schema_refuses_is_a_failure(ctx: Context, status: int, doc: object) -> None:
    assert _judged(ctx, BATCH, _problem(status, doc)) == ["MB-STATUS-4"]


@pytest.mark.parametrize(
    "doc",
    [
        VALID,
        {**VALID, "requirement": "MB-LIMIT-6", "detail": "later", "extension": [1]},
        {"type": "about:blank", "title": "t", "status": 413, "limit": "max_parts"},
        # MB-STATUS-4 with spec 9.1: the budget of MB-LIMIT-6, published with the other limits,
        # may be named beside its 503.
        {**VALID, "limit": "max_batches_in_flight", "value": 16},
    ],
)
def test_a_document_the_schema_allows_is_not_judged(ctx: Context, doc: dict[str, object]) -> None:
    status = doc["status"]
    assert isinstance(status, int)
    assert _judged(ctx, BATCH, _problem(status, doc)) == []


def test_collection_retrievals_are_batch_requests_and_other_requests_are_not(
    ctx: Context,
) -> None:
    bad = _problem(406, {"title": "no type", "status": 406})
    retrieval = b"GET /books HTTP/1.1\r\nHost: x\r\nAccept: multipart/mixed\r\n\r\n"
    assert _judged(ctx, retrieval, bad) == ["MB-STATUS-4"]
    assert _judged(ctx, b"GET /books HTTP/1.1\r\nHost: x\r\n\r\n", bad) == []
    assert _judged(ctx, b"GET /books/1 HTTP/1.1\r\nHost: x\r\n\r\n", bad) == []
    assert _judged(ctx, BATCH, _problem(406, {"status": 406}, "application/json")) == []


def test_a_head_answer_carries_no_document_to_judge(ctx: Context) -> None:
    """RFC 9110 section 9.3.2: "the server MUST NOT send content in the response" to HEAD."""
    bad = _problem(405, {"title": "no type", "status": 405})
    assert _judged(ctx, b"HEAD /batch HTTP/1.1\r\nHost: x\r\n\r\n", bad) == []
    assert _judged(ctx, b"PUT /batch HTTP/1.1\r\nHost: x\r\n\r\n", bad) == ["MB-STATUS-4"]


def test_a_sandbox_get_is_no_collection_retrieval(ctx: Context) -> None:
    """MB-TEST-8 makes a GET of the `collection` and `empty_collection` roles a retrieval."""
    bad = _problem(406, {"title": "no type", "status": 406})
    sandbox = b"GET /sandbox HTTP/1.1\r\nHost: x\r\nAccept: multipart/mixed\r\n\r\n"
    assert _judged(ctx, sandbox, bad) == []
