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
BODY = '<mb:body encoding="base64"></mb:body>'


def _part(i: int, inner: str, href: str = "<D:href>/r</D:href>") -> str:
    """A part's DAV:response: `inner` (status, outcome) with the elements every part has."""
    return f"{href}{inner}<mb:index>{i}</mb:index><mb:content-id>r</mb:content-id>{BODY}"


def _abort(i: int, inner: str = "") -> str:
    return f"{inner}<mb:index>{i}</mb:index><mb:outcome>aborted</mb:outcome>{BODY}"


@pytest.mark.parametrize(
    "response",
    [
        _part(0, "<mb:outcome>rolled-back</mb:outcome>"),
        _part(0, ""),
        _part(0, f"{STATUS}<mb:outcome>skipped</mb:outcome>"),
        _abort(0, STATUS),
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
            _part(0, f"{STATUS}<mb:outcome>rolled-back</mb:outcome>"),
            _part(1, "<D:status>HTTP/1.1 404 </D:status>"),
            _part(2, "<mb:outcome>skipped</mb:outcome>"),
            _abort(3),
        )
    )
    assert problem is None
    assert [(e.status, e.outcome, e.href) for e in entries] == [
        (201, "rolled-back", "/r"),
        (404, None, "/r"),
        (None, "skipped", "/r"),
        (None, "aborted", None),
    ]


@pytest.mark.parametrize(
    "text",
    ["HTTP/1.1 299", "HTTP/1.1 200OK", " HTTP/1.1 200 OK", "HTTP/1.1 200 OK\n", "HTTP/1.0 200 OK"],
)
def test_xml_status_line_without_its_space_and_phrase_is_refused_as_mb_multi_6(
    text: str,
) -> None:
    entries, problem = entries_from_xml(_xml(_part(0, f"<D:status>{text}</D:status>")))
    assert entries == []
    assert broken_by(problem, "MB-MULTI-5") == "MB-MULTI-6"


@pytest.mark.parametrize("text", ["HTTP/1.1 299 ", "HTTP/1.1 200 OK", "HTTP/1.1 404 Not  Found"])
def test_xml_status_line_with_any_phrase_or_none_is_read(text: str) -> None:
    entries, problem = entries_from_xml(_xml(_part(0, f"<D:status>{text}</D:status>")))
    assert problem is None
    assert entries[0].status == int(text.split()[1])


@pytest.mark.parametrize(
    "response",
    [
        _part(0, "<mb:outcome>skipped</mb:outcome>", href=""),
        _part(0, STATUS, href=""),
        _part(0, STATUS, href="<D:href>/r</D:href><D:href>/r</D:href>"),
        _part(0, STATUS).replace("<mb:content-id>r</mb:content-id>", ""),
        _part(0, "<mb:outcome>skipped</mb:outcome>").replace(BODY, ""),
        _abort(0).replace(BODY, ""),
    ],
)
def test_xml_part_without_one_of_each_element_is_refused_as_mb_multi_6(response: str) -> None:
    entries, problem = entries_from_xml(_xml(response))
    assert entries == []
    assert broken_by(problem, "MB-MULTI-5") == "MB-MULTI-6"


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


@pytest.mark.parametrize("text", ["c2hvcnQ=\n", "\nc2hvcnQ=", "c2hv\ncnQ=", "c2hvcnQ= "])
def test_xml_body_base64_with_a_line_break_is_refused_as_mb_multi_6(text: str) -> None:
    body = _part(0, STATUS).replace(BODY, f'<mb:body encoding="base64">{text}</mb:body>')
    entries, problem = entries_from_xml(_xml(body))
    assert entries == []
    assert broken_by(problem, "MB-MULTI-5") == "MB-MULTI-6"


@pytest.mark.parametrize("text", ["QR==", "QUJ=", "QUJD\u00a0"])
def test_xml_body_base64_not_the_octets_encoding_is_refused_as_mb_multi_6(text: str) -> None:
    body = _part(0, STATUS).replace(BODY, f'<mb:body encoding="base64">{text}</mb:body>')
    entries, problem = entries_from_xml(_xml(body))
    assert entries == []
    assert broken_by(problem, "MB-MULTI-5") == "MB-MULTI-6"


def test_json_body_base64_not_the_octets_encoding_is_refused_as_mb_multi_7() -> None:
    entries, problem = entries_from_json(_json(body_base64="/x=="))
    assert (entries, broken_by(problem, "MB-MULTI-4")) == ([], "MB-MULTI-7")


@pytest.mark.parametrize(
    ("text", "index"), [("0", 0), (" 0\n", 0), ("\u0660", None), ("\u00b2", None)]
)
def test_xml_index_is_read_from_ascii_digits_only(text: str, index: int | None) -> None:
    body = _part(0, STATUS).replace("<mb:index>0</mb:index>", f"<mb:index>{text}</mb:index>")
    entries, problem = entries_from_xml(_xml(body))
    assert problem is None
    assert entries[0].index == index


def test_xml_outcome_keeps_an_octet_that_is_no_xml_white_space() -> None:
    body = _part(0, "<mb:outcome>skipped\u00a0</mb:outcome>")
    entries, _ = entries_from_xml(_xml(body))
    assert entries[0].outcome == "skipped\u00a0"


def test_xml_status_phrase_with_a_control_character_is_refused_as_mb_multi_6() -> None:
    body = _part(0, "<D:status>HTTP/1.1 200 OK\x7f</D:status>")
    entries, problem = entries_from_xml(_xml(body))
    assert (entries, broken_by(problem, "MB-MULTI-5")) == ([], "MB-MULTI-6")


@pytest.mark.parametrize(
    "text",
    [
        b'\xef\xbb\xbf{"spec_version": "draft-02"}',
        '{"spec_version": "draft-02"}'.encode("utf-16"),
        b'{"spec_version": "draft-02", "spec_version": "draft-03"}',
    ],
)
def test_json_text_a_strict_peer_refuses_is_refused_as_mb_multi_4(text: bytes) -> None:
    entries, problem = entries_from_json(text)
    assert (entries, broken_by(problem, "MB-MULTI-5")) == ([], "MB-MULTI-4")
