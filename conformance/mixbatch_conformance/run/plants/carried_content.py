"""Planted content a 207 form or a response part carries other than the sub-response's
(MB-MULTI-5, MB-TEST-6).

    json-control-escapes-in-decimal    the JSON form's string writer formats a control
                                       character's `\\u` escape in decimal, not hex, so 0x1B
                                       (27) is written `\\u0027` and read back as an
                                       apostrophe, 0x0C as 0x12 and DEL (127) as U+0127; the
                                       multipart form carries the octets themselves (MB-MULTI-5).
                                       It runs over the octet store of `member_octets` (a
                                       sandbox that keeps content of any media type over the
                                       reference's JSON sandbox), since only such a body holds
                                       control characters that a JSON string escapes
    status-resource-304-with-content   the status resource answers 304 with the content and
                                       Content-Type it gives other codes ("status 304"): alone,
                                       HTTP framing drops that content, so only a part shows it,
                                       in every form (MB-TEST-6: "with no content for 204 and
                                       304")
"""

from __future__ import annotations

import base64
import re
from typing import Any

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import (
    Part,
    field_of,
    map_json,
    map_parts,
    map_xml,
    set_field,
)
from mixbatch_conformance.run.plants.member_octets import OctetStore, utf8_text
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: The short escapes a JSON writer gives some controls (RFC 8259 §7), which the plant keeps.
SHORT_ESCAPES = frozenset({0x08, 0x09, 0x0A, 0x0C, 0x0D})


def _decimal_escape(char: str) -> str:
    """The character a reader gets from `\\u` and the code of `char` in four decimal digits."""
    code = ord(char)
    if (code >= 0x20 and code != 0x7F) or code in SHORT_ESCAPES:
        return char
    return chr(int(f"{code:04d}", 16))


def _json_text_in_decimal(octets: bytes) -> str | None:
    text = utf8_text(octets)
    return None if text is None else "".join(map(_decimal_escape, text))


_ESCAPES = OctetStore(json_text=_json_text_in_decimal)

#: The reference server's status resource for 304, as a target or Content-Id echo names it.
STATUS_304 = re.compile(r"^<?/status/304>?$")
#: What the planted status resource answers 304 with.
CONTENT = b"status 304\n"
CONTENT_TYPE = "text/plain; charset=utf-8"


def _parts_304(parts: list[Part]) -> list[Part]:
    out: list[Part] = []
    for fields, body in parts:
        cid = (field_of(fields, "Content-Id") or "").strip()
        if field_of(fields, "Http-Status-Code") == "304" and STATUS_304.match(cid):
            fields = set_field(fields, "Content-Type", CONTENT_TYPE)
            fields = set_field(fields, "Content-Length", str(len(CONTENT)))
            body = CONTENT
        out.append((fields, body))
    return out


def _json_304(doc: dict[str, Any]) -> None:
    for entry in doc.get("responses") or []:
        if entry.get("status") == 304 and STATUS_304.match(str(entry.get("href") or "")):
            entry["headers"] = [*entry.get("headers", []), ["Content-Type", CONTENT_TYPE]]
            entry.pop("body_base64", None)
            entry["body"] = CONTENT.decode()


def _xml_304(body: bytes) -> bytes:
    def one(m: re.Match[bytes]) -> bytes:
        block = m.group(0)
        if b"<D:href>/status/304</D:href>" not in block or b"HTTP/1.1 304" not in block:
            return block
        header = b'<mb:header name="Content-Type">' + CONTENT_TYPE.encode() + b"</mb:header>"
        return re.sub(
            rb'<mb:body encoding="base64">[^<]*</mb:body>',
            header + b'<mb:body encoding="base64">' + base64.b64encode(CONTENT) + b"</mb:body>",
            block,
        )

    return re.sub(rb"(?s)<D:response>.*?</D:response>", one, body)


_PARTS, _JSON, _XML = map_parts(_parts_304), map_json(_json_304), map_xml(_xml_304)


def _status_304_with_content(req: RelayRequest, resp: RelayResponse) -> None:
    for edit in (_PARTS, _JSON, _XML):
        edit(req, resp)


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "json-control-escapes-in-decimal",
        "MB-MULTI-5 the JSON form's control characters escaped with their code in decimal",
        ("multistatus-body-members-whole-body", "multistatus-json-body-members-chosen-octets"),
        caught_by=("FAIL",),
        on_request=_ESCAPES.request,
        on_response=_ESCAPES.response,
    ),
    Mutation(
        "status-resource-304-with-content",
        "MB-TEST-6 the status resource's 304 answered with content, carried by its part",
        ("no-content-on-204-304", "no-content-parts-as-alone"),
        caught_by=("FAIL",),
        on_response=_status_304_with_content,
    ),
)
