"""Readers for the three representations of a batch result, reduced to comparable entries.

Theory of operation: MB-MULTI-5 says the multipart, XML and JSON forms of one result carry
the same statuses, outcomes, header fields and bodies. Each reader here turns one form into
a list of `Entry` values (index, status, outcome, content_id, fields, body) so that a check
compares lists, not documents. The XML reader follows spec §6.3 (DAV:response with
DAV:status "HTTP/1.1 NNN", mb:index, mb:content-id, mb:outcome, mb:header name=..., mb:body
in base64); the JSON reader validates against spec/schemas/multistatus.schema.json first.

`comparable_fields` drops the fields a comparison must ignore: the target's volatile fields,
`Date`, the framing and hop-by-hop fields MB-RESP-4 drops, and the part fields the batch itself
adds (Http-Status-Code, Content-Id, Batch-Outcome). Names compare case-insensitively, order is
kept (spec 3.2.4).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from xml.etree import ElementTree

from mixbatch_conformance.core.schemas import validate_against
from mixbatch_conformance.core.validator import Envelope

__all__ = [
    "Entry",
    "comparable_fields",
    "entries_from_json",
    "entries_from_multipart",
    "entries_from_xml",
]

MB_NS = "https://mixbatch.dev/ns/multistatus"
DAV_NS = "DAV:"
#: Left out of every comparison (spec 3.2.4: "equal header fields after leaving out the fields
#: MB-RESP-4 drops, `Date` and the declared volatile fields"), with the part fields the batch
#: itself adds (Http-Status-Code, Content-Id, Batch-Outcome; MB-MULTI-5 compares those apart).
IGNORED = {
    # MB-RESP-4: "except the connection-specific and framing fields `Connection`,
    # `Keep-Alive`, `Proxy-Connection`, `TE`, `Transfer-Encoding`, `Upgrade`, `Trailer` and
    # `Content-Length`".
    "connection",
    "keep-alive",
    "proxy-connection",
    "te",
    "transfer-encoding",
    "upgrade",
    "trailer",
    "content-length",
    "date",
    "http-status-code",
    "content-id",
    "batch-outcome",
}


def comparable_fields(
    fields: Iterable[tuple[str, str]], volatile: Iterable[str]
) -> tuple[tuple[str, str], ...]:
    skip = IGNORED | {v.lower() for v in volatile}
    return tuple((n.lower(), v) for n, v in fields if n.lower() not in skip)


@dataclass(frozen=True)
class Entry:
    """One part's result, whatever the representation it came from."""

    index: int | None
    status: int | None
    outcome: str | None
    content_id: str | None
    fields: tuple[tuple[str, str], ...]
    body: bytes

    def comparable(self, volatile: Iterable[str]) -> tuple[object, ...]:
        return (self.status, self.outcome, comparable_fields(self.fields, volatile), self.body)


def entries_from_multipart(env: Envelope, volatile: Iterable[str] = ()) -> list[Entry]:
    out = []
    for part in env.parts:
        status = part.get("Http-Status-Code")
        cid = part.get("Content-Id")
        out.append(
            Entry(
                part.index,
                int(status) if status and status.isdigit() else None,
                part.get("Batch-Outcome"),
                cid[1:-1] if cid and cid.startswith("<") and cid.endswith(">") else cid,
                part.fields,
                part.body,
            )
        )
    return out


def _local(tag: str) -> tuple[str, str]:
    m = re.fullmatch(r"\{([^}]*)\}(.*)", tag)
    return (m.group(1), m.group(2)) if m else ("", tag)


def entries_from_xml(body: bytes) -> tuple[list[Entry], str | None]:
    """Entries of a DAV:multistatus document, or a problem in words."""
    try:
        root = ElementTree.fromstring(body)
    except ElementTree.ParseError as exc:
        return [], f"not well-formed XML: {exc}"
    if _local(root.tag) != (DAV_NS, "multistatus"):
        return [], f"root element is {root.tag!r}, not DAV:multistatus"
    out = []
    for resp in root:
        if _local(resp.tag) != (DAV_NS, "response"):
            continue
        index = status = None
        outcome = cid = None
        fields: list[tuple[str, str]] = []
        data = b""
        for child in resp:
            ns, name = _local(child.tag)
            text = child.text or ""
            if (ns, name) == (DAV_NS, "status"):
                m = re.fullmatch(r"HTTP/1\.1 ([0-9]{3})(?: .*)?", text.strip())
                if not m:
                    return [], f"DAV:status {text!r} is not 'HTTP/1.1 NNN'"
                status = int(m.group(1))
            elif ns == MB_NS and name == "index":
                index = int(text) if text.strip().isdigit() else None
            elif ns == MB_NS and name == "outcome":
                outcome = text.strip()
            elif ns == MB_NS and name == "content-id":
                cid = text
            elif ns == MB_NS and name == "header":
                fields.append((child.get("name", ""), text))
            elif ns == MB_NS and name == "body":
                # MB-MULTI-6: "one `mb:body` element with the attribute `encoding="base64"`
                # holding the body in base64 (RFC 4648 §4, no line breaks)".
                if child.get("encoding") != "base64":
                    return [], f"mb:body has encoding {child.get('encoding')!r}, not 'base64'"
                try:
                    data = base64.b64decode(text.strip(), validate=True)
                except (binascii.Error, ValueError):
                    return [], f"mb:body is not base64: {text[:40]!r}"
        out.append(Entry(index, status, outcome, cid, tuple(fields), data))
    return out, None


def entries_from_json(body: bytes) -> tuple[list[Entry], str | None]:
    """Entries of a JSON multistatus document, or a problem in words."""
    try:
        doc = json.loads(body)
    except ValueError as exc:
        return [], f"not JSON: {exc}"
    problem = validate_against("multistatus.schema.json", doc)
    if problem is not None:
        return [], problem
    out = []
    for item in doc["responses"]:
        if "body_base64" in item:
            data = base64.b64decode(item["body_base64"])
        else:
            data = item.get("body", "").encode("utf-8")
        out.append(
            Entry(
                item["index"],
                item["status"],
                item["outcome"],
                item["content_id"],
                tuple((n, v) for n, v in item["headers"]),
                data,
            )
        )
    return out, None
