"""Planted violations of the echo's report of octets (MB-TEST-2).

    echo-field-values-as-utf8     the echo writes each field value as its language's string,
                                  decoding the octets as UTF-8: an obs-text octet such as 0xE9
                                  shows as U+FFFD and 0xC3 0xA9 as one U+00E9, alone and in a
                                  part
    echo-content-always-text      the echo writes content that is not UTF-8 in `body`, each
                                  invalid octet replaced by U+FFFD, alone and in a part
    echo-content-leading-bom-dropped
                                  the echo drops a byte order mark that begins the content, as
                                  a text decoder not told to keep it does, alone and in a part
    echo-authority-lower-cased-alone
                                  the echo of a request alone reports its authority
                                  lower-cased (parts keep the batch's as written)
    echo-authority-port-normalised
                                  the echo reports its authority's port as a number: leading
                                  zeros dropped, and an empty or default port left out, alone
                                  and in a part
    echo-target-percent-case-normalised
                                  the echo reports its target with every percent-encoding in
                                  upper-case hex, alone and in a part
    echo-method-upper-cased       the echo reports its method upper-cased, alone and in a
                                  part

MB-TEST-2 gives the echo's `headers` one character per octet (spec 14.4: "Field values map to
JSON strings one octet to one character") and its content in `body` only when the octets are
valid UTF-8, else in `body_base64`; its `authority` is the one the request was addressed to and
its `target` the one received and its `method` the request's, none in a normal form of its
own. The reference server's echo is at /echo; a part's echo is
rewritten inside the multipart answer, its Content-Length set to the new body's length.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from typing import Any

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import Part, echo_doc, map_parts
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

DocEdit = Callable[[dict[str, Any]], None]


def _values_as_utf8(doc: dict[str, Any]) -> None:
    doc["headers"] = [
        [n, str(v).encode("latin-1", "replace").decode("utf-8", "replace")]
        for n, v in doc["headers"]
    ]


def _content_as_text(doc: dict[str, Any]) -> None:
    if isinstance(doc.get("body_base64"), str):
        data = base64.b64decode(doc.pop("body_base64"))
        doc["body"] = data.decode("utf-8", "replace")


def _leading_bom_dropped(doc: dict[str, Any]) -> None:
    body = doc.get("body")
    if isinstance(body, str) and body.startswith("\ufeff"):
        doc["body"] = body[1:]


def _authority_lower(doc: dict[str, Any]) -> None:
    if isinstance(doc.get("authority"), str):
        doc["authority"] = doc["authority"].lower()


def _port_as_number(doc: dict[str, Any]) -> None:
    authority = doc.get("authority")
    if not isinstance(authority, str):
        return
    host, colon, port = authority.rpartition(":")
    if not colon or host.endswith(":") or "]" in port:
        return
    number = port.lstrip("0") or ("0" if port else "")
    doc["authority"] = host if number in ("", "80") else f"{host}:{number}"


def _percent_upper(doc: dict[str, Any]) -> None:
    if isinstance(doc.get("target"), str):
        doc["target"] = re.sub(r"%[0-9A-Fa-f]{2}", lambda m: m.group().upper(), doc["target"])


def _method_upper(doc: dict[str, Any]) -> None:
    if isinstance(doc.get("method"), str):
        doc["method"] = doc["method"].upper()


def _alone(fn: DocEdit) -> Callable[[RelayRequest, RelayResponse], None]:
    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        if req.target.startswith("/echo") and resp.status == 200:
            doc = echo_doc(resp.body)
            if doc is not None:
                fn(doc)
                resp.body = json.dumps(doc).encode()

    return edit


def _in_parts(fn: DocEdit) -> Callable[[list[Part]], list[Part]]:
    def edit(parts: list[Part]) -> list[Part]:
        out: list[Part] = []
        for fields, body in parts:
            doc = echo_doc(body)
            if doc is not None:
                fn(doc)
                body = json.dumps(doc).encode()
                fields = [
                    (n, str(len(body)) if n.lower() == "content-length" else v) for n, v in fields
                ]
            out.append((fields, body))
        return out

    return edit


def _everywhere(fn: DocEdit) -> Callable[[RelayRequest, RelayResponse], None]:
    alone, parts = _alone(fn), map_parts(_in_parts(fn))

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        alone(req, resp)
        parts(req, resp)

    return edit


P = Mutation
_CATCHERS = ("echo-field-octets-as-sent",)
PLANTS: tuple[Mutation, ...] = (
    P(
        "echo-field-values-as-utf8",
        "MB-TEST-2 the echo's field values decoded as UTF-8, obs-text octets shown as U+FFFD",
        _CATCHERS,
        on_response=_everywhere(_values_as_utf8),
    ),
    P(
        "echo-content-always-text",
        "MB-TEST-2 the echo's content that is not UTF-8 written in body, octets replaced",
        _CATCHERS,
        on_response=_everywhere(_content_as_text),
    ),
    P(
        "echo-content-leading-bom-dropped",
        "MB-TEST-2 the echo's content dropping the byte order mark it begins with",
        ("echo-body-octets-as-sent",),
        on_response=_everywhere(_leading_bom_dropped),
    ),
    P(
        "echo-authority-lower-cased-alone",
        "MB-TEST-2 the echo of a request alone reporting its authority lower-cased",
        ("echo-authority-as-addressed",),
        on_response=_alone(_authority_lower),
    ),
    P(
        "echo-authority-port-normalised",
        "MB-TEST-2 the echo reporting its authority's port without leading zeros, empty or default",
        ("echo-authority-as-addressed",),
        on_response=_everywhere(_port_as_number),
    ),
    P(
        "echo-target-percent-case-normalised",
        "MB-TEST-2 the echo reporting its target's percent-encodings in upper-case hex",
        ("echo-target-path-octets-as-received", "test-resource-echo"),
        on_response=_everywhere(_percent_upper),
    ),
    P(
        "echo-method-upper-cased",
        "MB-TEST-2 the echo reporting its method upper-cased, get as GET",
        ("echo-method-case-as-received",),
        on_response=_everywhere(_method_upper),
    ),
)
