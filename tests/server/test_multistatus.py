"""The 207 forms of a batch result: the XML multistatus of §6.3 (MB-MULTI-3, MB-MULTI-6) and the
JSON document of §6.4 (MB-MULTI-4, MB-MULTI-7), each rendered from part results and compared
with the spec's own example documents where one exists."""

from __future__ import annotations

import base64
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema

from mixbatch.server._multistatus import (
    JSON_MEDIA_TYPE,
    MIXBATCH_XML_NAMESPACE,
    XML_MEDIA_TYPE,
    JsonRenderer,
    XmlRenderer,
)
from mixbatch.server._results import PartResult, Renderer, Summary

SPEC = Path(__file__).resolve().parents[2] / "spec"
DOCUMENTS = SPEC / "examples" / "documents"
DAV = "{DAV:}"
MB = "{" + MIXBATCH_XML_NAMESPACE + "}"

THESIS_BODY = b'<ArrayOfE>\r\n  <E id="1"/>\r\n  <E id="15"/>\r\n</ArrayOfE>'
THESIS = [
    PartResult(0, "/e/", "e/", 201, None, [("Location", "/e/15")], b""),
    PartResult(1, "/e/", "e/", 200, None, [("Content-Type", "text/xml")], THESIS_BODY),
]


def _render(renderer: Renderer, results: list[PartResult]) -> bytes:
    summary = Summary()
    out = renderer.start()
    for result in results:
        summary.add(result)
        out += renderer.part(result)
    return out + renderer.end(summary)


def _xml(results: list[PartResult]) -> ET.Element:
    return ET.fromstring(_render(XmlRenderer(), results))


def _json(results: list[PartResult]) -> Any:
    return json.loads(_render(JsonRenderer("draft-02"), results))


def test_renderers_answer_207_with_their_media_types() -> None:
    # MB-MULTI-2: a 207 never carries multipart content.
    assert (XmlRenderer.status, JsonRenderer.status) == (207, 207)
    assert XmlRenderer().content_type == f"{XML_MEDIA_TYPE}; charset=utf-8"
    assert JsonRenderer("draft-02").content_type == JSON_MEDIA_TYPE


def test_xml_form_holds_one_dav_response_per_part_in_request_order() -> None:
    root = _xml(THESIS)
    assert root.tag == f"{DAV}multistatus"
    responses = root.findall(f"{DAV}response")
    assert [r.findtext(f"{MB}index") for r in responses] == ["0", "1"]
    # §6.2: the same href may repeat; entries are told apart by index.
    assert [r.findtext(f"{DAV}href") for r in responses] == ["/e/", "/e/"]


def test_xml_form_matches_the_spec_example_element_for_element() -> None:
    def shape(element: ET.Element) -> list[tuple[str, dict[str, str], str]]:
        return [
            (child.tag, dict(child.attrib), (child.text or "").strip())
            for response in element.findall(f"{DAV}response")
            for child in response
        ]

    example = ET.parse(DOCUMENTS / "multistatus.thesis-post-then-get.response.xml").getroot()
    assert shape(_xml(THESIS)) == shape(example)


def test_xml_form_carries_the_body_as_base64_so_crlf_survives() -> None:
    response = _xml(THESIS).findall(f"{DAV}response")[1]
    body = response.find(f"{MB}body")
    assert body is not None
    assert body.get("encoding") == "base64"
    assert base64.b64decode(body.text or "") == THESIS_BODY
    assert "\n" not in (body.text or "")


def test_xml_form_has_no_dav_status_for_a_part_that_never_ran() -> None:
    response = _xml([PartResult(0, "/x", "x", None, "skipped")]).find(f"{DAV}response")
    assert response is not None
    assert response.find(f"{DAV}status") is None
    assert response.findtext(f"{MB}outcome") == "skipped"
    assert response.findtext(f"{MB}body") in (None, "")


def test_xml_form_lists_header_fields_in_order_and_escapes_markup() -> None:
    fields = [("X-A", '1 < 2 & "q"'), ("X-B", "b"), ("X-A", "again")]
    result = PartResult(0, "/q?a=1&b=<2>", "q&<>", 200, None, fields, b"")
    response = _xml([result]).find(f"{DAV}response")
    assert response is not None
    headers = [(h.get("name"), h.text or "") for h in response.findall(f"{MB}header")]
    assert headers == fields
    assert response.findtext(f"{DAV}href") == "/q?a=1&b=<2>"
    assert response.findtext(f"{MB}content-id") == "q&<>"


def test_xml_status_line_is_http_1_1_code_and_reason() -> None:
    statuses = [
        r.findtext(f"{DAV}status")
        for r in _xml(
            [PartResult(0, "/a", "a", 404, None), PartResult(1, "/b", "b", 503, None)]
        ).findall(f"{DAV}response")
    ]
    assert statuses == ["HTTP/1.1 404 Not Found", "HTTP/1.1 503 Service Unavailable"]


def test_xml_abort_report_has_no_href_content_id_or_status() -> None:
    problem = b'{"status":503,"part_index":1}'
    results = [
        PartResult(0, "/a", "a", 200, None),
        PartResult(
            1, None, None, None, "aborted", [("Content-Type", "application/problem+json")], problem
        ),
    ]
    abort = _xml(results).findall(f"{DAV}response")[1]
    assert [child.tag for child in abort] == [
        f"{MB}index",
        f"{MB}outcome",
        f"{MB}header",
        f"{MB}body",
    ]
    assert abort.findtext(f"{MB}outcome") == "aborted"
    assert base64.b64decode(abort.findtext(f"{MB}body") or "") == problem


def test_json_form_matches_the_spec_examples() -> None:
    thesis = json.loads((DOCUMENTS / "multistatus.thesis-post-then-get.response.json").read_text())
    assert _json(THESIS) == thesis
    rolled = json.loads((DOCUMENTS / "multistatus.atomic-rolled-back.response.json").read_text())
    results = [
        PartResult(0, "/books", "books", 201, "rolled-back", [("Location", "/books/17")]),
        PartResult(
            1,
            "/books/1",
            "books/1",
            200,
            "rolled-back",
            [("Content-Type", "application/json")],
            b'{"id":1}',
        ),
        PartResult(
            2,
            "/books/2",
            "books/2",
            409,
            None,
            [("Content-Type", "application/problem+json")],
            b'{"title":"Conflict","status":409}',
        ),
        PartResult(3, "/books/3", "books/3", None, "skipped"),
    ]
    assert _json(results) == rolled


def test_json_form_validates_against_the_multistatus_schema() -> None:
    schema = json.loads((SPEC / "schemas" / "multistatus.schema.json").read_text())
    results = [
        *THESIS,
        PartResult(2, "/bin", "bin", 200, None, [], b"\xff\x00\xfe"),
        PartResult(3, "/s", "s", None, "skipped"),
        PartResult(
            4, None, None, None, "aborted", [("Content-Type", "application/problem+json")], b"{}"
        ),
    ]
    jsonschema.validate(_json(results), schema)


def test_json_form_puts_a_body_in_exactly_one_member_chosen_by_its_octets() -> None:
    # MB-MULTI-7: `body` when the octets are valid UTF-8 (empty included), else `body_base64`.
    entries = _json(
        [
            PartResult(0, "/t", "t", 200, None, [], "naïve ✓".encode()),
            PartResult(1, "/e", "e", 204, None, [], b""),
            PartResult(2, "/b", "b", 200, None, [("Content-Type", "text/plain")], b"\xc3\x28"),
        ]
    )["responses"]
    assert entries[0]["body"] == "naïve ✓"
    assert "body_base64" not in entries[0]
    assert entries[1]["body"] == ""
    assert "body_base64" not in entries[1]
    assert "body" not in entries[2]
    assert base64.b64decode(entries[2]["body_base64"]) == b"\xc3\x28"


def test_json_form_writes_responses_first_and_summary_last_so_it_streams() -> None:
    renderer = JsonRenderer("draft-02")
    head = renderer.start() + renderer.part(THESIS[0])
    assert head.startswith(b'{"responses":[{')
    summary = Summary()
    summary.add(THESIS[0])
    tail = renderer.end(summary)
    assert b'"summary"' in tail
    assert b'"responses"' not in tail
    assert json.loads(head + tail)["summary"]["ok"] == 1


def test_json_form_separates_entries_with_commas_only_between_parts() -> None:
    document = _json([PartResult(i, f"/{i}", str(i), 200, None) for i in range(3)])
    assert [entry["index"] for entry in document["responses"]] == [0, 1, 2]
    assert document["spec_version"] == "draft-02"
