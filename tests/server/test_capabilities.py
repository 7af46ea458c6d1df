"""The capabilities document answered to OPTIONS on the batch endpoint (MB-LIMIT-2): it validates
against its schema, publishes the very limits the parser enforces (MB-LIMIT-1, MB-LIMIT-5), and
lists multipart/mixed first among the representations (MB-MULTI-1)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from mixbatch.codec import Limits
from mixbatch.server._capabilities import (
    CAPABILITIES_MEDIA_TYPE,
    PREFERENCES,
    PROFILES,
    capabilities,
    capabilities_response,
)

SCHEMA = Path(__file__).resolve().parents[2] / "spec" / "schemas" / "capabilities.schema.json"


def test_document_validates_against_the_capabilities_schema() -> None:
    jsonschema.validate(capabilities(Limits(), "/batch"), json.loads(SCHEMA.read_text()))


def test_document_publishes_the_limits_the_parser_enforces() -> None:
    limits = Limits(max_parts=3, max_part_fields=9)
    document = capabilities(limits, "/v1/batch")
    assert document["endpoint"] == "/v1/batch"
    assert document["limits"] == limits.as_document()
    assert document["limits"]["max_parts"] == 3
    assert document["limits"]["max_part_fields"] == 9


def test_multipart_is_the_first_representation() -> None:
    representations = capabilities(Limits(), "/batch")["representations"]
    assert representations[0] == "multipart/mixed"
    assert set(representations) == {
        "multipart/mixed",
        "application/xml",
        "application/vnd.mixbatch.multistatus+json",
    }


def test_document_lists_the_servers_profiles_and_preferences() -> None:
    document = capabilities(Limits(), "/batch")
    assert document["profiles"] == list(PROFILES)
    assert document["preferences"] == list(PREFERENCES)


def test_response_is_200_with_accept_post_and_allow() -> None:
    response = capabilities_response(Limits(), "/batch", "OPTIONS, POST")
    assert response.status == 200
    assert response.header("Content-Type") == CAPABILITIES_MEDIA_TYPE
    assert response.header("Accept-Post") == "multipart/mixed"
    assert response.header("Allow") == "OPTIONS, POST"
    assert isinstance(response.body, bytes)
    assert json.loads(response.body) == capabilities(Limits(), "/batch")
