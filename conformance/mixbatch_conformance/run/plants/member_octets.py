"""Planted transformations of a sandbox member's octets on the way in or out (MB-TEST-4,
MB-METHOD-4, MB-MULTI-5).

The reference server's sandbox (/books) stores JSON books and refuses other content (415), so
every plant here models, over it, a sandbox that stores content of any media type
(`OctetStore`): the relay carries a POST or PUT of another media type to a member, alone or as
a batch part, to the reference as a book whose title holds the media type and the octets,
compressed (so that content past the reference's 64 KiB book fits) and in base64, and turns
each such book back into those octets under that media type wherever the reference answers
with one: a response alone, a part of a batch's answer in the multipart form and in each 207
form, a part of a collection retrieval. With no transformation that store keeps every octet,
and `sandbox-member-octets-every-path` and `multistatus-body-members-whole-body` pass through
it (tests/conformance/test_member_octets_store.py); each plant adds one transformation of text
that a store or a writer of messages makes:

    text-members-stored-as-utf8             text in ISO-8859-1 or windows-1252 stored
                                            re-encoded as UTF-8 (charset=utf-8)
    retrieval-text-parts-canonical-crlf     a collection retrieval's text parts written in
                                            RFC 2046 canonical form, each bare LF as CRLF
    text-member-bom-stripped                a UTF-8 byte order mark dropped from stored text
    text-member-trailing-whitespace-trimmed spaces and tabs at the end of each line of text
                                            dropped
    octet-member-read-as-text               content of a media type that is not text stored
                                            through a UTF-8 decoder that replaces what is not
                                            UTF-8
    utf8-text-invalid-octets-replaced       text declared UTF-8 stored through that decoder
    text-member-cut-at-nul                  text stored up to its first NUL octet
    part-text-line-ends-canonical           text a batch part writes stored with each bare LF
                                            as CRLF, as a part parser that reads lines does
    batch-read-text-line-ends-canonical     text read by a GET part written with each bare LF
                                            as CRLF, in every form of the batch's answer
    json-form-text-decoded-by-charset       a text body put in the JSON form's `body` decoded
                                            by its charset parameter, not taken as octets
    untyped-member-type-null-in-json        content written alone with no media type stored as
                                            octets, and its missing media type written null in
                                            the JSON form's header list
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit
from xml.sax.saxutils import escape

from mixbatch_conformance.run.mutations import Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    Part,
    boundary_of,
    field_of,
    is_batch,
    parts_of,
    set_field,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS", "XML", "JsonText", "OctetStore", "Transform", "utf8_text"]

#: The reference server's sandbox collection and its members.
SANDBOX = re.compile(r"^/books(/[^/?]*)?$")
#: The author of a book that holds another media type's content, and the prefix of its title.
AUTHOR = "mb-relay-octets"
PREFIX = "octets:"
#: Where a content goes in or comes out: written or read alone, written by a batch part, read
#: in a batch's multipart, XML or JSON form, or read in a collection retrieval.
ALONE, PART, MULTIPART, XML, JSON_FORM, RETRIEVAL = (
    "alone",
    "part",
    "multipart",
    "xml",
    "json",
    "retrieval",
)
BATCH_FORMS = (MULTIPART, XML, JSON_FORM)

#: A transformation of a content: (its Content-Type, its octets, where) to what is stored or
#: written instead.
Transform = Callable[[str, bytes, str], tuple[str, bytes]]
#: How the JSON form writes a body's octets: the string it puts in `body`, or None for
#: `body_base64`.
JsonText = Callable[[bytes], str | None]


def _as_is(ctype: str, octets: bytes, where: str) -> tuple[str, bytes]:
    return ctype, octets


def utf8_text(octets: bytes) -> str | None:
    """MB-MULTI-7's choice: the octets as a string when the whole body is valid UTF-8."""
    try:
        return octets.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _essence(ctype: str) -> str:
    return ctype.split(";")[0].strip().lower()


def _charset(ctype: str) -> str | None:
    m = re.search(r"(?i);\s*charset=\"?([^\";\s]+)", ctype)
    return m.group(1).lower() if m else None


def _is_json(ctype: str) -> bool:
    essence = _essence(ctype)
    return essence == "application/json" or essence.endswith("+json")


def _book(ctype: str, octets: bytes) -> bytes:
    # Compressed, so that content past the reference's 64 KiB book still fits in one.
    held = base64.b64encode(zlib.compress(ctype.encode("latin-1") + b"\n" + octets)).decode()
    return json.dumps({"title": PREFIX + held, "author": AUTHOR}).encode()


def _unbook(body: bytes) -> tuple[str, bytes] | None:
    """The Content-Type and octets a book written by `_book` holds, else None."""
    try:
        doc = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(doc, dict) or doc.get("author") != AUTHOR:
        return None
    title = doc.get("title")
    if not isinstance(title, str) or not title.startswith(PREFIX):
        return None
    try:
        held = zlib.decompress(base64.b64decode(title[len(PREFIX) :], validate=True))
    except (binascii.Error, ValueError, zlib.error):
        return None
    ctype, _, octets = held.partition(b"\n")
    return ctype.decode("latin-1"), octets


def _in_sandbox(target: str) -> bool:
    return bool(SANDBOX.match(urlsplit(target).path))


@dataclass(frozen=True)
class OctetStore:
    """A sandbox that stores any content, over the reference's JSON sandbox, with `store`
    applied to what is written and `write` to what is read, and `json_text` choosing the JSON
    form's body member."""

    store: Transform = _as_is
    write: Transform = _as_is
    json_text: JsonText = utf8_text

    def request(self, req: RelayRequest) -> None:
        if is_batch(req):
            self._request_parts(req)
            return
        ctype = req.get("Content-Type")
        writes = req.method in ("POST", "PUT") and _in_sandbox(req.target)
        if writes and ctype and not _is_json(ctype):
            req.body = _book(*self.store(ctype, req.body, ALONE))
            req.headers = [(n, v) for n, v in req.headers if n.lower() != "content-type"]
            req.headers.append(("Content-Type", "application/json"))

    def _request_parts(self, req: RelayRequest) -> None:
        b = boundary_of(req)
        parts = parts_of(req.body, b) if b else None
        if parts is None or b is None:
            return
        out: list[Part] = []
        for fields, body in parts:
            method = (field_of(fields, "Http-Method") or "").upper()
            target = (field_of(fields, "Content-Id") or "").strip().strip("<>")
            ctype = field_of(fields, "Content-Type")
            if method in ("POST", "PUT") and _in_sandbox(target) and ctype and not _is_json(ctype):
                body = _book(*self.store(ctype, body, PART))
                fields = set_field(fields, "Content-Type", "application/json")
                fields = set_field(fields, "Content-Length", str(len(body)))
            out.append((fields, body))
        req.body = write_parts(out, b)

    def response(self, req: RelayRequest, resp: RelayResponse) -> None:
        b = boundary_of(resp)
        ctype = (resp.get("Content-Type") or "").lower()
        if b is not None:
            self._response_parts(resp, b, MULTIPART if is_batch(req) else RETRIEVAL)
        elif is_batch(req) and resp.status == 207 and "json" in ctype:
            self._json_form(resp)
        elif is_batch(req) and resp.status == 207 and "xml" in ctype:
            self._xml_form(resp)
        elif not is_batch(req) and (held := _unbook(resp.body)) is not None:
            held_type, octets = self.write(*held, ALONE)
            resp.set("Content-Type", held_type)
            resp.body = octets

    def _response_parts(self, resp: RelayResponse, b: str, where: str) -> None:
        parts = parts_of(resp.body, b)
        if parts is None:
            return
        out: list[Part] = []
        for fields, body in parts:
            held = _unbook(body)
            if held is not None:
                held_type, body = self.write(*held, where)
                fields = set_field(fields, "Content-Type", held_type)
                if field_of(fields, "Content-Length") is not None:
                    fields = set_field(fields, "Content-Length", str(len(body)))
            out.append((fields, body))
        resp.body = write_parts(out, b)

    def _json_form(self, resp: RelayResponse) -> None:
        doc = json.loads(resp.body)
        for entry in doc.get("responses", []) if isinstance(doc, dict) else []:
            body = _json_body(entry)
            held = _unbook(body) if body is not None else None
            if held is None:
                continue
            held_type, octets = self.write(*held, JSON_FORM)
            entry["headers"] = [
                [n, held_type if str(n).lower() == "content-type" else v]
                for n, v in entry.get("headers", [])
            ]
            entry.pop("body", None)
            entry.pop("body_base64", None)
            text = self.json_text(octets)
            if text is not None:
                entry["body"] = text
            else:
                entry["body_base64"] = base64.b64encode(octets).decode()
        resp.body = json.dumps(doc).encode()

    def _xml_form(self, resp: RelayResponse) -> None:
        def one(m: re.Match[bytes]) -> bytes:
            block = m.group(0)
            body = re.search(rb'<mb:body encoding="base64">([^<]*)</mb:body>', block)
            held = _unbook(base64.b64decode(body.group(1))) if body else None
            if body is None or held is None:
                return block
            held_type, octets = self.write(*held, XML)
            block = re.sub(
                rb'(<mb:header name="Content-Type">)[^<]*(</mb:header>)',
                lambda h: h.group(1) + escape(held_type).encode("latin-1") + h.group(2),
                block,
            )
            return block.replace(body.group(1), base64.b64encode(octets))

        resp.body = re.sub(rb"(?s)<D:response>.*?</D:response>", one, resp.body)


def _json_body(entry: dict[str, Any]) -> bytes | None:
    if isinstance(entry.get("body"), str):
        return str(entry["body"]).encode("utf-8")
    if isinstance(entry.get("body_base64"), str):
        return base64.b64decode(entry["body_base64"])
    return None


def _text(ctype: str) -> bool:
    return _essence(ctype).startswith("text/")


def _to_utf8(ctype: str, octets: bytes, where: str) -> tuple[str, bytes]:
    charset = _charset(ctype)
    if not _text(ctype) or charset not in ("iso-8859-1", "latin1", "windows-1252"):
        return ctype, octets
    codec = "cp1252" if charset == "windows-1252" else "latin-1"
    text = octets.decode(codec, errors="replace")
    return re.sub(r"(?i)charset=[^;]*", "charset=utf-8", ctype), text.encode("utf-8")


def _crlf(octets: bytes) -> bytes:
    return re.sub(rb"(?<!\r)\n", b"\r\n", octets)


def _retrieval_crlf(ctype: str, octets: bytes, where: str) -> tuple[str, bytes]:
    return ctype, _crlf(octets) if _text(ctype) and where == RETRIEVAL else octets


def _bom_stripped(ctype: str, octets: bytes, where: str) -> tuple[str, bytes]:
    bom = b"\xef\xbb\xbf"
    return ctype, octets[len(bom) :] if _text(ctype) and octets.startswith(bom) else octets


def _trimmed(ctype: str, octets: bytes, where: str) -> tuple[str, bytes]:
    if not _text(ctype):
        return ctype, octets
    return ctype, re.sub(rb"[ \t]+(?=\r\n|\n|\r|$)", b"", octets)


def _replaced(octets: bytes) -> bytes:
    return octets.decode("utf-8", errors="replace").encode("utf-8")


def _octets_as_text(ctype: str, octets: bytes, where: str) -> tuple[str, bytes]:
    return ctype, octets if _text(ctype) else _replaced(octets)


def _utf8_replaced(ctype: str, octets: bytes, where: str) -> tuple[str, bytes]:
    return ctype, _replaced(octets) if _text(ctype) and _charset(ctype) == "utf-8" else octets


def _cut_at_nul(ctype: str, octets: bytes, where: str) -> tuple[str, bytes]:
    return ctype, octets.split(b"\x00")[0] if _text(ctype) else octets


def _part_crlf(ctype: str, octets: bytes, where: str) -> tuple[str, bytes]:
    return ctype, _crlf(octets) if _text(ctype) and where == PART else octets


def _batch_read_crlf(ctype: str, octets: bytes, where: str) -> tuple[str, bytes]:
    return ctype, _crlf(octets) if _text(ctype) and where in BATCH_FORMS else octets


def _decoded_by_charset(ctype: str, octets: bytes, where: str) -> tuple[str, bytes]:
    """In the JSON form, text whose charset is not UTF-8 decoded by it into `body`: the
    string's UTF-8 octets are not the part's."""
    charset = _charset(ctype)
    if where != JSON_FORM or not _text(ctype) or charset in (None, "utf-8"):
        return ctype, octets
    codec = "cp1252" if charset == "windows-1252" else "latin-1"
    return ctype, octets.decode(codec, errors="replace").encode("utf-8")


def _plant(
    name: str, breaks: str, store: Transform = _as_is, write: Transform = _as_is
) -> Mutation:
    octets = OctetStore(store, write)
    return Mutation(
        name,
        breaks,
        ("sandbox-member-octets-every-path",),
        caught_by=("FAIL",),
        on_request=octets.request,
        on_response=octets.response,
    )


#: The media type the untyped-member plant stores content written without one as.
_OCTETS = "application/octet-stream"
_UNTYPED = OctetStore()


def _untyped_stored(req: RelayRequest) -> None:
    """A write alone to a member with content and no Content-Type, stored as octets."""
    untyped = not req.get("Content-Type") and req.body
    if untyped and not is_batch(req) and req.method in ("POST", "PUT") and _in_sandbox(req.target):
        req.headers.append(("Content-Type", _OCTETS))
    _UNTYPED.request(req)


def _untyped_type_null(req: RelayRequest, resp: RelayResponse) -> None:
    """The JSON form writes a stored octet member's media type as null, as a store that kept
    "no media type" as None and put it where a field value goes."""
    _UNTYPED.response(req, resp)
    ctype = (resp.get("Content-Type") or "").lower()
    if not (is_batch(req) and resp.status == 207 and "json" in ctype):
        return
    doc = json.loads(resp.body)
    for entry in doc.get("responses", []) if isinstance(doc, dict) else []:
        headers = entry.get("headers") if isinstance(entry, dict) else None
        for field in headers if isinstance(headers, list) else []:
            if isinstance(field, list) and len(field) == 2 and field[1] == _OCTETS:
                field[1] = None
    resp.body = json.dumps(doc).encode()


PLANTS: tuple[Mutation, ...] = (
    # MB-MULTI-4: the JSON form is a document multistatus.schema.json admits (a field value
    # is a string).
    Mutation(
        "untyped-member-type-null-in-json",
        "MB-MULTI-4 a member written without a media type read back in the JSON form with its "
        "Content-Type null",
        ("sandbox-member-without-media-type-in-every-form",),
        on_request=_untyped_stored,
        on_response=_untyped_type_null,
    ),
    _plant(
        "text-members-stored-as-utf8",
        "MB-TEST-4 text written in ISO-8859-1 or windows-1252 stored re-encoded as UTF-8",
        store=_to_utf8,
    ),
    _plant(
        "retrieval-text-parts-canonical-crlf",
        "MB-METHOD-4 a collection retrieval's text parts with each bare LF written as CRLF",
        write=_retrieval_crlf,
    ),
    _plant(
        "text-member-bom-stripped",
        "MB-TEST-4 a byte order mark dropped from the start of stored text",
        store=_bom_stripped,
    ),
    _plant(
        "text-member-trailing-whitespace-trimmed",
        "MB-TEST-4 spaces and tabs at the end of each line of stored text dropped",
        store=_trimmed,
    ),
    _plant(
        "octet-member-read-as-text",
        "MB-TEST-4 content that is not text stored through a UTF-8 decoder that replaces",
        store=_octets_as_text,
    ),
    _plant(
        "utf8-text-invalid-octets-replaced",
        "MB-TEST-4 text declared UTF-8 stored with its invalid octets replaced by U+FFFD",
        store=_utf8_replaced,
    ),
    _plant(
        "text-member-cut-at-nul",
        "MB-TEST-4 stored text cut at its first NUL octet",
        store=_cut_at_nul,
    ),
    _plant(
        "part-text-line-ends-canonical",
        "MB-TEST-4 text a batch part writes stored with each bare LF as CRLF",
        store=_part_crlf,
    ),
    _plant(
        "batch-read-text-line-ends-canonical",
        "MB-TEST-4 text read by a GET part written with each bare LF as CRLF in every form",
        write=_batch_read_crlf,
    ),
    _plant(
        "json-form-text-decoded-by-charset",
        "MB-MULTI-5 the JSON form's body of text decoded by its charset, not taken as octets",
        write=_decoded_by_charset,
    ),
)
