"""Planted violations of how the 207 forms escape the values they carry (spec 6.3, 6.4:
MB-MULTI-3, MB-MULTI-4, MB-MULTI-6).

- header field values written unescaped in one form: the XML form's values as CDATA sections
  (so `]]>` ends one early), or with only `<` and `>` escaped (a bare `&`), or the JSON form's
  with only quotes escaped (a bare backslash, a raw HTAB). The reference server's sandbox
  answers every member as `application/json` whatever it was written with, so the relay plays
  a sandbox that keeps the Content-Type a member was POSTed with: it gives that value to the
  member's parts in every form, written right in all but the planted one;
- the JSON form's `body` strings written with only quotes escaped, so a body holding a
  backslash breaks the document;
- the XML form's `DAV:href` and `mb:content-id` written with `&` unescaped, or with text that
  already looks like an entity (`&amp;`, `&lt;`) left as it is, so the href reads back as
  another reference.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit
from xml.sax.saxutils import escape

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import (
    Part,
    field_of,
    is_batch,
    map_parts,
    map_xml,
    set_field,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

_RESPONSE = re.compile(rb"<D:response>.*?</D:response>", re.S)
_HREF = re.compile(rb"<D:href>([^<]*)</D:href>")
_XML_TYPE = b'<mb:header name="Content-Type">application/json</mb:header>'
_ENTITY = re.compile(r"&amp;(amp|lt|gt|quot|apos|#[0-9]+|#x[0-9A-Fa-f]+);")


def _quotes_only(value: str) -> str:
    """A JSON string written by a hand-made escaper that escapes quotes and nothing else."""
    return '"' + value.replace('"', '\\"') + '"'


def _xml_value(value: str, broken: str) -> bytes:
    if broken == "xml-cdata":
        text = "<![CDATA[" + value + "]]>"
    elif broken == "xml-amp":
        text = value.replace("<", "&lt;").replace(">", "&gt;")
    else:
        text = escape(value)
    return text.encode("utf-8")


class _KeptTypes:
    """A sandbox that answers each member with the Content-Type it was POSTed with, behind a
    207 form (`broken`) that writes such a value unescaped."""

    def __init__(self, broken: str) -> None:
        self.broken = broken
        self.kept: dict[str, str] = {}

    def response(self, req: RelayRequest, resp: RelayResponse) -> None:
        written = req.get("Content-Type") or ""
        location = resp.get("Location")
        if req.method == "POST" and not is_batch(req) and ";" in written:
            if resp.status == 201 and location:
                self.kept[urlsplit(location).path] = written
            return
        if not is_batch(req) or not self.kept:
            return
        map_parts(self._parts)(req, resp)
        if resp.status == 207 and "json" in (resp.get("Content-Type") or ""):
            resp.body = self._json(json.loads(resp.body))
        map_xml(self._xml)(req, resp)

    def _type(self, target: str | None) -> str | None:
        return self.kept.get(urlsplit(target or "").path)

    def _parts(self, parts: list[Part]) -> list[Part]:
        out: list[Part] = []
        for f, b in parts:
            kept = self._type((field_of(f, "Content-Id") or "").strip("<>"))
            if kept and field_of(f, "Content-Type") == "application/json":
                f = set_field(f, "Content-Type", kept)
            out.append((f, b))
        return out

    def _json(self, doc: dict[str, Any]) -> bytes:
        values: list[str] = []
        for entry in doc.get("responses") or []:
            kept = self._type(entry.get("href"))
            if not kept:
                continue
            for pair in entry.get("headers") or []:
                if pair[0].lower() == "content-type" and pair[1] == "application/json":
                    pair[1] = kept
                    values.append(kept)
        text = json.dumps(doc, ensure_ascii=False)
        if self.broken == "json-quotes-only":
            for value in set(values):
                text = text.replace(json.dumps(value, ensure_ascii=False), _quotes_only(value))
        return text.encode("utf-8")

    def _xml(self, body: bytes) -> bytes:
        def response(m: re.Match[bytes]) -> bytes:
            href = _HREF.search(m[0])
            kept = self._type(href[1].decode("utf-8") if href else None)
            if not kept:
                return m[0]
            header = b'<mb:header name="Content-Type">' + _xml_value(kept, self.broken)
            return m[0].replace(_XML_TYPE, header + b"</mb:header>")

        return _RESPONSE.sub(response, body)


def _json_bodies_quotes_only(req: RelayRequest, resp: RelayResponse) -> None:
    """The JSON form's body strings written escaping quotes only."""
    if not is_batch(req) or resp.status != 207 or "json" not in (resp.get("Content-Type") or ""):
        return
    doc = json.loads(resp.body)
    bodies = {e["body"] for e in doc.get("responses") or [] if isinstance(e.get("body"), str)}
    text = json.dumps(doc, ensure_ascii=False)
    for body in bodies:
        if "\\" in body:
            text = text.replace(json.dumps(body, ensure_ascii=False), _quotes_only(body))
    resp.body = text.encode("utf-8")


def _in_references(fn: Callable[[str], str]) -> Callable[[bytes], bytes]:
    """Apply `fn` to the text of each DAV:href and mb:content-id element."""

    def edit(body: bytes) -> bytes:
        return re.sub(
            rb"(<(?:D:href|mb:content-id)>)([^<]*)(</)",
            lambda m: m[1] + fn(m[2].decode("utf-8")).encode("utf-8") + m[3],
            body,
        )

    return edit


_cdata = _KeptTypes("xml-cdata")
_amp = _KeptTypes("xml-amp")
_quotes = _KeptTypes("json-quotes-only")
_ESCAPED = ("field-values-escaped-every-form",)
_HREFS = ("multistatus-content-ids",)

P = Mutation
PLANTS: tuple[Mutation, ...] = (
    P(
        "xml-field-values-in-cdata",
        "MB-MULTI-3 XML header values written as CDATA sections, cut by ]]>",
        _ESCAPED,
        on_response=_cdata.response,
    ),
    P(
        "xml-field-values-ampersand-bare",
        "MB-MULTI-3 XML header values written with & unescaped",
        _ESCAPED,
        on_response=_amp.response,
    ),
    P(
        "json-field-values-backslash-bare",
        "MB-MULTI-4 JSON header values written with quotes escaped and backslashes bare",
        _ESCAPED,
        on_response=_quotes.response,
    ),
    P(
        "json-bodies-backslash-bare",
        "MB-MULTI-4 JSON body strings written with quotes escaped and backslashes bare",
        _ESCAPED,
        on_response=_json_bodies_quotes_only,
    ),
    P(
        "xml-href-ampersand-bare",
        "MB-MULTI-3 XML DAV:href and mb:content-id written with & unescaped",
        _HREFS,
        on_response=map_xml(_in_references(lambda t: t.replace("&amp;", "&"))),
    ),
    P(
        "xml-href-entity-text-kept",
        "MB-MULTI-6 XML DAV:href written with entity-like text left unescaped",
        _HREFS,
        on_response=map_xml(_in_references(lambda t: _ENTITY.sub(r"&\1;", t))),
    ),
)
