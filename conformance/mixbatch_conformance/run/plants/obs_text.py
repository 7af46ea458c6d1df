"""Planted violations of octets above 0x7F where HTTP allows them (RFC 9110 §5.5 `obs-text`,
§5.6.4 `qdtext`), and of a body that merely holds U+FFFD.

- a sub-response field whose value holds obs-text left out of its response part, though the
  sub-response alone carries it (MB-RESP-4). The reference server's sandbox answers every
  member as `application/json` whatever it was written with, so the plant keeps the media type
  a PUT part wrote under (one holding obs-text) and gives it to the member's GET and HEAD
  alone, as a sandbox that keeps media types would, while the member's response parts go
  without a `Content-Type`;
- the batch Content-Type's quoted-string parameter values held to qdtext without obs-text,
  so a valid batch with such a parameter (`title="caf\\xe9"`) is refused 400 (MB-WIRE-4);
- a Prefer field whose quoted-string holds obs-text thrown away as unreadable, so the
  batch-on-error=stop beside it goes unheard (MB-PROC-6), and an Accept field likewise, so
  the q=0 beside it goes unheard (MB-MULTI-1);
- the JSON form's body member chosen by whether the decoded text holds U+FFFD, as a decoder
  that replaces invalid octets would tell, so valid UTF-8 holding EF BF BD goes in
  `body_base64` (MB-MULTI-7).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from typing import Any

from mixbatch_conformance.run.mutations import Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    boundary_of,
    field_of,
    is_batch,
    map_json,
    parts_of,
    refuses,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

_OBS_TEXT = re.compile(r"[\x80-\xff]")
#: A quoted-string holding an octet above 0x7E as qdtext or in a quoted-pair (RFC 9110 §5.6.4).
_QUOTED_OBS_TEXT = re.compile(r'"(?:[^"\\]|\\.)*?\\?[\x80-\xff](?:[^"\\]|\\.)*"')


def _target_of(fields: list[tuple[str, str]]) -> str:
    return (field_of(fields, "Content-Id") or "").strip().strip("<>")


class _KeptMediaTypes:
    """A sandbox that keeps the media type a PUT part wrote (one holding obs-text) and answers
    it alone, but copies no field holding obs-text into a response part."""

    def __init__(self) -> None:
        self.kept: dict[str, str] = {}

    def request(self, req: RelayRequest) -> None:
        b = boundary_of(req)
        if not b or not is_batch(req):
            return
        for fields, _ in parts_of(req.body, b) or []:
            media = field_of(fields, "Content-Type") or ""
            if (field_of(fields, "Http-Method") or "").upper() == "PUT" and _OBS_TEXT.search(media):
                self.kept[_target_of(fields)] = media

    def response(self, req: RelayRequest, resp: RelayResponse) -> None:
        if is_batch(req):
            b = boundary_of(resp)
            parts = parts_of(resp.body, b) if b else None
            if parts is None or b is None:
                return
            resp.body = write_parts(
                [
                    (
                        [(n, v) for n, v in f if n.lower() != "content-type"]
                        if _target_of(f) in self.kept
                        else f,
                        body,
                    )
                    for f, body in parts
                ],
                b,
            )
            return
        path = req.target.split("?")[0]
        if req.method in ("GET", "HEAD") and resp.status == 200 and path in self.kept:
            resp.headers = [(n, v) for n, v in resp.headers if n.lower() != "content-type"]
            resp.headers.append(("Content-Type", self.kept[path]))


def _content_type_quoted_obs_text(req: RelayRequest) -> bool:
    ctype = req.get("Content-Type") or ""
    return is_batch(req) and _QUOTED_OBS_TEXT.search(ctype) is not None


def _lines_dropped(name: str) -> Callable[[RelayRequest], None]:
    """A reader of `name` that gives up on a batch's line whose quoted-string holds obs-text,
    as if the line were absent."""

    def edit(req: RelayRequest) -> None:
        if is_batch(req):
            req.headers = [
                (n, v)
                for n, v in req.headers
                if n.lower() != name or not _QUOTED_OBS_TEXT.search(v)
            ]

    return edit


def _replacement_character_as_binary(doc: dict[str, Any]) -> None:
    for entry in doc.get("responses") or []:
        body = entry.get("body")
        if isinstance(body, str) and "\ufffd" in body:
            del entry["body"]
            entry["body_base64"] = base64.b64encode(body.encode()).decode()


_kept = _KeptMediaTypes()

P = Mutation
PLANTS: tuple[Mutation, ...] = (
    P(
        "sub-response-obs-text-fields-dropped",
        "MB-RESP-4 a sub-response field whose value holds obs-text left out of its response part",
        ("sub-response-obs-text-fields-as-alone",),
        on_request=_kept.request,
        on_response=_kept.response,
    ),
    P(
        "content-type-quoted-obs-text-refused",
        "MB-WIRE-4 a batch Content-Type whose quoted parameter value holds obs-text refused",
        (
            "accept-media-type-quoted-parameter-obs-text",
            "accept-media-type-quoted-parameter-obs-text-before-boundary",
            "accept-media-type-quoted-parameter-utf8-octets",
            "accept-boundary-quoted-beside-obs-text-parameter",
        ),
        on_response=refuses(_content_type_quoted_obs_text, 400, "MB-WIRE-4"),
    ),
    P(
        "prefer-quoted-obs-text-line-ignored",
        "MB-PROC-6 a Prefer line whose quoted value holds obs-text ignored, its stop unheard",
        ("prefer-several-preferences",),
        on_request=_lines_dropped("prefer"),
    ),
    P(
        "accept-quoted-obs-text-line-ignored",
        "MB-MULTI-1 an Accept line whose quoted value holds obs-text ignored, its q=0 unheard",
        ("accept-quality-values",),
        on_request=_lines_dropped("accept"),
    ),
    P(
        "json-replacement-character-as-binary",
        "MB-MULTI-7 valid UTF-8 holding U+FFFD written in body_base64, as if undecodable",
        ("multistatus-json-body-members",),
        on_response=map_json(_replacement_character_as_binary),
    ),
)
