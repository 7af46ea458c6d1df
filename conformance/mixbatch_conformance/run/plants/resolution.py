"""Planted violations of how a part's target is resolved and checked, batch by batch.

Covers a receiver that resolves a query-only reference against the origin's root instead of the
batch request's path (MB-PART-5); one that takes a sub-request's authority from the batch
request's X-Forwarded-Host, or lower-cases the batch's own before giving it to the parts
(MB-PART-13); one that remembers the targets it validated and runs a remembered one in a later
batch addressed to another authority (MB-SUB-2); and ones that remove dot segments from relative
references only, from absolute paths only, or from the query as well as the path, so that the
echo receives a path or a query other than RFC 3986 §5.2 gives (MB-PART-5).
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from mixbatch_conformance.run.mutations import FieldList, Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    boundary_of,
    fake_processed,
    field_of,
    is_batch,
    parts_of,
    set_field,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

CONTENT_ID = re.compile(rb"(?im)^(Content-Id:[ \t]*<)([^>\r\n]*)(>)")


def _query_against_root(req: RelayRequest) -> None:
    """`<?x>` resolved as `</?x>`, and `<>` as `</>`."""
    if is_batch(req):
        req.body = CONTENT_ID.sub(
            lambda m: (
                m.group(1)
                + (b"/" + m.group(2) if m.group(2)[:1] in (b"?", b"") else m.group(2))
                + m.group(3)
            ),
            req.body,
        )


EchoEdit = Callable[[int, dict[str, Any]], None]


def _edit_echoes(resp: RelayResponse, boundary: str, edit: EchoEdit) -> None:
    """Apply `edit(index, description)` to each part of a multipart answer whose body is an
    echo description, and write the parts back with their Content-Length kept true."""
    parts = parts_of(resp.body, boundary)
    if parts is None:
        return
    edited: list[tuple[FieldList, bytes]] = []
    for i, (fields, body) in enumerate(parts):
        try:
            doc = json.loads(body)
        except ValueError:
            doc = None
        if isinstance(doc, dict):
            before = dict(doc)
            edit(i, doc)
            if doc != before:
                body = json.dumps(doc).encode()
                if field_of(fields, "Content-Length") is not None:
                    fields = set_field(fields, "Content-Length", str(len(body)))
        edited.append((fields, body))
    resp.body = write_parts(edited, boundary)


def _authority_from_forwarded_host(req: RelayRequest, resp: RelayResponse) -> None:
    """Each echo in the answer says it was addressed to the batch's X-Forwarded-Host."""
    front = req.get("X-Forwarded-Host")
    b = boundary_of(resp)
    if not front or not b or not is_batch(req):
        return

    def edit(_: int, doc: dict[str, Any]) -> None:
        if "authority" in doc:
            doc["authority"] = front

    _edit_echoes(resp, b, edit)


def _authority_lower_cased(req: RelayRequest, resp: RelayResponse) -> None:
    """Each echo in the answer says it was addressed to the batch's Host in lower case, as a
    server that normalises the batch's authority once for all its parts gives it."""
    host = req.get("Host") or ""
    b = boundary_of(resp)
    if host == host.lower() or not b or not is_batch(req):
        return

    def edit(_index: int, doc: dict[str, Any]) -> None:
        if isinstance(doc.get("authority"), str):
            doc["authority"] = doc["authority"].lower()

    _edit_echoes(resp, b, edit)


DOT_SEGMENT = re.compile(r"(^|/)\.\.?(/|$|\?)")


def _kept_dots(ref: str, batch_path: str, form: str) -> str | None:
    """The target a receiver that skips dot-segment removal for `form` gives `ref`, or None
    when `ref` is of another form or has no dot segment."""
    split = urlsplit(ref)
    if not DOT_SEGMENT.search(split.path):
        return None
    query = f"?{split.query}" if split.query else ""
    if form == "absolute-uri" and split.scheme:
        return split.path + query
    if form == "relative" and not split.scheme and not ref.startswith("/"):
        return posixpath.dirname(batch_path).rstrip("/") + "/" + split.path + query
    return None


def _dots_kept_for(form: str) -> Callable[[RelayRequest, RelayResponse], None]:
    """Each echo of a part whose reference is of `form` reports the path with its dot segments."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        b_req, b_resp = boundary_of(req), boundary_of(resp)
        if not b_req or not b_resp or not is_batch(req):
            return
        sent = parts_of(req.body, b_req)
        if sent is None:
            return
        batch_path = urlsplit(req.target).path
        refs = [(field_of(f, "Content-Id") or "").strip().strip("<>") for f, _ in sent]

        def keep(i: int, doc: dict[str, Any]) -> None:
            raw = _kept_dots(refs[i], batch_path, form) if i < len(refs) else None
            if raw is not None and "target" in doc:
                doc["target"] = raw

        _edit_echoes(resp, b_resp, keep)

    return edit


def _query_dots_removed(req: RelayRequest, resp: RelayResponse) -> None:
    """Each echo reports a target whose query lost its dot segments, as a receiver that removes
    them from the merged reference before splitting off the query would give it."""
    b = boundary_of(resp)
    if not b or not is_batch(req):
        return

    def edit(_index: int, doc: dict[str, Any]) -> None:
        target = doc.get("target")
        if isinstance(target, str) and "?" in target:
            path, _sep, query = target.partition("?")
            doc["target"] = f"{path}?{posixpath.normpath('/' + query)[1:]}"

    _edit_echoes(resp, b, edit)


#: Content-Ids the cached-validation plant saw in a batch it answered 200, across connections.
_VALIDATED: set[bytes] = set()


def _validated_targets_cached(req: RelayRequest, resp: RelayResponse) -> None:
    """A refusal of a batch whose every target was validated before becomes a 200."""
    if not is_batch(req):
        return
    ids = {m.group(2) for m in CONTENT_ID.finditer(req.body)}
    if resp.status == 200:
        _VALIDATED.update(ids)
    elif resp.status == 400 and ids and ids <= _VALIDATED:
        fake_processed(req, resp)


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    P(
        "query-only-reference-against-root",
        "MB-PART-5 a query-only or empty reference resolved against the root, not the batch's path",
        ("references-against-batch-uri",),
        on_request=_query_against_root,
    ),
    P(
        "sub-request-authority-from-forwarded-host",
        "MB-PART-13 a sub-request addressed to the batch's X-Forwarded-Host",
        ("forwarding-fields-keep-authority",),
        on_response=_authority_from_forwarded_host,
    ),
    P(
        "batch-authority-lower-cased-for-parts",
        "MB-PART-13 the batch's authority lower-cased before it is given to the parts",
        ("batch-authority-case-kept-for-parts",),
        on_response=_authority_lower_cased,
    ),
    P(
        "validated-targets-cached-across-batches",
        "MB-SUB-2 a target validated in one batch run unchecked in a later one",
        ("targets-checked-in-every-batch",),
        on_response=_validated_targets_cached,
    ),
    P(
        "absolute-uri-dot-segments-kept",
        "MB-PART-5 dot segments removed from relative references only, an absolute URI's kept",
        ("dot-segments-removed-in-every-reference-form",),
        on_response=_dots_kept_for("absolute-uri"),
    ),
    P(
        "query-dot-segments-removed",
        "MB-PART-5 dot segments removed from a reference's query as well as its path",
        ("dot-segments-removed-in-every-reference-form",),
        on_response=_query_dots_removed,
    ),
    P(
        "relative-reference-dot-segments-kept",
        "MB-PART-5 a relative reference merged with the batch's path, its dot segments kept",
        ("dot-segments-removed-in-every-reference-form",),
        on_response=_dots_kept_for("relative"),
    ),
)
