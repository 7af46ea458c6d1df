"""RFC 9457 problem responses (MB-STATUS-4): the document's members and their order of
precedence, the response built from a document, a codec error or an unreadable body, and the
reason phrase of registered and unregistered codes."""

from __future__ import annotations

import json

import pytest

from mixbatch._http.messages import BodyReadError, BodyTooLarge, Response
from mixbatch._http.problems import (
    PROBLEM_MEDIA_TYPE,
    from_body_error,
    from_document,
    from_error,
    problem,
    problem_body,
    problem_document,
    reason,
)
from mixbatch.codec import PROBLEM_TYPE_BASE, RemoteProtocolError


def _document(response: Response) -> dict[str, object]:
    assert response.header("Content-Type") == PROBLEM_MEDIA_TYPE
    assert isinstance(response.body, bytes)
    document: dict[str, object] = json.loads(response.body)
    assert document["status"] == response.status
    return document


def test_reason_is_the_registered_phrase_or_a_generic_one() -> None:
    assert reason(404) == "Not Found"
    assert reason(207) == "Multi-Status"
    assert reason(299) == "Status 299"


def test_problem_document_carries_type_title_status_and_detail() -> None:
    assert problem_document(404, "not-found", "no such book") == {
        "type": PROBLEM_TYPE_BASE + "not-found",
        "title": "Not Found",
        "status": 404,
        "detail": "no such book",
    }


def test_problem_document_names_the_requirement_part_and_offset_only_when_known() -> None:
    document = problem_document(
        400,
        "malformed-batch",
        "bad",
        title="Malformed batch",
        requirement="MB-WIRE-3",
        part_index=0,
        byte_offset=17,
        max_parts=5,
    )
    assert document["title"] == "Malformed batch"
    assert (document["requirement"], document["part_index"], document["byte_offset"]) == (
        "MB-WIRE-3",
        0,
        17,
    )
    assert document["max_parts"] == 5
    # Part 0 and offset 0 are known positions, not absent ones.
    zero = problem_document(400, "x", "y", part_index=0, byte_offset=0)
    assert (zero["part_index"], zero["byte_offset"]) == (0, 0)
    assert "requirement" not in problem_document(500, "x", "y")


def test_problem_body_is_compact_utf8_json() -> None:
    assert problem_body({"detail": "café", "status": 400}) == (
        '{"detail":"café","status":400}'.encode()
    )


def test_problem_response_puts_its_content_type_before_extra_fields() -> None:
    response = problem(503, "busy", "later", headers=[("Retry-After", "1")])
    assert response.status == 503
    assert response.headers[0] == ("Content-Type", PROBLEM_MEDIA_TYPE)
    assert response.header("Retry-After") == "1"
    assert _document(response)["detail"] == "later"


def test_from_document_takes_its_status_from_the_document() -> None:
    response = from_document({"type": "about:blank", "status": 422, "title": "x"})
    assert response.status == 422


def test_from_error_answers_with_the_codec_errors_status_hint_and_requirement() -> None:
    error = RemoteProtocolError(
        "boundary missing", requirement="MB-WIRE-3", part_index=2, offset=40
    )
    document = _document(from_error(error))
    assert document["status"] == 400
    assert document["requirement"] == "MB-WIRE-3"
    assert document["part_index"] == 2


@pytest.mark.parametrize(
    ("error", "status", "slug"),
    [
        (BodyTooLarge(1024), 413, "content-too-large"),
        (BodyReadError(400, "bad chunk"), 400, "malformed-content"),
        (BodyReadError(408, "too slow"), 408, "request-timeout"),
    ],
)
def test_from_body_error_maps_each_failure_to_its_status(
    error: BodyReadError | BodyTooLarge, status: int, slug: str
) -> None:
    document = _document(from_body_error(error))
    assert document["status"] == status
    assert document["type"] == PROBLEM_TYPE_BASE + slug


def test_too_large_content_names_the_limit() -> None:
    assert _document(from_body_error(BodyTooLarge(1024)))["max_bytes"] == 1024
