"""Planted violations of how a server reads a field line in its other legal forms.

Covers a receiver that reads a field only as it expects it written: a batch-level field whose
name is in another case goes unseen (MB-WIRE-2, MB-STATUS-9, MB-PROC-17, MB-PROC-6, MB-SUB-5,
each for the field it serves); a part field named in another case, with whitespace around its
value, or on a second line is dropped, and so is a part's Batch-Mode or batch-on-error
preference, or its Accept list is cut to its first member (MB-PART-8); a precondition list is
cut to its first member, a weak entity-tag is not compared weakly, a date precondition named in another case is
dropped, and If-Range is read as If-Match (MB-PROC-9). Batch-level fields are edited as the
relay received them; part fields are edited in the batch content the server receives.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from mixbatch_conformance.run.mutations import FieldList, Mutation
from mixbatch_conformance.run.plants._edits import Part, boundary_of, is_batch, refuses
from mixbatch_conformance.transport.relay import RelayRequest

__all__ = ["PLANTS"]

#: The part fields the envelope itself needs, which no plant here drops.
ENVELOPE_FIELDS = frozenset({"http-method", "content-id", "content-length"})
#: A field line's name and the rest of it.
FIELD_LINE = re.compile(rb"^([!#$%&'*+.^_`|~0-9A-Za-z-]+):(.*)$")


def has_ows(line: bytes) -> bool:
    """A field line whose value has whitespace around it beyond the one SP after the colon."""
    m = FIELD_LINE.match(line)
    if m is None:
        return False
    rest = m.group(2)
    lead = rest[1:] if rest.startswith(b" ") else rest
    return bool(rest) and (lead[:1] in (b" ", b"\t") or rest[-1:] in (b" ", b"\t"))


def _top_in_other_case(*canonical: str) -> Callable[[RelayRequest], None]:
    """A server that looks the batch's fields up by these exact spellings."""
    names = {c.lower(): c for c in canonical}

    def edit(req: RelayRequest) -> None:
        if req.method == "POST":
            req.headers = [(n, v) for n, v in req.headers if names.get(n.lower(), n) == n]

    return edit


def _part_fields(fn: Callable[[FieldList], FieldList]) -> Callable[[list[Part]], list[Part]]:
    return lambda parts: [(fn(fields), body) for fields, body in parts]


def _named_otherwise(canonical: str) -> Callable[[FieldList], FieldList]:
    """A receiver that reads `canonical` in that spelling only."""
    return lambda fields: [
        (n, v) for n, v in fields if n.lower() != canonical.lower() or n == canonical
    ]


def _first_line_only(fields: FieldList) -> FieldList:
    """A receiver that keeps the first line of a field name, as a map keyed by name would."""
    seen: set[str] = set()
    out: FieldList = []
    for n, v in fields:
        if n.lower() in seen and n.lower() not in ENVELOPE_FIELDS:
            continue
        seen.add(n.lower())
        out.append((n, v))
    return out


def _last_line_only(fields: FieldList) -> FieldList:
    """A receiver that keeps the last line of a field name, each line overwriting the one
    before it."""
    last = {n.lower(): i for i, (n, _) in enumerate(fields)}
    return [
        (n, v)
        for i, (n, v) in enumerate(fields)
        if n.lower() in ENVELOPE_FIELDS or last[n.lower()] == i
    ]


def _first_member(name: str) -> Callable[[FieldList], FieldList]:
    """A receiver that reads a list field `name` as a single value: its first member."""
    return lambda fields: [
        (n, v.split(",")[0].strip() if n.lower() == name else v) for n, v in fields
    ]


def _dropped(name: str, holding: str = "") -> Callable[[FieldList], FieldList]:
    """A receiver that drops a field `name` whose value holds `holding`, taking it for the
    batch request's own."""
    return lambda fields: [
        (n, v) for n, v in fields if n.lower() != name or holding not in v.lower()
    ]


def _weak_tags_dropped(fields: FieldList) -> FieldList:
    """A receiver that compares If-None-Match strongly, so a weak entity-tag matches nothing."""
    out: FieldList = []
    for n, v in fields:
        if n.lower() == "if-none-match" and "W/" in v:
            kept = [m.strip() for m in v.split(",") if not m.strip().startswith("W/")]
            v = ", ".join(kept) or '"mb-plant-no-match"'
        out.append((n, v))
    return out


#: An IMF-fixdate (RFC 9110 §5.6.7), the one date format a careless parser reads.
IMF_FIXDATE = re.compile(r"^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$")
#: The date preconditions.
DATE_FIELDS = frozenset({"if-modified-since", "if-unmodified-since"})


def _if_match_compared_weakly(fields: FieldList) -> FieldList:
    """A receiver that compares If-Match weakly: a weak entity-tag matches its strong twin."""
    return [(n, v.replace("W/", "") if n.lower() == "if-match" else v) for n, v in fields]


def _obsolete_dates_dropped(fields: FieldList) -> FieldList:
    """A receiver that reads only IMF-fixdate and drops a date precondition in another format."""
    return [
        (n, v) for n, v in fields if n.lower() not in DATE_FIELDS or IMF_FIXDATE.match(v.strip())
    ]


def _bad_date_fails(fields: FieldList) -> FieldList:
    """A receiver that takes an If-Unmodified-Since it cannot parse as failed, not ignored."""
    return [
        (
            n,
            "Thu, 01 Jan 1970 00:00:00 GMT"
            if n.lower() == "if-unmodified-since" and not any(c.isdigit() for c in v)
            else v,
        )
        for n, v in fields
    ]


def _if_range_as_if_match(fields: FieldList) -> FieldList:
    return [("If-Match" if n.lower() == "if-range" else n, v) for n, v in fields]


def _header_lines(req: RelayRequest) -> list[bytes]:
    """The field lines of every part header section of a batch as sent."""
    boundary = boundary_of(req)
    if not is_batch(req) or not boundary:
        return []
    dash = b"--" + boundary.encode("latin-1")
    out: list[bytes] = []
    in_head = False
    for line in req.body.split(b"\r\n"):
        if line.startswith(dash):
            in_head = True
        elif in_head and not line:
            in_head = False
        elif in_head:
            out.append(line)
    return out


def _has_ows_line(req: RelayRequest) -> bool:
    """A batch with a part field, other than the envelope's own, whose value has whitespace
    around it (the envelope fields have plants of their own in plants.part_grammar)."""
    return any(
        has_ows(line) and line.split(b":", 1)[0].decode("latin-1").lower() not in ENVELOPE_FIELDS
        for line in _header_lines(req)
    )


def _ows_lines_dropped(req: RelayRequest) -> None:
    """A receiver that cannot read a part field line with whitespace around its value."""
    boundary = boundary_of(req)
    if not is_batch(req) or not boundary:
        return
    dash = b"--" + boundary.encode("latin-1")
    out: list[bytes] = []
    in_head = False
    for line in req.body.split(b"\r\n"):
        if line.startswith(dash):
            in_head = True
        elif in_head and not line:
            in_head = False
        elif in_head and has_ows(line):
            name = line.split(b":", 1)[0].decode("latin-1").lower()
            if name not in ENVELOPE_FIELDS:
                continue
        out.append(line)
    req.body = b"\r\n".join(out)


P = Mutation
TOP = ("top-level-field-names-any-case",)
FORMS = ("part-field-forms-reach-resource",)
CONDITIONAL = ("conditional-field-forms",)
PLANTS: tuple[Mutation, ...] = (
    # The batch's own fields, named in another case, go unseen.
    P(
        "top-content-type-name-case-sensitive",
        "MB-WIRE-2 Content-Type named in another case unseen",
        TOP,
        on_request=_top_in_other_case("Content-Type"),
    ),
    P(
        "top-accept-name-case-sensitive",
        "MB-STATUS-9 Accept named in another case unseen",
        TOP,
        on_request=_top_in_other_case("Accept"),
    ),
    P(
        "top-batch-mode-name-case-sensitive",
        "MB-PROC-17 Batch-Mode named in another case unseen",
        TOP,
        on_request=_top_in_other_case("Batch-Mode"),
    ),
    P(
        "top-prefer-name-case-sensitive",
        "MB-PROC-6 Prefer named in another case unseen",
        TOP,
        on_request=_top_in_other_case("Prefer"),
    ),
    P(
        "top-credentials-name-case-sensitive",
        "MB-SUB-5 the batch's Authorization and Cookie named in another case not applied",
        TOP,
        on_request=_top_in_other_case("Authorization", "Cookie"),
    ),
    # Part fields in another form are dropped before the sub-request is made.
    P(
        "part-accept-name-case-sensitive",
        "MB-PART-8 a part's Accept named in another case dropped",
        FORMS,
        on_request_parts=_part_fields(_named_otherwise("Accept")),
    ),
    P(
        "part-prefer-name-case-sensitive",
        "MB-PART-8 a part's Prefer named in another case dropped",
        FORMS,
        on_request_parts=_part_fields(_named_otherwise("Prefer")),
    ),
    P(
        "part-extension-field-name-case-sensitive",
        "MB-PART-8 a part's extension field named in another case dropped",
        FORMS,
        on_request_parts=_part_fields(_named_otherwise("X-Mb-Suite-Probe")),
    ),
    P(
        "part-field-with-ows-dropped",
        "MB-PART-8 a part field with whitespace around its value dropped",
        FORMS,
        on_request=_ows_lines_dropped,
    ),
    P(
        "part-field-with-ows-refused",
        "MB-PART-11 a part field line with whitespace around its value refused",
        FORMS,
        on_response=refuses(_has_ows_line),
    ),
    P(
        "part-range-dropped",
        "MB-PART-8 a part's Range and If-Range dropped by a server that serves no ranges",
        FORMS,
        on_request_parts=_part_fields(
            lambda fields: [(n, v) for n, v in fields if n.lower() not in ("range", "if-range")]
        ),
    ),
    P(
        "part-field-first-line-only",
        "MB-PART-8 a part field's second line dropped",
        FORMS,
        on_request_parts=_part_fields(_first_line_only),
    ),
    P(
        "part-field-last-line-only",
        "MB-PART-8 a part field's earlier lines overwritten by its last",
        FORMS,
        on_request_parts=_part_fields(_last_line_only),
    ),
    # Part fields the batch request gives a meaning are the sub-request's all the same.
    P(
        "part-accept-first-member-only",
        "MB-PART-8 a part's Accept list cut to its first member",
        (*FORMS, "part-fields-leave-batch-form"),
        on_request_parts=_part_fields(_first_member("accept")),
    ),
    P(
        "part-batch-mode-dropped",
        "MB-PART-8 a part's Batch-Mode dropped",
        (*FORMS, "part-fields-leave-batch-form"),
        on_request_parts=_part_fields(_dropped("batch-mode")),
    ),
    P(
        "part-prefer-batch-on-error-dropped",
        "MB-PART-8 a part's Prefer: batch-on-error dropped",
        (*FORMS, "continue-whatever-parts-prefer"),
        on_request_parts=_part_fields(_dropped("prefer", "batch-on-error")),
    ),
    # Preconditions in another form are misread.
    P(
        "if-match-first-member-only",
        "MB-PROC-9 If-Match read as its first entity-tag",
        CONDITIONAL,
        on_request_parts=_part_fields(_first_member("if-match")),
    ),
    P(
        "if-none-match-first-member-only",
        "MB-PROC-9 If-None-Match read as its first entity-tag",
        CONDITIONAL,
        on_request_parts=_part_fields(_first_member("if-none-match")),
    ),
    P(
        "if-none-match-compared-strongly",
        "MB-PROC-9 If-None-Match compared strongly",
        CONDITIONAL,
        on_request_parts=_part_fields(_weak_tags_dropped),
    ),
    P(
        "if-unmodified-since-name-case-sensitive",
        "MB-PROC-9 If-Unmodified-Since named in another case dropped",
        CONDITIONAL,
        on_request_parts=_part_fields(_named_otherwise("If-Unmodified-Since")),
    ),
    P(
        "if-modified-since-name-case-sensitive",
        "MB-PROC-9 If-Modified-Since named in another case dropped",
        CONDITIONAL,
        on_request_parts=_part_fields(_named_otherwise("If-Modified-Since")),
    ),
    P(
        "conditional-first-line-only",
        "MB-PROC-9 a precondition's second line dropped",
        CONDITIONAL,
        on_request_parts=_part_fields(_first_line_only),
    ),
    P(
        "conditional-with-ows-dropped",
        "MB-PROC-9 a precondition with whitespace around its value dropped",
        CONDITIONAL,
        on_request=_ows_lines_dropped,
    ),
    P(
        "if-match-compared-weakly",
        "MB-PROC-9 If-Match compared weakly",
        CONDITIONAL,
        on_request_parts=_part_fields(_if_match_compared_weakly),
    ),
    P(
        "obsolete-date-formats-ignored",
        "MB-PROC-9 a precondition date in an obsolete format ignored",
        CONDITIONAL,
        on_request_parts=_part_fields(_obsolete_dates_dropped),
    ),
    P(
        "unparsable-date-precondition-failed",
        "MB-PROC-9 an If-Unmodified-Since that is no date taken as failed",
        CONDITIONAL,
        on_request_parts=_part_fields(_bad_date_fails),
    ),
    P(
        "if-range-read-as-if-match",
        "MB-PROC-9 If-Range evaluated as If-Match",
        CONDITIONAL,
        on_request_parts=_part_fields(_if_range_as_if_match),
    ),
)
