"""The 207 readers judge what every entry of their form must satisfy, whichever check reads it."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from mixbatch_conformance.core.representations import (
    broken_by,
    entries_from_json,
    entries_from_xml,
)


def _json(**body: Any) -> bytes:
    entry = {
        "index": 0,
        "href": "/r",
        "content_id": "/r",
        "status": 200,
        "outcome": None,
        "headers": [["Content-Type", "application/octet-stream"]],
        **body,
    }
    summary = {"ok": 1, "failed": 0, "skipped": 0, "rolled_back": 0}
    doc = {"spec_version": "draft-02", "summary": summary, "responses": [entry]}
    return json.dumps(doc).encode()


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


@pytest.mark.parametrize(
    ("members", "octets"),
    [
        ({"body": ""}, b""),
        ({"body": "caf\u00e9"}, "caf\u00e9".encode()),
        ({"body_base64": _b64(b"\xff\xfe\x00")}, b"\xff\xfe\x00"),
    ],
)
def test_json_body_member_chosen_by_utf8_validity_is_read(
    members: dict[str, str], octets: bytes
) -> None:
    entries, problem = entries_from_json(_json(**members))
    assert problem is None
    assert entries[0].body == octets


@pytest.mark.parametrize(
    "members",
    [
        {"body_base64": ""},
        {"body_base64": _b64(b"plain text under a binary type")},
        {"body_base64": "not base64!"},
    ],
)
def test_json_body_base64_for_valid_utf8_is_refused_as_mb_multi_7(
    members: dict[str, str],
) -> None:
    entries, problem = entries_from_json(_json(**members))
    assert entries == []
    assert problem is not None
    assert "MB-MULTI-7" in problem


def _xml(*responses: str) -> bytes:
    return (
        '<D:multistatus xmlns:D="DAV:" xmlns:mb="https://mixbatch.dev/ns/multistatus">'
        + "".join(f"<D:response>{r}</D:response>" for r in responses)
        + "</D:multistatus>"
    ).encode()


STATUS = "<D:status>HTTP/1.1 201 Created</D:status>"


@pytest.mark.parametrize(
    "response",
    [
        "<mb:index>0</mb:index><mb:outcome>rolled-back</mb:outcome>",
        "<mb:index>0</mb:index>",
        f"{STATUS}<mb:index>0</mb:index><mb:outcome>skipped</mb:outcome>",
        f"{STATUS}<mb:index>0</mb:index><mb:outcome>aborted</mb:outcome>",
    ],
)
def test_xml_status_not_there_exactly_when_the_part_ran_is_refused_as_mb_multi_6(
    response: str,
) -> None:
    entries, problem = entries_from_xml(_xml(response))
    assert entries == []
    assert problem is not None
    assert "MB-MULTI-6" in problem


def test_xml_status_exactly_when_the_part_ran_is_read() -> None:
    entries, problem = entries_from_xml(
        _xml(
            f"{STATUS}<mb:index>0</mb:index><mb:outcome>rolled-back</mb:outcome>",
            "<D:status>HTTP/1.1 404 </D:status><mb:index>1</mb:index>",
            "<mb:index>2</mb:index><mb:outcome>skipped</mb:outcome>",
        )
    )
    assert problem is None
    assert [(e.status, e.outcome) for e in entries] == [
        (201, "rolled-back"),
        (404, None),
        (None, "skipped"),
    ]


@pytest.mark.parametrize(
    "members",
    [
        {"outcome": "aborted", "status": 503, "body": "{}"},
        {"outcome": "skipped", "status": 200, "body": ""},
        {"status": "200", "body": ""},
        {"headers": [["Content-Type"]], "body": ""},
    ],
)
def test_json_document_against_its_schema_is_refused_as_mb_multi_4(
    members: dict[str, Any],
) -> None:
    entries, problem = entries_from_json(_json(**members))
    assert entries == []
    assert broken_by(problem, "MB-MULTI-5") == "MB-MULTI-4"


@pytest.mark.parametrize(
    "body",
    [b"<D:multistatus xmlns:D='DAV:'>", b"<D:response xmlns:D='DAV:'/>", b"not xml"],
)
def test_xml_document_outside_a_dav_multistatus_is_refused_as_mb_multi_3(body: bytes) -> None:
    entries, problem = entries_from_xml(body)
    assert entries == []
    assert broken_by(problem, "MB-MULTI-5") == "MB-MULTI-3"


def test_broken_by_falls_back_when_the_problem_names_no_requirement() -> None:
    assert broken_by(None, "MB-MULTI-12") == "MB-MULTI-12"
    assert broken_by("short read", "MB-MULTI-12") == "MB-MULTI-12"
