"""Planted violations of what a sub-request receives, on the path of one batch mode only: the
batch without `Batch-Mode` builds its sub-requests right, an atomic or a references batch on a
loop of its own that gets them wrong.

    references-path-passes-control-fields
                                    a references batch's loop leaves out Http-Method and
                                    Content-Id only as the spec spells them: the same fields
                                    named in another case reach the resource (MB-PART-8)
    atomic-path-passes-control-fields
                                    the same on the atomic batch's loop (MB-PART-8)
    atomic-parts-inherit-no-credentials
                                    an atomic batch's parts without credentials of their own
                                    get none of the batch's (MB-SUB-5)
    references-parts-inherit-first-cookie
                                    a references batch's parts without a Cookie of their own get
                                    the batch's first Cookie line only (MB-SUB-5)

Each edits what the echo resource reports in the multipart answer to a batch under its mode,
so the request the echo describes is the one the planted server built.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from mixbatch_conformance.run.mutations import FieldList, Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    boundary_of,
    field_of,
    is_batch,
    parts_of,
    set_field,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: The control fields as the spec spells them, which the planted loops compare names with.
_CANONICAL = ("Http-Method", "Content-Id")
_CATCH_CONTROL = ("part-control-fields-in-every-mode",)
_CATCH_CREDENTIALS = ("part-credentials-in-every-mode",)

#: An edit of one echo's header list, given the request part and the batch request.
HeadersEdit = Callable[[FieldList, RelayRequest, list[list[str]]], list[list[str]]]


def _modes(req: RelayRequest) -> list[str]:
    value = ",".join(v for n, v in req.headers if n.lower() == "batch-mode")
    return [m.strip() for m in value.split(",") if m.strip()]


def _echoes_edited(mode: str, edit: HeadersEdit) -> Callable[[RelayRequest, RelayResponse], None]:
    """Edit the echo description in each part of the multipart answer to a batch that lists
    `mode`, the request part at the same index in hand."""

    def on_response(req: RelayRequest, resp: RelayResponse) -> None:
        rb, sb = boundary_of(req), boundary_of(resp)
        if not (rb and sb and is_batch(req) and mode in _modes(req)):
            return
        asked, answered = parts_of(req.body, rb), parts_of(resp.body, sb)
        if asked is None or answered is None or len(asked) != len(answered):
            return
        out = []
        for (fields, _), (rfields, body) in zip(asked, answered, strict=True):
            try:
                doc = json.loads(body)
            except ValueError:
                doc = None
            if isinstance(doc, dict) and isinstance(doc.get("headers"), list):
                doc["headers"] = edit(fields, req, doc["headers"])
                body = json.dumps(doc).encode()
                if field_of(rfields, "Content-Length") is not None:
                    rfields = set_field(rfields, "Content-Length", str(len(body)))
            out.append((rfields, body))
        resp.body = write_parts(out, sb)

    return on_response


def _control_passed_on(
    fields: FieldList, _req: RelayRequest, headers: list[list[str]]
) -> list[list[str]]:
    """The part's control lines not spelled as the spec spells them, handed on first."""
    passed = [
        [n, v]
        for n, v in fields
        if n.lower() in ("http-method", "content-id") and n not in _CANONICAL
    ]
    return passed + headers


def _batch_lines(req: RelayRequest, name: str) -> list[str]:
    return [v for n, v in req.headers if n.lower() == name]


def _no_credentials(
    fields: FieldList, req: RelayRequest, headers: list[list[str]]
) -> list[list[str]]:
    """The batch's Authorization and Cookie lines taken out of a part that has none of its own."""
    out = headers
    for name in ("authorization", "cookie"):
        if field_of(fields, name) is None:
            batch = _batch_lines(req, name)
            out = [h for h in out if not (h[0].lower() == name and h[1] in batch)]
    return out


def _first_cookie_only(
    fields: FieldList, req: RelayRequest, headers: list[list[str]]
) -> list[list[str]]:
    """Of the batch's Cookie lines, a part with no Cookie of its own keeps the first."""
    if field_of(fields, "cookie") is not None:
        return headers
    later = _batch_lines(req, "cookie")[1:]
    return [h for h in headers if not (h[0].lower() == "cookie" and h[1] in later)]


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "references-path-passes-control-fields",
        "MB-PART-8 a references batch's parts hand on Http-Method and Content-Id named in another case",
        _CATCH_CONTROL,
        on_response=_echoes_edited("references", _control_passed_on),
    ),
    Mutation(
        "atomic-path-passes-control-fields",
        "MB-PART-8 an atomic batch's parts hand on Http-Method and Content-Id named in another case",
        _CATCH_CONTROL,
        on_response=_echoes_edited("atomic", _control_passed_on),
    ),
    Mutation(
        "atomic-parts-inherit-no-credentials",
        "MB-SUB-5 an atomic batch's parts without their own get none of the batch's credentials",
        _CATCH_CREDENTIALS,
        on_response=_echoes_edited("atomic", _no_credentials),
    ),
    Mutation(
        "references-parts-inherit-first-cookie",
        "MB-SUB-5 a references batch's parts without their own get the batch's first Cookie line only",
        _CATCH_CREDENTIALS,
        on_response=_echoes_edited("references", _first_cookie_only),
    ),
)
