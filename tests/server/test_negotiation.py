"""Accept negotiation of batch representations: multipart (200), XML and JSON (207)."""

from __future__ import annotations

import base64
import json
import xml.etree.ElementTree as ET
from typing import Any

import jsonschema
import pytest

from mixbatch._http.negotiation import choose, parse_prefer
from mixbatch.server._multistatus import MIXBATCH_XML_NAMESPACE

from ._client import HttpClient, parse_batch, post_batch
from .test_batch_endpoint import JSON_FIELDS, schema

OFFERS = ("multipart/mixed", "application/xml", "application/vnd.mixbatch.multistatus+json")
DAV = "{DAV:}"
MB = "{" + MIXBATCH_XML_NAMESPACE + "}"
PARTS: list[Any] = [
    ("GET", "books/1"),
    ("GET", "books/99"),
    ("POST", "books", JSON_FIELDS, b"not json"),
    ("GET", "random/16?seed=3"),
]


@pytest.mark.parametrize(
    ("accept", "expected"),
    [
        (None, "multipart/mixed"),
        ("", "multipart/mixed"),
        ("*/*", "multipart/mixed"),
        ("application/*", "application/xml"),
        ("application/xml, multipart/mixed", "multipart/mixed"),
        ("application/xml;q=0.9, multipart/mixed;q=0.5", "application/xml"),
        ("application/vnd.mixbatch.multistatus+json", OFFERS[2]),
        ("multipart/*;q=0, */*", "application/xml"),
        ("text/html", None),
        ("multipart/mixed;q=0", None),
        ("garbage", "multipart/mixed"),
    ],
)
def test_choose_ranks_offers_by_specific_quality(accept: str | None, expected: str | None) -> None:
    assert choose(accept, OFFERS) == expected


def test_parse_prefer_takes_first_value_of_each_preference() -> None:
    assert parse_prefer(["batch-on-error=stop; x=1", "batch-on-error=continue, wait=5"]) == {
        "batch-on-error": "stop",
        "wait": "5",
    }


def test_xml_multistatus_is_207_well_formed_with_one_response_per_part(client: HttpClient) -> None:
    reply = post_batch(client, PARTS, [("Accept", "application/xml")])
    assert reply.status == 207
    assert reply.header("Content-Type") == "application/xml; charset=utf-8"
    root = ET.fromstring(reply.body)
    assert root.tag == DAV + "multistatus"
    responses = root.findall(DAV + "response")
    assert [r.findtext(MB + "index") for r in responses] == ["0", "1", "2", "3"]
    assert [r.findtext(DAV + "status") for r in responses] == [
        "HTTP/1.1 200 OK",
        "HTTP/1.1 404 Not Found",
        "HTTP/1.1 400 Bad Request",
        "HTTP/1.1 200 OK",
    ]
    assert [r.findtext(DAV + "href") for r in responses][:2] == ["/books/1", "/books/99"]
    assert responses[0].findtext(MB + "content-id") == "books/1"
    body = base64.b64decode(responses[3].findtext(MB + "body") or "")
    assert len(body) == 16


def test_json_multistatus_is_207_and_validates_against_schema(client: HttpClient) -> None:
    reply = post_batch(client, PARTS, [("Accept", "application/vnd.mixbatch.multistatus+json")])
    assert reply.status == 207
    document = json.loads(reply.body)
    jsonschema.validate(document, schema("multistatus.schema.json"))
    assert [e["status"] for e in document["responses"]] == [200, 404, 400, 200]
    assert document["summary"] == {"ok": 2, "failed": 2, "skipped": 0, "rolled_back": 0}
    assert "body_base64" in document["responses"][3]


def test_every_representation_carries_the_same_results(client: HttpClient) -> None:
    """MB-MULTI-5: same statuses, outcomes, header fields and bodies in every form."""
    prefer = [("Prefer", "batch-on-error=stop")]
    multipart = parse_batch(post_batch(client, PARTS, prefer))
    as_json = json.loads(post_batch(client, PARTS, [*prefer, ("Accept", OFFERS[2])]).body)[
        "responses"
    ]
    as_xml = ET.fromstring(post_batch(client, PARTS, [*prefer, ("Accept", OFFERS[1])]).body)
    for part, entry, element in zip(
        multipart, as_json, as_xml.findall(DAV + "response"), strict=True
    ):
        assert part.status == entry["status"]
        assert part.outcome == entry["outcome"] == element.findtext(MB + "outcome")
        fields = [(k, v) for k, v in part.fields if k.lower() != "content-length"]
        assert fields == [tuple(f) for f in entry["headers"]]
        assert fields == [(h.get("name"), h.text) for h in element.findall(MB + "header")]
        assert part.body == base64.b64decode(element.findtext(MB + "body") or "")
    assert [p.outcome for p in multipart] == [None, None, "skipped", "skipped"]


def test_207_never_carries_multipart(client: HttpClient) -> None:
    reply = post_batch(client, PARTS, [("Accept", "application/xml")])
    assert not (reply.header("Content-Type") or "").startswith("multipart/")


def test_several_accept_lines_are_one_list(client: HttpClient) -> None:
    """RFC 9110 §5.3: Accept lines combine into one list; the second line is not ignored."""
    reply = post_batch(
        client,
        PARTS,
        [
            ("Accept", "multipart/mixed;q=0.1"),
            ("Accept", "application/vnd.mixbatch.multistatus+json"),
        ],
    )
    assert reply.status == 207
    assert reply.header("Content-Type") == "application/vnd.mixbatch.multistatus+json"
