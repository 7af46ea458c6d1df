"""Planted violations of what a 207 entry's header fields hold (MB-MULTI-5).

    json-entry-fields-from-part-section   the JSON form lists in each entry's `headers` the
                                          header section of the multipart response part:
                                          Content-Id, Http-Status-Code (or Batch-Outcome),
                                          then the sub-response's fields
    xml-entry-fields-from-part-section    the XML form writes one mb:header for each of those
                                          part fields too

Spec 6.1 makes the fields a 207 entry carries "the sub-response's, as [MB-RESP-4] puts them
in the response part"; the part's mixbatch fields frame the multipart form. The abort report
keeps its one Content-Type (MB-MULTI-12), which other checks judge.
"""

from __future__ import annotations

import re
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import map_json, map_xml

__all__ = ["PLANTS"]


def _part_section(content_id: object, status: object, outcome: object) -> list[list[str]]:
    """The mixbatch fields of a response part, as a multipart writer puts them first."""
    fields = [["Content-Id", f"<{content_id}>"]]
    if isinstance(status, int):
        fields.append(["Http-Status-Code", str(status)])
    if isinstance(outcome, str):
        fields.append(["Batch-Outcome", outcome])
    return fields


def _json_with_part_section(doc: dict[str, Any]) -> None:
    for entry in doc.get("responses") or []:
        if entry.get("outcome") == "aborted":
            continue
        section = _part_section(entry.get("content_id"), entry.get("status"), entry.get("outcome"))
        entry["headers"] = [*section, *entry.get("headers", [])]


def _text(response: bytes, element: bytes) -> str | None:
    m = re.search(rb"<" + element + rb">([^<]*)</" + element + rb">", response)
    return m[1].decode("utf-8") if m else None


def _xml_response_with_part_section(m: re.Match[bytes]) -> bytes:
    response = m[0]
    outcome = _text(response, b"mb:outcome")
    if outcome == "aborted":
        return response
    status = _text(response, rb"D:status")
    code = int(status.split(" ")[1]) if status and len(status.split(" ")) > 1 else None
    cid = _text(response, b"mb:content-id") or ""
    section = _part_section(cid.replace("&amp;", "&"), code, outcome)
    headers = "".join(
        f"<mb:header name={quoteattr(n)}>{escape(v)}</mb:header>" for n, v in section
    ).encode("utf-8")
    return re.sub(rb"(<mb:header\b|<mb:body\b)", lambda h: headers + h[1], response, count=1)


def _xml_with_part_section(body: bytes) -> bytes:
    return re.sub(
        rb"<D:response>.*?</D:response>", _xml_response_with_part_section, body, flags=re.S
    )


P = Mutation
_CATCHERS = ("multistatus-entry-fields-as-sub-response",)
PLANTS: tuple[Mutation, ...] = (
    P(
        "json-entry-fields-from-part-section",
        "MB-MULTI-5 JSON entries listing the response part's Content-Id, Http-Status-Code and "
        "Batch-Outcome among the sub-response's fields",
        _CATCHERS,
        on_response=map_json(_json_with_part_section),
    ),
    P(
        "xml-entry-fields-from-part-section",
        "MB-MULTI-5 XML entries writing the response part's Content-Id, Http-Status-Code and "
        "Batch-Outcome as mb:header elements",
        _CATCHERS,
        on_response=map_xml(_xml_with_part_section),
    ),
)
