"""The 207 Multi-Status representations of a batch result: XML and JSON.

XML (``application/xml``, MB-MULTI-3) is an RFC 4918 §14.16 ``multistatus`` with one
``response`` per part in request order. Each carries ``href`` (the resolved target, which may
repeat: a documented departure from RFC 4918, whose hrefs name distinct resources) and, when the
part ran, ``status`` as an HTTP status-line. RFC 4918 §17 lets extension elements appear
anywhere, so the rest is in the mixbatch namespace: ``index``, ``content-id``, ``outcome``,
``header`` (name attribute, value text) and ``body`` (base64, so binary content survives). A
skipped part carries no DAV ``status`` rather than a faked 424 (MB-RESP-5 in spirit).

JSON (``application/vnd.mixbatch.multistatus+json``, MB-MULTI-4) follows
spec/schemas/multistatus.schema.json. Its ``responses`` member is written first and ``summary``
last, so the document streams part by part like the multipart form. MB-MULTI-2: neither form
ever carries a multipart body.
"""

from __future__ import annotations

import base64
import json
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from mixbatch._http.problems import reason

from ._results import PartResult, Renderer, Summary

__all__ = [
    "JSON_MEDIA_TYPE",
    "MIXBATCH_XML_NAMESPACE",
    "XML_MEDIA_TYPE",
    "JsonRenderer",
    "XmlRenderer",
]

XML_MEDIA_TYPE = "application/xml"
JSON_MEDIA_TYPE = "application/vnd.mixbatch.multistatus+json"
#: The namespace of mixbatch's extension elements inside a DAV multistatus.
MIXBATCH_XML_NAMESPACE = "https://mixbatch.dev/ns/multistatus"


class XmlRenderer(Renderer):
    """RFC 4918 multistatus with mixbatch extension elements."""

    media_type = XML_MEDIA_TYPE
    status = 207

    @property
    def content_type(self) -> str:
        return f"{XML_MEDIA_TYPE}; charset=utf-8"

    def start(self) -> bytes:
        return (
            '<?xml version="1.0" encoding="utf-8"?>\n'
            f'<D:multistatus xmlns:D="DAV:" xmlns:mb={quoteattr(MIXBATCH_XML_NAMESPACE)}>\n'
        ).encode()

    def part(self, result: PartResult) -> bytes:
        lines = ["<D:response>"]
        if result.href is not None:
            lines.append(f"<D:href>{escape(result.href)}</D:href>")
        if result.status is not None:
            lines.append(
                f"<D:status>HTTP/1.1 {result.status} {escape(reason(result.status))}</D:status>"
            )
        lines.append(f"<mb:index>{result.index}</mb:index>")
        if result.content_id is not None:
            lines.append(f"<mb:content-id>{escape(result.content_id)}</mb:content-id>")
        if result.outcome is not None:
            lines.append(f"<mb:outcome>{escape(result.outcome)}</mb:outcome>")
        for name, value in result.fields:
            lines.append(f"<mb:header name={quoteattr(name)}>{escape(value)}</mb:header>")
        encoded = base64.b64encode(result.body).decode("ascii")
        lines.append(f'<mb:body encoding="base64">{encoded}</mb:body>')
        lines.append("</D:response>\n")
        return "".join(lines).encode("utf-8")

    def end(self, summary: Summary) -> bytes:
        return b"</D:multistatus>\n"


class JsonRenderer(Renderer):
    """The JSON multi-status document of spec/schemas/multistatus.schema.json."""

    media_type = JSON_MEDIA_TYPE
    status = 207

    def __init__(self, spec_version: str) -> None:
        self._spec_version = spec_version
        self._first = True

    def start(self) -> bytes:
        return b'{"responses":['

    def part(self, result: PartResult) -> bytes:
        entry: dict[str, Any] = {
            "index": result.index,
            "href": result.href,
            "content_id": result.content_id,
            "status": result.status,
            "outcome": result.outcome,
            "headers": [[name, value] for name, value in result.fields],
        }
        try:
            entry["body"] = result.body.decode("utf-8")
        except UnicodeDecodeError:
            entry["body_base64"] = base64.b64encode(result.body).decode("ascii")
        text = json.dumps(entry, separators=(",", ":"), ensure_ascii=False)
        prefix = "" if self._first else ","
        self._first = False
        return (prefix + text).encode("utf-8")

    def end(self, summary: Summary) -> bytes:
        tail = {"summary": summary.as_document(), "spec_version": self._spec_version}
        return ("]," + json.dumps(tail, separators=(",", ":"))[1:]).encode("utf-8")
