"""Planted violations of the choice of representation and of what holds in every form
(spec 6.1: MB-MULTI-1, MB-MULTI-2, MB-MULTI-10; MB-MULTI-5, MB-STATUS-5).

A form plant negotiates the wrong representation (Accept read by its first type, without its
quality values, or with application/json taken for the JSON form), gives a multipart answer a
207, leaves out Vary, answers a processed batch 502 in the 207 forms, or writes a stored
field's obs-text octets differently in the JSON and XML forms of one batch. A closing plant
ends the connection after one kind of batch answer (a 207 form, skipped parts, an abort, a
refused batch, a HEAD of the endpoint), so a request pipelined behind it goes unanswered
(MB-PIPE-1). The documents themselves are planted in plants.json_form and plants.xml_form.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any
from xml.sax.saxutils import escape

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import (
    Part,
    RespEdit,
    field_of,
    is_batch,
    map_json,
    map_parts,
    map_response,
    map_xml,
    set_field,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]


def _on_accept(fn: Callable[[str], str | None]) -> Callable[[RelayRequest], None]:
    """Rewrite the Accept field the server sees (None: remove it)."""

    def edit(req: RelayRequest) -> None:
        if not is_batch(req):
            return
        new = fn(req.get("Accept") or "")
        req.headers = [(n, v) for n, v in req.headers if n.lower() != "accept"]
        if new is not None:
            req.headers.append(("Accept", new))

    return edit


def _on_whole_accept(fn: Callable[[str], str | None]) -> Callable[[RelayRequest], None]:
    """Rewrite the Accept list the server sees, its field lines joined into one first."""

    def edit(req: RelayRequest) -> None:
        if not is_batch(req):
            return
        whole = ", ".join(v for n, v in req.headers if n.lower() == "accept")
        new = fn(whole)
        req.headers = [(n, v) for n, v in req.headers if n.lower() != "accept"]
        if new is not None:
            req.headers.append(("Accept", new))

    return edit


def _first_listed(accept: str) -> str | None:
    if ";" not in accept:
        return accept or None
    return accept.split(",")[0].split(";")[0].strip()


def _q_dropped(accept: str) -> str | None:
    return re.sub(r";\s*q=[0-9.]+", "", accept) or None


def _suffix_matched(accept: str) -> str | None:
    """application/json read as admitting the JSON form (a structured suffix taken as a match)."""
    json_form = "application/vnd.mixbatch.multistatus+json"
    return re.sub(r"application/json(?=\s*(;|,|$))", json_form, accept) or None


def _type_range_skips_suffixed(accept: str) -> str | None:
    """application/* read as not admitting the JSON form (its structured suffix taken to put it
    outside the range): the range stands for the XML form alone."""
    return re.sub(r"(?i)application/\*(?=\s*(;|,|$))", "application/xml", accept) or None


def _wildcard_zero_excludes_all(accept: str) -> str | None:
    """A range refused with q=0 taken to refuse every type it covers, however specific a
    range elsewhere in the list gives one of them a quality."""
    members = [m.strip() for m in accept.split(",")]
    refused = [m.split(";")[0].strip().lower() for m in members if re.search(r";\s*q=0(\.0*)?$", m)]
    if not any(r.endswith("/*") for r in refused):
        return accept or None
    kept = [m for m in members if m.split(";")[0].strip().lower() not in ("multipart/mixed",)]
    return ", ".join(kept) or None


def _ran_statuses(resp: RelayResponse) -> list[int]:
    """The statuses of the parts that ran, read from a 207 form's entries."""
    ctype = resp.get("Content-Type") or ""
    if "json" in ctype:
        statuses = [e.get("status") for e in json.loads(resp.body).get("responses", [])]
    else:
        statuses = [int(c) for c in re.findall(rb"HTTP/1\.1 (\d{3})", resp.body)]
    return [s for s in statuses if isinstance(s, int)]


def _document_502_when_all_5xx(req: RelayRequest, resp: RelayResponse) -> None:
    """A 207 form answered 502 when every part that ran answered 5xx."""
    if not is_batch(req) or resp.status != 207:
        return
    ran = _ran_statuses(resp)
    if ran and all(s >= 500 for s in ran):
        resp.status = 502


def _document_200_when_all_succeed(req: RelayRequest, resp: RelayResponse) -> None:
    """A 207 form answered 200 when every part ran and succeeded: 207 read as saying that the
    parts fared differently."""
    if not is_batch(req) or resp.status != 207:
        return
    ran = _ran_statuses(resp)
    if ran and all(s < 400 for s in ran):
        resp.status = 200


def _closes_after(pred: Callable[[RelayRequest, RelayResponse], bool]) -> RespEdit:
    """A server that ends its connection after the answers `pred` picks out."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        if pred(req, resp):
            resp.close = True

    return edit


def _outcome_in(outcome: bytes) -> Callable[[RelayRequest, RelayResponse], bool]:
    """A multipart answer with a part whose Batch-Outcome is `outcome`."""
    rx = re.compile(rb"(?im)^batch-outcome:[ \t]*" + outcome + rb"[ \t]*\r?$")
    return lambda req, resp: (
        (resp.get("Content-Type") or "").startswith("multipart/") and bool(rx.search(resp.body))
    )


class _TypeReadBack:
    """A sandbox that answers a member with the Content-Type it was written with, which the
    spec allows, behind a 207 form that mishandles the obs-text octets of that field, which it
    does not: `broken` "json" decodes them as UTF-8 (each becomes U+FFFD), "xml" writes each
    as the two characters of its UTF-8 form. The reference server answers its own
    Content-Type, so the relay plays the sandbox's part."""

    def __init__(self, broken: str) -> None:
        self.broken = broken
        self.written: str | None = None

    def request(self, req: RelayRequest) -> None:
        value = req.get("Content-Type") or ""
        if req.method in ("POST", "PUT") and not is_batch(req) and re.search("[\x80-\xff]", value):
            self.written = value

    def response(self, req: RelayRequest, resp: RelayResponse) -> None:
        if self.written is not None and is_batch(req):
            map_parts(self._parts)(req, resp)
            map_json(self._json)(req, resp)
            map_xml(self._xml)(req, resp)

    def _parts(self, parts: list[Part]) -> list[Part]:
        assert self.written is not None
        return [
            (set_field(f, "Content-Type", self.written), b)
            if field_of(f, "Content-Type") == "application/json"
            else (f, b)
            for f, b in parts
        ]

    def _json(self, doc: dict[str, Any]) -> None:
        assert self.written is not None
        decoded = self.written
        if self.broken == "json":
            decoded = re.sub("[\x80-\xff]", "\ufffd", decoded)
        for entry in doc.get("responses") or []:
            entry["headers"] = [
                [n, decoded if n.lower() == "content-type" and v == "application/json" else v]
                for n, v in entry.get("headers") or []
            ]

    def _xml(self, body: bytes) -> bytes:
        assert self.written is not None
        value = escape(self.written).encode("utf-8")
        if self.broken == "xml":
            value = value.decode("latin-1").encode("utf-8")
        return body.replace(
            b'<mb:header name="Content-Type">application/json</mb:header>',
            b'<mb:header name="Content-Type">' + value + b"</mb:header>",
        )


_json_type_read_back = _TypeReadBack("json")
_xml_type_read_back = _TypeReadBack("xml")
_PIPE = ("pipelining-behind-every-answer",)


def _multipart_207_when_named(req: RelayRequest, resp: RelayResponse) -> None:
    """A multipart answer given 207 because Accept names a 207 form, whatever its quality."""
    accept = (req.get("Accept") or "").lower()
    named = "xml" in accept or "multistatus" in accept
    if is_batch(req) and named and (resp.get("Content-Type") or "").startswith("multipart/"):
        resp.status = 207


P = Mutation


PLANTS: tuple[Mutation, ...] = (
    # MB-MULTI-1: multipart/mixed without Accept or when Accept ranks it at least as high.
    P(
        "json-when-accept-absent",
        "MB-MULTI-1 no Accept",
        ("accept-default-multipart",),
        on_request=_on_accept(lambda a: a or "application/vnd.mixbatch.multistatus+json"),
    ),
    P(
        "first-listed-type-wins",
        "MB-MULTI-1 quality values",
        ("accept-quality-values",),
        on_request=_on_accept(_first_listed),
    ),
    P(
        "zero-quality-ignored",
        "MB-MULTI-1 q=0",
        ("accept-quality-values",),
        on_request=_on_accept(_q_dropped),
    ),
    P(
        "structured-suffix-matched",
        "MB-MULTI-1 application/json admitting the JSON form",
        ("accept-quality-values",),
        on_request=_on_whole_accept(_suffix_matched),
    ),
    P(
        "type-range-skips-suffixed-form",
        "MB-MULTI-1 application/* not admitting the JSON form",
        ("accept-quality-values",),
        on_request=_on_whole_accept(_type_range_skips_suffixed),
    ),
    P(
        "refused-wildcard-outranks-specific",
        "MB-MULTI-1 a range refused with q=0 over a more specific one",
        ("accept-quality-values",),
        on_request=_on_whole_accept(_wildcard_zero_excludes_all),
    ),
    # MB-MULTI-10: Vary: Accept where more than one form is offered.
    P(
        "vary-dropped-on-batch",
        "MB-MULTI-10 multipart",
        ("top-level-fields",),
        caught_by=("WARN", "FAIL"),
        on_response=map_response(is_batch, lambda r: r.set("Vary", None)),
    ),
    P(
        "vary-names-accept-encoding",
        "MB-MULTI-10 Accept-Encoding for Accept",
        ("top-level-fields",),
        caught_by=("WARN", "FAIL"),
        on_response=map_response(is_batch, lambda r: r.set("Vary", "Accept-Encoding")),
    ),
    P(
        "vary-star-for-accept",
        "MB-MULTI-10 Vary: * in place of Accept",
        ("vary-in-every-form", "top-level-fields"),
        caught_by=("WARN", "FAIL"),
        on_response=map_response(is_batch, lambda r: r.set("Vary", "*")),
    ),
    P(
        "vary-dropped-on-207",
        "MB-MULTI-10 207 forms",
        ("vary-in-every-form",),
        caught_by=("WARN", "FAIL"),
        on_response=lambda q, r: r.set("Vary", None) if r.status == 207 else None,
    ),
    # MB-MULTI-2: the status follows the form chosen, not whether Accept names a 207 form.
    P(
        "multipart-207-when-accept-names-207-form",
        "MB-MULTI-2 a 207 form named below multipart/mixed",
        ("accept-quality-values",),
        on_response=_multipart_207_when_named,
    ),
    # MB-STATUS-5: the batch is processed whatever its parts answered, in every form.
    P(
        "document-502-when-all-parts-5xx",
        "MB-STATUS-5 207 forms",
        ("batch-status-whatever-parts",),
        on_response=_document_502_when_all_5xx,
    ),
    P(
        "document-200-when-all-parts-succeed",
        "MB-STATUS-5 207 forms answered 200 when no part failed",
        ("batch-status-whatever-parts",),
        on_response=_document_200_when_all_succeed,
    ),
    # MB-PIPE-1: a request pipelined behind any kind of batch answer is answered.
    P(
        "207-form-closes-connection",
        "MB-PIPE-1 closed after a 207 form",
        _PIPE,
        on_response=_closes_after(lambda req, resp: resp.status == 207),
    ),
    P(
        "skipped-parts-close-connection",
        "MB-PIPE-1 closed after skipped parts",
        _PIPE,
        on_response=_closes_after(_outcome_in(b"skipped")),
    ),
    P(
        "abort-closes-connection",
        "MB-PIPE-1 closed after an abort",
        _PIPE,
        on_response=_closes_after(_outcome_in(b"aborted")),
    ),
    P(
        "refused-batch-closes-connection",
        "MB-PIPE-1 closed after a refused batch",
        _PIPE,
        on_response=_closes_after(lambda req, resp: req.method == "POST" and resp.status >= 400),
    ),
    P(
        "endpoint-head-closes-connection",
        "MB-PIPE-1 closed after a HEAD",
        _PIPE,
        on_response=_closes_after(lambda req, resp: req.method == "HEAD"),
    ),
    # MB-MULTI-5: field values map octet to character (ISO-8859-1) in every form.
    P(
        "json-read-back-type-utf8-decoded",
        "MB-MULTI-5 a stored type's obs-text octets in JSON",
        ("field-octets-every-form",),
        on_request=_json_type_read_back.request,
        on_response=_json_type_read_back.response,
    ),
    P(
        "xml-read-back-type-utf8-encoded",
        "MB-MULTI-5 a stored type's obs-text octets in XML",
        ("field-octets-every-form",),
        on_request=_xml_type_read_back.request,
        on_response=_xml_type_read_back.response,
    ),
)
