"""Planted violations of what a refusal's problem document holds (spec 5.3, 9.1).

A negotiation path that writes its own 406 document with `status`, `detail` and `requirement`
but no `type` or `title`; a 207 form's code path whose 400 documents leave out `type`; an atomic batch's 400 whose
document has no `title`; a title
looked up in a table of statuses that lacks 501, so the 501 document's title is empty
(MB-STATUS-4: an RFC 9457 document, whose schema requires `type`, `title` and `status`). A
limit's 413 or 431 whose `value` is the count the batch reached rather than the limit it
exceeded (MB-LIMIT-4). An abort part whose document is written by hand apart from the
refusals, with `status` and `part_index` but no `type` or `title` (MB-STATUS-6). A refusal whose
document names an input holding octets past US-ASCII written in ISO 8859-1, not UTF-8, as a
server that reads its head one octet to a character writes it back (MB-STATUS-4, RFC 8259 §8.1).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import Part, edit_problem, field_of, set_field
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: The JSON form's media type, as a request's Accept names it.
_JSON_FORM = "application/vnd.mixbatch.multistatus+json"


def _drop(*members: str) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        for member in members:
            doc.pop(member, None)

    return edit


def _negotiation_document_by_hand(req: RelayRequest, resp: RelayResponse) -> None:
    """The 406 written by the negotiation code: status, detail and requirement only."""
    if resp.status == 406:
        edit_problem(resp, _drop("type", "title"))


def _json_form_refusal_untyped(req: RelayRequest, resp: RelayResponse) -> None:
    """The JSON form's code path refuses a faulty envelope with a document lacking `type`."""
    if resp.status == 400 and _JSON_FORM in (req.get("Accept") or ""):
        edit_problem(resp, _drop("type"))


def _atomic_refusal_untitled(req: RelayRequest, resp: RelayResponse) -> None:
    """The atomic mode validates the envelope again in its own code and writes a document
    with no title."""
    if resp.status == 400 and (req.get("Batch-Mode") or "").strip() == "atomic":
        edit_problem(resp, _drop("title"))


def _mode_refusal_title_empty(req: RelayRequest, resp: RelayResponse) -> None:
    """Titles come from a table of statuses that has no row for 501."""
    if resp.status == 501:
        edit_problem(resp, lambda doc: doc.update(title=""))


def _limit_value_reached(req: RelayRequest, resp: RelayResponse) -> None:
    """A limit's refusal gives the count the batch reached (here one over) as its value."""

    def edit(doc: dict[str, Any]) -> None:
        if isinstance(doc.get("value"), int):
            doc["value"] += 1

    if resp.status in (413, 431):
        edit_problem(resp, edit)


def _abort_document_by_hand(parts: list[Part]) -> list[Part]:
    """The abort part's document written by hand: status, part_index and detail only."""
    out = []
    for f, b in parts:
        if field_of(f, "Batch-Outcome") == "aborted":
            try:
                doc = json.loads(b)
            except ValueError:
                doc = None
            if isinstance(doc, dict):
                doc.pop("type", None)
                doc.pop("title", None)
                b = json.dumps(doc).encode()
                f = set_field(f, "Content-Length", str(len(b)))
        out.append((f, b))
    return out


def _refusal_written_latin1(req: RelayRequest, resp: RelayResponse) -> None:
    """A refusal's problem document holding characters past US-ASCII written in ISO 8859-1."""
    if resp.status < 400 or "problem+json" not in (resp.get("Content-Type") or ""):
        return
    try:
        text = resp.body.decode("utf-8")
    except UnicodeDecodeError:
        return
    if not text.isascii():
        resp.body = text.encode("latin-1", "replace")


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "refusal-document-written-latin1",
        "MB-STATUS-4 a problem document naming an input past US-ASCII written in ISO 8859-1",
        ("refusals-of-obs-text-inputs-are-utf8-problems",),
        on_response=_refusal_written_latin1,
    ),
    Mutation(
        "negotiation-refusal-document-by-hand",
        "MB-STATUS-4 a 406 whose problem document has no type and no title",
        ("refusal-documents-valid-in-every-form",),
        on_response=_negotiation_document_by_hand,
    ),
    Mutation(
        "json-form-refusal-untyped",
        "MB-STATUS-4 a 400 to a batch asking for the JSON form whose problem has no type",
        ("refusal-documents-valid-in-every-form",),
        on_response=_json_form_refusal_untyped,
    ),
    Mutation(
        "atomic-refusal-untitled",
        "MB-STATUS-4 a 400 to an atomic batch whose problem document has no title",
        ("refusal-documents-valid-in-every-form",),
        on_response=_atomic_refusal_untitled,
    ),
    Mutation(
        "mode-refusal-title-empty",
        "MB-STATUS-4 a 501 for an unknown Batch-Mode whose problem title is empty",
        ("refusal-documents-valid-in-every-form",),
        on_response=_mode_refusal_title_empty,
    ),
    Mutation(
        "limit-value-reached-count",
        "MB-LIMIT-4 a 413 or 431 whose value is the count the batch reached, not the limit",
        ("limit-parts-one-over", "limit-part-fields-one-over", "limit-part-header-bytes-one-over"),
        on_response=_limit_value_reached,
        # MB-LIMIT-4 is a SHOULD: a broken one is a WARN unless a MUST breaks beside it.
        caught_by=("WARN", "FAIL"),
    ),
    Mutation(
        "abort-document-by-hand",
        "MB-STATUS-6 an abort part whose problem document has no type and no title",
        ("batch-abort-after-timeout", "batch-abort-under-stop"),
        on_response_parts=_abort_document_by_hand,
    ),
)
