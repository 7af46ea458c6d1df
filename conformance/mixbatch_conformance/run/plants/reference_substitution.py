"""Planted violations of where references are substituted (spec 7.7): field values, `$$(`, a
lone `$`, part content, and a field the named response lacks.

Theory of operation: the reference server substitutes correctly, so each plant rewrites what it
receives in a `Batch-Mode: references` batch until its correct substitution yields what a wrong
server would send on. A server that substitutes only in Content-Id sees its field values'
`$(` escaped as `$$(`; one that ignores a field name sees `$(N)`; one that matches field names
by case sees a lower-case name turned into one no response carries; one that keeps `$$(` sees
`$$$(`, which the reference server turns into `$$(`; one that reads `$$(` as a reference sees
`$(`; one that drops a lone `$` never sees it; one that substitutes in content sees content
already substituted. A server that hands on the fields holding a reference after the others sees them moved last.
A server that percent-encodes what replaces a reference in a target's query, as a URI builder
encodes a query value, is modelled on the echo's account of the target it received. A server
that reads a missing field as empty sees no reference at all, and
the answer of one that reports the reference shortened, or stops the batch at it, is edited.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from urllib.parse import quote

from mixbatch_conformance.run.mutations import Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    Part,
    all_of,
    body_has,
    boundary_of,
    field_of,
    header_has,
    is_batch,
    map_parts,
    parts_of,
    set_field,
    stops_at_unresolved,
)
from mixbatch_conformance.transport.relay import RelayRequest

__all__ = ["PLANTS"]

_REFERENCES = header_has("Batch-Mode", r"(?i)\breferences\b")
#: The part fields that carry no reference: the method and the framing of the content.
_NOT_REFERENCES = frozenset({"http-method", "content-length", "content-type"})
#: A reference as spec 7.7 writes it: `$(` part-index [ `:` field-name ] `)`.
_REFERENCE = rb"\$\((?:0|[1-9][0-9]*)(?::[!#$%&'*+.^_`|~0-9A-Za-z-]+)?\)"


def _request_parts(edit: Callable[[list[Part]], list[Part]]) -> Callable[[RelayRequest], None]:
    """Rewrite the parts of a references batch before the server reads them."""

    def on_request(req: RelayRequest) -> None:
        b = boundary_of(req)
        if not b or not is_batch(req) or not _REFERENCES(req):
            return
        parts = parts_of(req.body, b)
        if parts is not None:
            req.body = write_parts(edit(parts), b)

    return on_request


def _in_fields(
    pattern: str, repl: str, *, content_id: bool = True
) -> Callable[[RelayRequest], None]:
    """Replace `pattern` in the values of every part field that may hold a reference."""
    rx = re.compile(pattern)

    def edit(parts: list[Part]) -> list[Part]:
        out: list[Part] = []
        for fields, body in parts:
            kept = [
                (n, v)
                if n.lower() in _NOT_REFERENCES or (n.lower() == "content-id" and not content_id)
                else (n, rx.sub(repl, v))
                for n, v in fields
            ]
            out.append((kept, body))
        return out

    return _request_parts(edit)


def _referring_fields_last(parts: list[Part]) -> list[Part]:
    """A server that substitutes in the fields holding a reference apart and appends them
    after the part's other fields, so they reach the resource out of the part's order."""
    out: list[Part] = []
    for fields, body in parts:
        holds = [
            (n, v)
            for n, v in fields
            if n.lower() not in _NOT_REFERENCES and n.lower() != "content-id" and "$(" in v
        ]
        rest = [f for f in fields if f not in holds]
        out.append((rest + holds, body))
    return out


def _content_substituted(parts: list[Part]) -> list[Part]:
    """A server that substitutes references in part content too: each becomes a path."""
    out: list[Part] = []
    for fields, body in parts:
        new = re.sub(_REFERENCE, b"/mb-plant-substituted", body)
        if new != body and field_of(fields, "Content-Length") is not None:
            fields = set_field(fields, "Content-Length", str(len(new)))
        out.append((fields, new))
    return out


def _reference_shortened(parts: list[Part]) -> list[Part]:
    """An MB-PROC-20 problem whose `reference` leaves out the field name written."""
    out = []
    for f, b in parts:
        if b"MB-PROC-20" in b:
            doc = json.loads(b)
            if isinstance(doc.get("reference"), str):
                doc["reference"] = re.sub(r":[^)]*\)", ")", doc["reference"])
            b = json.dumps(doc).encode()
            f = set_field(f, "Content-Length", str(len(b)))
        out.append((f, b))
    return out


def _query_reference_encoded(parts: list[Part]) -> list[Part]:
    """Each echo part whose Content-Id holds a reference in its query tells of a target whose
    query came percent-encoded (`/` as `%2F`), as the resource would have received it."""
    out: list[Part] = []
    for fields, body in parts:
        _, mark, query = (field_of(fields, "Content-Id") or "").partition("?")
        if mark and "$(" in query:
            try:
                doc = json.loads(body)
            except ValueError:
                doc = None
            if isinstance(doc, dict) and isinstance(doc.get("target"), str):
                path, sep, received = doc["target"].partition("?")
                doc["target"] = path + sep + quote(received, safe="=&")
                body = json.dumps(doc).encode()
                if field_of(fields, "Content-Length") is not None:
                    fields = set_field(fields, "Content-Length", str(len(body)))
        out.append((fields, body))
    return out


P = Mutation

PLANTS: tuple[Mutation, ...] = (
    # MB-PROC-18: "MUST replace each reference in a part's `Content-Id` and header field values".
    P(
        "field-reference-left-literal",
        "MB-PROC-18 a field value's reference left as written",
        ("references-field-value-substituted",),
        on_request=_in_fields(r"(?<!\$)\$\(", "$$(", content_id=False),
    ),
    P(
        "field-reference-read-as-location",
        "MB-PROC-18 a field name ignored",
        ("references-field-value-substituted",),
        on_request=_in_fields(r"\$\(([0-9]+):[^)]*\)", r"$(\1)", content_id=False),
    ),
    P(
        "field-name-matched-by-case",
        "MB-PROC-18 a field name matched case-sensitively",
        ("references-field-value-substituted",),
        on_request=_in_fields(
            r"\$\(([0-9]+):([a-z][a-z0-9-]*)\)", r"$(\1:X-Mb-Plant-\2)", content_id=False
        ),
    ),
    # MB-PART-8: the part's other header fields are the sub-request's, "in order".
    P(
        "referring-fields-moved-last",
        "MB-PART-8 the fields holding a reference handed on after the part's other fields",
        ("references-field-value-substituted",),
        on_request=_request_parts(_referring_fields_last),
    ),
    P(
        "query-reference-percent-encoded",
        "MB-PROC-18 the value replacing a reference in a target's query percent-encoded",
        ("references-location-in-field-value",),
        on_response=map_parts(_query_reference_encoded, _REFERENCES),
    ),
    P(
        "location-reference-in-field-left-literal",
        "MB-PROC-18 $(N) in a field value left as written",
        ("references-location-in-field-value",),
        on_request=_in_fields(r"(?<!\$)\$\(([0-9]+)\)", r"$$(\1)", content_id=False),
    ),
    # Spec 7.7: "`$$(` stands for a literal `$(`; any other `$` is itself."
    P(
        "reference-escape-kept",
        "MB-PROC-18 $$( sent on as written",
        ("references-escape-literal",),
        on_request=_in_fields(r"\$\$\(", "$$$("),
    ),
    P(
        "reference-escape-resolved",
        "MB-PROC-18 $$( read as a reference",
        ("references-escape-literal",),
        on_request=_in_fields(r"\$\$\(", "$("),
    ),
    P(
        "lone-dollar-dropped",
        "MB-PROC-18 a lone $ dropped",
        ("references-escape-literal",),
        on_request=_in_fields(r"(?<!\$)\$(?![$(])", ""),
    ),
    # Spec 7.7: "References are not substituted in part content".
    P(
        "reference-substituted-in-content",
        "MB-PROC-18 part content substituted",
        ("references-not-in-content",),
        on_request=_request_parts(_content_substituted),
    ),
    # MB-PROC-20: "its response has no such field" leaves the part skipped.
    P(
        "missing-field-read-as-empty",
        "MB-PROC-20 a missing field substituted as empty",
        ("references-missing-field-skipped",),
        on_request=_in_fields(r"(?i)\$\([0-9]+:x-mb-suite-absent\)", "", content_id=False),
    ),
    P(
        "missing-field-reference-shortened",
        "MB-PROC-20 the reference not as written",
        ("references-missing-field-skipped",),
        on_response=map_parts(_reference_shortened, all_of(_REFERENCES, body_has(rb"\$\(\d+:"))),
    ),
    P(
        "missing-field-stops-later-parts",
        "MB-PROC-20 a missing field taken as failing",
        ("references-missing-field-skipped",),
        on_response=map_parts(stops_at_unresolved, all_of(_REFERENCES, body_has(rb"\$\(\d+:"))),
    ),
)
