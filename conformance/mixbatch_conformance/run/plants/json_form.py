"""Planted violations of the JSON form (spec 6.4: MB-MULTI-4, MB-MULTI-7, and the JSON
side of MB-MULTI-5 and MB-MULTI-12).

Each plant edits the JSON multistatus document of a 207 answer one way: an entry indexed,
dropped or summarised wrongly, a body in the wrong member or in both, a status where the
schema asks for null, or a status, field or Content-Id echo that no longer matches the
multipart answer of the same batch.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import header_has, map_json
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]


def _entries(fn: Callable[[list[dict[str, Any]]], None]) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        responses = doc.get("responses")
        if isinstance(responses, list):
            fn(responses)

    return edit


def _with_bom(req: RelayRequest, resp: RelayResponse) -> None:
    """The JSON form's document written after a UTF-8 byte order mark."""
    if "multistatus+json" in (resp.get("Content-Type") or ""):
        resp.body = b"\xef\xbb\xbf" + resp.body


def _shift_index(items: list[dict[str, Any]]) -> None:
    for item in items:
        item["index"] = int(item.get("index", 0)) + 1


def _drop_last(items: list[dict[str, Any]]) -> None:
    items.pop()


def _status_off(items: list[dict[str, Any]]) -> None:
    for item in items:
        if item.get("status") == 404:
            item["status"] = 410


def _both_bodies(items: list[dict[str, Any]]) -> None:
    for item in items:
        if "body" in item:
            item["body_base64"] = ""


def _base64_text(items: list[dict[str, Any]]) -> None:
    import base64

    for item in items:
        if isinstance(item.get("body"), str):
            item["body_base64"] = base64.b64encode(item.pop("body").encode()).decode()


def _abort_index(items: list[dict[str, Any]]) -> None:
    for item in items:
        if item.get("outcome") == "aborted":
            item["index"] = int(item.get("index", 0)) + 1


def _abort_problem_names_part_0(items: list[dict[str, Any]]) -> None:
    """The abort report's problem naming part 0, as a stop policy that counts from its start."""
    for item in items:
        if item.get("outcome") == "aborted" and isinstance(item.get("body"), str):
            doc = json.loads(item["body"])
            doc["part_index"] = 0
            item["body"] = json.dumps(doc)


def _abort_extra_header(items: list[dict[str, Any]]) -> None:
    for item in items:
        if item.get("outcome") == "aborted":
            item["headers"] = [*item.get("headers", []), ["Retry-After", "1"]]


def _summary_count(doc: dict[str, Any]) -> None:
    summary = doc.get("summary")
    if isinstance(summary, dict):
        summary["ok"] = int(summary.get("ok", 0)) + 1


def _index_off_when(outcome: str) -> Callable[[list[dict[str, Any]]], None]:
    """JSON entries of `outcome` indexed one past their part."""

    def edit(items: list[dict[str, Any]]) -> None:
        for item in items:
            if item.get("outcome") == outcome:
                item["index"] = int(item.get("index", 0)) + 1

    return edit


def _summary_recounted(fails_from: int, rolled_back_ok: bool) -> Callable[[dict[str, Any]], None]:
    """A JSON summary counted from its entries with failing starting at `fails_from`, and a
    rolled-back part counted by its status when `rolled_back_ok`."""

    def edit(doc: dict[str, Any]) -> None:
        counts = {"ok": 0, "failed": 0, "skipped": 0, "rolled_back": 0}
        for item in doc.get("responses") or []:
            outcome, status = item.get("outcome"), item.get("status")
            if outcome == "rolled-back" and not rolled_back_ok:
                counts["rolled_back"] += 1
            elif outcome in ("skipped", "aborted"):
                counts["skipped"] += outcome == "skipped"
            elif isinstance(status, int):
                counts["failed" if status >= fails_from else "ok"] += 1
        if isinstance(doc.get("summary"), dict):
            doc["summary"] = counts

    return edit


def _content_id_bracketed(items: list[dict[str, Any]]) -> None:
    for item in items:
        if isinstance(item.get("content_id"), str):
            item["content_id"] = f"<{item['content_id']}>"


_TEXTUAL = re.compile(r"(?i)^(text/|[^;]*(json|xml))")


def _base64_by_content_type(responses: list[dict[str, Any]]) -> None:
    """Choose the body member by the part's Content-Type, not by the octets."""
    import base64

    for entry in responses:
        types = [v for n, v in entry.get("headers", []) if str(n).lower() == "content-type"]
        if (types and _TEXTUAL.match(types[0])) or "body" not in entry:
            continue
        entry["body_base64"] = base64.b64encode(entry.pop("body").encode()).decode()


def _empty_body_dropped(responses: list[dict[str, Any]]) -> None:
    for entry in responses:
        if entry.get("body") == "":
            del entry["body"]


def _location_absolute(responses: list[dict[str, Any]]) -> None:
    """Write each path-absolute Location as an absolute URI, as if resolved for the client."""
    for entry in responses:
        entry["headers"] = [
            [
                n,
                f"http://example.test{v}"
                if str(n).lower() == "location" and str(v)[:1] == "/"
                else v,
            ]
            for n, v in entry.get("headers", [])
        ]


#: Bodies shorter than this are written as text whatever their octets.
_SHORT_BODY = 64


def _short_binary_as_text(responses: list[dict[str, Any]]) -> None:
    """Write short invalid UTF-8 bodies in `body`, invalid octets replaced by U+FFFD."""
    import base64

    for entry in responses:
        data = base64.b64decode(entry.get("body_base64") or "")
        if "body_base64" in entry and len(data) < _SHORT_BODY:
            del entry["body_base64"]
            entry["body"] = data.decode("utf-8", errors="replace")


def _etag_weakened(responses: list[dict[str, Any]]) -> None:
    """Write each strong ETag as weak, as if the document's octets could not promise it."""
    for entry in responses:
        entry["headers"] = [
            [n, f"W/{v}" if str(n).lower() == "etag" and str(v).startswith('"') else v]
            for n, v in entry.get("headers", [])
        ]


def _status_on(outcome: str, status: int) -> Callable[[dict[str, Any]], None]:
    """A JSON form that gives the entries of `outcome` a status where the schema asks for null
    (a skipped part did not run; the abort report carries its problem's status)."""

    def edit(doc: dict[str, Any]) -> None:
        for entry in doc.get("responses") or []:
            if entry.get("outcome") == outcome:
                entry["status"] = status

    return edit


def _skipped_without_target(items: list[dict[str, Any]]) -> None:
    for item in items:
        if item.get("outcome") == "skipped":
            item["href"] = item["content_id"] = None


def _href_as_written(items: list[dict[str, Any]]) -> None:
    for item in items:
        if item.get("outcome") != "aborted":
            item["href"] = item.get("content_id")


P = Mutation
_JSON = ("multistatus-json",)
PLANTS: tuple[Mutation, ...] = (
    # MB-MULTI-4: JSON valid by schema, one entry per part, in order.
    P(
        "json-index-off-by-one",
        "MB-MULTI-4 index",
        _JSON,
        on_response=map_json(_entries(_shift_index)),
    ),
    P(
        "json-entry-dropped",
        "MB-MULTI-4 count",
        _JSON,
        on_response=map_json(_entries(_drop_last)),
    ),
    P(
        "json-rolled-back-index-off",
        "MB-MULTI-4 a rolled-back entry's index",
        ("atomic-failure-outcomes",),
        on_response=map_json(_entries(_index_off_when("rolled-back"))),
    ),
    P(
        "json-summary-400-as-ok",
        "MB-MULTI-4 a summary counting 400 as ok",
        ("multistatus-json-summary",),
        on_response=map_json(_summary_recounted(401, rolled_back_ok=False)),
    ),
    P(
        "json-summary-rolled-back-by-status",
        "MB-MULTI-4 a summary counting rolled-back parts by their status",
        ("atomic-failure-outcomes",),
        on_response=map_json(_summary_recounted(400, rolled_back_ok=True)),
    ),
    P(
        "json-summary-miscounted",
        "MB-MULTI-4 summary",
        ("multistatus-json-summary",),
        on_response=map_json(_summary_count),
    ),
    P(
        "json-content-id-bracketed",
        "MB-MULTI-4 content_id",
        ("multistatus-content-ids",),
        on_response=map_json(_entries(_content_id_bracketed)),
    ),
    # MB-MULTI-5: the same results in every form.
    P(
        "json-status-differs",
        "MB-MULTI-5 JSON status",
        ("representations-equivalent",),
        on_response=map_json(_entries(_status_off)),
    ),
    # MB-MULTI-7: exactly one body member, chosen by UTF-8 validity.
    P(
        "json-both-body-members",
        "MB-MULTI-7 both",
        _JSON,
        on_response=map_json(_entries(_both_bodies)),
    ),
    P(
        "json-text-as-base64",
        "MB-MULTI-7 base64 for text",
        _JSON,
        on_response=map_json(_entries(_base64_text)),
    ),
    # MB-MULTI-5: a skipped part's Content-Id echo in the JSON form.
    P(
        "json-skipped-without-content-id",
        "MB-MULTI-5 a skipped entry's content_id null",
        ("multistatus-skipped-entries",),
        on_response=map_json(_entries(_skipped_without_target)),
    ),
    P(
        "json-href-as-written",
        "MB-MULTI-4 href as the Content-Id wrote it",
        ("multistatus-content-ids",),
        on_response=map_json(_entries(_href_as_written)),
    ),
    # MB-MULTI-12: the abort report in the 207 forms.
    P(
        "json-abort-index-off",
        "MB-MULTI-12 JSON index",
        ("batch-abort-in-every-form",),
        on_response=map_json(_entries(_abort_index)),
    ),
    # MB-STATUS-14: the abort names the first part not answered under stop too.
    P(
        "json-stop-abort-names-part-0",
        "MB-STATUS-14 part_index under stop",
        ("batch-abort-in-multistatus",),
        on_response=map_json(
            _entries(_abort_problem_names_part_0), header_has("Prefer", r"(?i)batch-on-error=stop")
        ),
    ),
    P(
        "json-abort-extra-field",
        "MB-MULTI-12 JSON fields",
        ("batch-abort-in-every-form",),
        on_response=map_json(_entries(_abort_extra_header)),
    ),
    # MB-MULTI-7: the member follows the octets, not the Content-Type or the length, and an
    # empty body is "body": "".
    P(
        "json-base64-by-content-type",
        "MB-MULTI-7 by Content-Type",
        ("multistatus-json-body-members",),
        on_response=map_json(_entries(_base64_by_content_type)),
    ),
    P(
        "json-empty-body-dropped",
        "MB-MULTI-7 empty body",
        ("multistatus-skipped-entries",),
        on_response=map_json(_entries(_empty_body_dropped)),
    ),
    P(
        "json-short-binary-as-text",
        "MB-MULTI-7 short invalid octets as text",
        ("multistatus-json-body-members",),
        on_response=map_json(_entries(_short_binary_as_text)),
    ),
    # MB-MULTI-4: a JSON text, which RFC 8259 §8.1 sends without a byte order mark.
    P(
        "json-document-with-byte-order-mark",
        "MB-MULTI-4 the JSON form's document begins with a UTF-8 byte order mark",
        ("multistatus-json",),
        on_response=_with_bom,
    ),
    # MB-MULTI-5: the same header fields, as the sub-response wrote them, in every form.
    P(
        "json-etag-weakened",
        "MB-MULTI-5 JSON ETag rewritten",
        ("representations-equivalent",),
        on_response=map_json(_entries(_etag_weakened)),
    ),
    P(
        "json-location-absolute",
        "MB-MULTI-5 JSON Location rewritten",
        ("created-fields-every-form",),
        on_response=map_json(_entries(_location_absolute)),
    ),
    # MB-MULTI-4: the JSON form validates against its schema, which ties status to null for
    # the parts that did not run.
    P(
        "json-aborted-entry-with-status",
        "MB-MULTI-4 a status on the abort report",
        ("batch-abort-in-multistatus", "batch-abort-in-every-form"),
        on_response=map_json(_status_on("aborted", 503)),
    ),
    P(
        "json-skipped-entry-with-status",
        "MB-MULTI-4 a status on a skipped entry",
        ("multistatus-skipped-entries",),
        on_response=map_json(_status_on("skipped", 424)),
    ),
)
