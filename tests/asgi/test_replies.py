"""Whole responses the middleware answers itself: the capabilities document of MB-LIMIT-2
(validated against its schema, its limits the parser's own), and complete responses and
problem documents sent as ASGI messages with Content-Length (MB-STATUS-4)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import jsonschema

from mixbatch.asgi._replies import (
    PROBLEM_MEDIA_TYPE,
    SPEC_VERSION,
    capabilities,
    send_problem,
    send_whole,
)
from mixbatch.asgi._types import Message
from mixbatch.codec import Limits, RemoteProtocolError

SCHEMA = Path(__file__).resolve().parents[2] / "spec" / "schemas" / "capabilities.schema.json"


def test_capabilities_document_validates_and_publishes_the_parsers_limits() -> None:
    limits = Limits(max_parts=7)
    document = capabilities(limits, "/batch", ["core", "limits"])
    jsonschema.validate(document, json.loads(SCHEMA.read_text()))
    assert document["spec_version"] == SPEC_VERSION
    assert document["endpoint"] == "/batch"
    assert document["limits"] == limits.as_document()
    assert document["limits"]["max_parts"] == 7
    assert document["representations"] == ["multipart/mixed"]
    assert "preferences" not in document


def test_capabilities_lists_the_error_policy_preferences_with_that_profile() -> None:
    document = capabilities(Limits(), "/batch", ["core", "error-policy"])
    assert document["preferences"] == ["batch-on-error=continue", "batch-on-error=stop"]


def _sent(coroutine: Any) -> list[Message]:
    messages: list[Message] = []

    async def send(message: Message) -> None:
        messages.append(message)

    asyncio.run(coroutine(send))
    return messages


def test_send_whole_sends_a_start_with_content_length_then_the_whole_body() -> None:
    start, body = _sent(lambda send: send_whole(send, 200, [("Content-Type", "text/plain")], b"hi"))
    assert start == {
        "type": "http.response.start",
        "status": 200,
        "headers": [(b"content-type", b"text/plain"), (b"content-length", b"2")],
    }
    assert body == {"type": "http.response.body", "body": b"hi", "more_body": False}


def test_send_problem_sends_a_document_with_its_own_status() -> None:
    document = {"type": "about:blank", "title": "Too Many", "status": 413, "detail": "x"}
    start, body = _sent(lambda send: send_problem(send, document, [("Retry-After", "1")]))
    assert start["status"] == 413
    assert (b"content-type", PROBLEM_MEDIA_TYPE.encode()) in start["headers"]
    assert (b"retry-after", b"1") in start["headers"]
    assert json.loads(body["body"]) == document


def test_send_problem_describes_a_codec_error_with_its_requirement() -> None:
    error = RemoteProtocolError("no boundary", requirement="MB-WIRE-3", part_index=1)
    start, body = _sent(lambda send: send_problem(send, error))
    document = json.loads(body["body"])
    assert start["status"] == 400
    assert document["requirement"] == "MB-WIRE-3"
    assert document["part_index"] == 1
