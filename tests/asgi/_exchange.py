"""Driving an ASGI app with raw batch bytes through httpx's ASGI transport, and reading the
answer back with the codec: the exchange every middleware test makes."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import jsonschema

from mixbatch.codec import (
    BatchParser,
    BatchWriter,
    PartData,
    ResponsePartStart,
    Role,
    parse_batch_content_type,
)

__all__ = ["SCHEMAS", "batch", "call", "parts_of", "problem"]

SCHEMAS = Path(__file__).resolve().parents[2] / "spec" / "schemas"


def call(
    app: Any,
    method: str,
    path: str,
    headers: dict[str, str] | list[tuple[str, str]] | None = None,
    body: bytes = b"",
) -> httpx.Response:
    async def main() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            return await client.request(method, path, headers=headers, content=body)

    return asyncio.run(main())


def batch(*parts: tuple[str, str, list[tuple[str, str]], bytes]) -> tuple[dict[str, str], bytes]:
    writer = BatchWriter()
    content = b"".join(writer.request_part(m, t, f, b) for m, t, f, b in parts) + writer.close()
    return {"Content-Type": writer.content_type}, content


def parts_of(
    response: httpx.Response,
) -> list[tuple[int | None, str | None, dict[str, str], bytes]]:
    assert response.status_code == 200, response.text
    parser = BatchParser(parse_batch_content_type(response.headers["content-type"]), Role.RESPONSE)
    out: list[tuple[int | None, str | None, dict[str, str], bytes]] = []
    for event in parser.feed(response.content) + parser.feed_eof():
        if isinstance(event, ResponsePartStart):
            fields = {k.lower(): v for k, v in event.fields}
            if event.content_id is not None:
                fields["content-id"] = f"<{event.content_id}>"
            out.append((event.status, event.outcome, fields, b""))
        elif isinstance(event, PartData):
            status, outcome, fields, body = out[-1]
            out[-1] = (status, outcome, fields, body + bytes(event.data))
    return out


def problem(response: httpx.Response) -> dict[str, Any]:
    assert response.headers["content-type"] == "application/problem+json"
    document: dict[str, Any] = response.json()
    jsonschema.validate(document, json.loads((SCHEMAS / "problem.schema.json").read_text()))
    return document
