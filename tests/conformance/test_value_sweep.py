"""The value sweep: what it finds in an answer, how it corrupts each slot, and (deep tier) that
every value the checks read is judged by one of them."""

from __future__ import annotations

import json

import pytest

from mixbatch_conformance.run.mutations import write_parts
from mixbatch_conformance.run.plants._edits import parts_of
from mixbatch_conformance.run.value_sweep import (
    BATCH_FIELD,
    JSON_ENTRY_MEMBER,
    JSON_MEMBER,
    PART_FIELD,
    PROBLEM_MEMBER,
    UNJUDGED,
    XML_ENTRY_ELEMENT,
    Corruption,
    Slot,
    altered_json,
    altered_text,
    slots_of,
    sweep_reference,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

BOUNDARY = "sweep-test-0123456789"
BATCH = RelayRequest(
    "POST", "/batch", [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")], b""
)
PLAIN = RelayRequest("GET", "/books/1", [], b"")


def _multipart() -> RelayResponse:
    body = write_parts(
        [
            ([("Http-Status-Code", "200"), ("Content-Id", "<a>"), ("ETag", '"1"')], b"one"),
            ([("Http-Status-Code", "404"), ("Content-Id", "<b>")], b""),
        ],
        BOUNDARY,
    )
    headers = [
        ("Content-Type", f"multipart/mixed; boundary={BOUNDARY}"),
        ("Vary", "Accept"),
        ("Content-Length", str(len(body))),
    ]
    return RelayResponse(200, headers, body)


def _json_207() -> RelayResponse:
    doc = {
        "spec_version": "draft-02",
        "summary": {"ok": 1, "failed": 0, "skipped": 0, "rolled_back": 0},
        "responses": [{"index": 0, "status": 200, "content_id": "<a>"}],
    }
    ctype = "application/vnd.mixbatch.multistatus+json"
    return RelayResponse(207, [("Content-Type", ctype)], json.dumps(doc).encode())


def _problem() -> RelayResponse:
    doc = {"type": "https://mixbatch.dev/problems/x", "title": "t", "status": 400, "part_index": 1}
    return RelayResponse(
        400, [("Content-Type", "application/problem+json")], json.dumps(doc).encode()
    )


def test_slots_of_a_multipart_answer_name_its_fields_and_its_parts_fields() -> None:
    found = slots_of(BATCH, _multipart())
    assert found == {
        Slot(BATCH_FIELD, "content-type"),
        Slot(BATCH_FIELD, "vary"),
        Slot(PART_FIELD, "http-status-code"),
        Slot(PART_FIELD, "content-id"),
        Slot(PART_FIELD, "etag"),
    }


def test_slots_of_documents_name_members_and_nested_counts() -> None:
    found = slots_of(BATCH, _json_207())
    assert Slot(JSON_MEMBER, "summary.rolled_back") in found
    assert Slot(JSON_ENTRY_MEMBER, "content_id") in found
    assert slots_of(PLAIN, _problem()) >= {
        Slot(PROBLEM_MEMBER, "part_index"),
        Slot(PROBLEM_MEMBER, "status"),
    }
    # An answer to a plain request carries no batch slots.
    assert slots_of(PLAIN, _multipart()) == set()


@pytest.mark.parametrize(
    ("value", "altered"),
    [("200", "201"), ("<a/b>", "<a/bx>"), ("text/plain", "text/plainx"), (" 7", "8")],
)
def test_altered_text_keeps_the_shape_and_changes_the_value(value: str, altered: str) -> None:
    assert altered_text(value) == altered


def test_altered_json_changes_every_kind_of_value() -> None:
    for value in (0, 1.5, "x", None, True, [1], [], {}, {"a": 1}):
        assert altered_json(value) != value


def test_part_field_corruptions_drop_or_alter_in_every_part() -> None:
    slot = Slot(PART_FIELD, "http-status-code")
    dropped = _multipart()
    Corruption(slot, "drop").response(BATCH, dropped)
    altered = _multipart()
    Corruption(slot, "alter").response(BATCH, altered)
    dropped_parts = parts_of(dropped.body, BOUNDARY)
    altered_parts = parts_of(altered.body, BOUNDARY)
    assert dropped_parts is not None
    assert altered_parts is not None
    assert all(n != "Http-Status-Code" for f, _ in dropped_parts for n, _ in f)
    assert [dict(f)["Http-Status-Code"] for f, _ in altered_parts] == ["201", "405"]


def test_member_corruptions_reach_nested_and_entry_members() -> None:
    resp = _json_207()
    Corruption(Slot(JSON_MEMBER, "summary.ok"), "alter").response(BATCH, resp)
    assert json.loads(resp.body)["summary"]["ok"] == 2
    resp = _json_207()
    Corruption(Slot(JSON_ENTRY_MEMBER, "index"), "drop").response(BATCH, resp)
    assert "index" not in json.loads(resp.body)["responses"][0]
    problem = _problem()
    Corruption(Slot(PROBLEM_MEMBER, "part_index"), "alter").response(PLAIN, problem)
    assert json.loads(problem.body)["part_index"] == 2


def test_batch_field_corruption_leaves_other_answers_alone() -> None:
    resp = _multipart()
    Corruption(Slot(BATCH_FIELD, "vary"), "drop").response(PLAIN, resp)
    assert resp.get("Vary") == "Accept"
    Corruption(Slot(BATCH_FIELD, "vary"), "drop").response(BATCH, resp)
    assert resp.get("Vary") is None


XML_207 = (
    b'<?xml version="1.0" encoding="utf-8"?>'
    b'<D:multistatus xmlns:D="DAV:" xmlns:mb="https://mixbatch.dev/ns/multistatus">'
    b"<D:response><D:href>/a</D:href><D:status>HTTP/1.1 200 OK</D:status>"
    b"<mb:index>0</mb:index></D:response></D:multistatus>"
)


def _xml_answer() -> RelayResponse:
    return RelayResponse(207, [("Content-Type", "application/xml")], XML_207)


def test_xml_entry_elements_are_slots_and_are_dropped_or_altered() -> None:
    assert slots_of(BATCH, _xml_answer()) == {
        Slot(BATCH_FIELD, "content-type"),
        Slot(XML_ENTRY_ELEMENT, "dav:href"),
        Slot(XML_ENTRY_ELEMENT, "dav:status"),
        Slot(XML_ENTRY_ELEMENT, "mb:index"),
    }
    altered = _xml_answer()
    Corruption(Slot(XML_ENTRY_ELEMENT, "dav:status"), "alter").response(BATCH, altered)
    assert b"HTTP/1.1 201 OK" in altered.body
    dropped = _xml_answer()
    Corruption(Slot(XML_ENTRY_ELEMENT, "mb:index"), "drop").response(BATCH, dropped)
    assert Slot(XML_ENTRY_ELEMENT, "mb:index") not in slots_of(BATCH, dropped)
    assert Slot(XML_ENTRY_ELEMENT, "dav:href") in slots_of(BATCH, dropped)


def test_every_allowed_unjudged_slot_gives_a_reason() -> None:
    assert all(reason.strip() for reason in UNJUDGED.values())


#: The sweep runs every smoke and standard check once, then the readers of each slot.
SWEEP_BUDGET_S = 3600


@pytest.mark.deep
@pytest.mark.timeout(SWEEP_BUDGET_S)
def test_every_value_the_checks_read_is_judged(mixbatch_tier: str) -> None:
    if mixbatch_tier != "deep":
        pytest.skip("the value sweep runs with --mixbatch-tier deep (make deep)")
    outcomes = sweep_reference()
    missed = [f"{o.slot} {o.how}" for o in outcomes if o.noticed_by is None and not o.allowed]
    assert missed == []
