"""Planted misreadings of If-Match and If-None-Match as lists (MB-PROC-9, MB-STATUS-7).

RFC 9110 §13.1.1 and §13.1.2 make each field a list of entity-tags (`#entity-tag`), its field
lines one list (§5.3), its empty elements and the whitespace around them ignored (§5.6.1.2), a
comma inside the quotes part of the opaque-tag (§8.8.3). Each plant edits the requests alone
and the parts of a batch alike, as a server that makes the mistake everywhere would, except the
last, which only a batch reader makes:

- If-Match compared as one entity-tag per field line, so a line listing several names none;
- both fields split at every comma, quotes and all, each piece then read with its quotes
  dropped, so `"<tag>,x"` names `<tag>`;
- If-None-Match read by its first member only;
- an empty list element making the field unreadable (If-Match then matches nothing,
  If-None-Match everything but the current tag);
- of several If-Match or If-None-Match field lines in a part, only the last handed on;
- each member read by the entity-tag it begins with, so `"<tag>"x`, which is none, names
  `<tag>`.
- a `*` among the members (`"<other>", *`, on one line or two) taken for the field `*`, which
  matches any representation;
- each entity-tag read as a quoted-string, so `"\\e\\t"` names `"et"` (RFC 9110 §8.8.3's note);
- the weakness indicator stripped as a set of characters (a cutset of `W` and `/`), not as the
  prefix `W/`, so `W/W/"<tag>"`, `/"<tag>"` and `W"<tag>"` name `<tag>`.
"""

from __future__ import annotations

import re

from mixbatch_conformance.run.mutations import FieldList, Mutation
from mixbatch_conformance.run.plants._edits import Part
from mixbatch_conformance.run.plants._preconditions import NO_MATCH, FieldsEdit, everywhere

__all__ = ["PLANTS"]

TAG_FIELDS = frozenset({"if-match", "if-none-match"})
#: One entity-tag, read as RFC 9110 §8.8.3 writes it.
_TAG = re.compile(r'(?:W/)?"[^"]*"')
_ONE_TAG = re.compile(r'[ \t]*(?:W/)?"[^"]*"[ \t]*')


def _if_match_line_whole(method: str, fields: FieldList) -> FieldList:
    """Each If-Match line compared as one tag: a line that lists more than one, or an empty
    element beside one, names no tag the resource has."""
    out: FieldList = []
    for n, v in fields:
        if n.lower() == "if-match" and v.strip() != "*" and not _ONE_TAG.fullmatch(v):
            v = NO_MATCH
        out.append((n, v))
    return out


def _requoted(piece: str) -> str:
    piece = piece.strip(" \t")
    weak = "W/" if piece.startswith("W/") else ""
    return f'{weak}"{piece.removeprefix(weak).strip(chr(34))}"'


def _split_at_every_comma(method: str, fields: FieldList) -> FieldList:
    """Both fields split at every comma, inside quotes too, each piece read without its quotes."""
    out: FieldList = []
    for n, v in fields:
        if n.lower() in TAG_FIELDS and v.strip() != "*":
            pieces = [p for p in v.split(",") if p.strip(" \t")]
            v = ", ".join(_requoted(p) for p in pieces)
        out.append((n, v))
    return out


def _if_none_match_first_member(method: str, fields: FieldList) -> FieldList:
    """If-None-Match read by the first entity-tag of its first line."""
    out: FieldList = []
    seen = False
    for n, v in fields:
        if n.lower() == "if-none-match":
            if seen:
                continue
            seen = True
            first = _TAG.search(v)
            if v.strip() != "*" and first is not None:
                v = first.group(0)
        out.append((n, v))
    return out


def _empty_element_unreadable(method: str, fields: FieldList) -> FieldList:
    """A list holding an empty element (`, "a" ,`) read as no list: If-Match matches nothing,
    If-None-Match holds."""
    out: FieldList = []
    for n, v in fields:
        if n.lower() in TAG_FIELDS and v.strip() != "*":
            unquoted = _TAG.sub("t", v)
            if any(not e.strip(" \t") for e in unquoted.split(",")):
                v = NO_MATCH
        out.append((n, v))
    return out


#: A list member that begins with an entity-tag and goes on past it.
_TAG_AND_MORE = re.compile(r'^(\s*(?:W/)?"[^"]*")[^\s,]+')


def _tag_read_by_its_start(method: str, fields: FieldList) -> FieldList:
    """Each If-Match and If-None-Match member read by the entity-tag it begins with."""
    out: FieldList = []
    for n, v in fields:
        if n.lower() in TAG_FIELDS:
            v = ",".join(_TAG_AND_MORE.sub(r"\1", m) for m in v.split(","))
        out.append((n, v))
    return out


def _star_member_matches_all(method: str, fields: FieldList) -> FieldList:
    """A `*` among the members of If-Match or If-None-Match, on one line or over several, taken
    to match any representation: the field handed on as `*` alone."""
    out: FieldList = []
    for name in TAG_FIELDS:
        members = [m.strip(" \t") for n, v in fields if n.lower() == name for m in v.split(",")]
        if "*" in members and len(members) > 1:
            fields = [(n, v) for n, v in fields if n.lower() != name]
            out.append((name.title(), "*"))
    return [*fields, *out]


def _backslashes_unescaped(method: str, fields: FieldList) -> FieldList:
    """If-Match and If-None-Match read with a quoted-string reader, each `\\x` taken for `x`."""
    return [(n, re.sub(r"\\(.)", r"\1", v) if n.lower() in TAG_FIELDS else v) for n, v in fields]


#: A member's leading run of `W` and `/` before its opaque-tag.
_INDICATOR_RUN = re.compile(r'^([ \t]*)[W/]+(?=")')


def _indicator_cutset(method: str, fields: FieldList) -> FieldList:
    """Each If-None-Match member read with every leading `W` and `/` trimmed (a TrimLeft by a
    cutset), then compared weakly, as §13.1.2 compares: one indicator spelled wrong is no
    entity-tag, read here as the tag behind it."""
    out: FieldList = []
    for n, v in fields:
        if n.lower() == "if-none-match":
            v = ",".join(_INDICATOR_RUN.sub(r"\1", m) for m in v.split(","))
        out.append((n, v))
    return out


def _last_line_kept(parts: list[Part]) -> list[Part]:
    """A part's If-Match and If-None-Match each handed on by its last field line only."""
    out: list[Part] = []
    for fields, body in parts:
        kept: FieldList = []
        for i, (n, v) in enumerate(fields):
            later = any(m.lower() == n.lower() for m, _ in fields[i + 1 :])
            if n.lower() in TAG_FIELDS and later:
                continue
            kept.append((n, v))
        out.append((kept, body))
    return out


def _plant(name: str, breaks: str, catchers: tuple[str, ...], edit: FieldsEdit) -> Mutation:
    alone, parts = everywhere(edit)
    return Mutation(name, breaks, catchers, on_request=alone, on_request_parts=parts)


READS = ("conditional-tag-lists",)
TRAILING = ("conditional-tag-members-with-trailing-text",)
WRITES = ("conditional-tag-lists-on-writes",)
COLLECTION = ("collection-conditional-tag-lists",)
PLANTS: tuple[Mutation, ...] = (
    _plant(
        "if-match-line-compared-whole-everywhere",
        "MB-PROC-9 If-Match compared as one entity-tag per field line, alone as in a part",
        READS + WRITES + COLLECTION,
        _if_match_line_whole,
    ),
    _plant(
        "tag-list-split-inside-quotes-everywhere",
        "MB-PROC-9 an entity-tag list split at commas inside quotes, alone as in a part",
        READS + WRITES + COLLECTION,
        _split_at_every_comma,
    ),
    _plant(
        "if-none-match-first-member-only-everywhere",
        "MB-PROC-9 If-None-Match read by its first member, alone as in a part",
        READS + WRITES + COLLECTION,
        _if_none_match_first_member,
    ),
    _plant(
        "tag-list-empty-element-unreadable-everywhere",
        "MB-PROC-9 an entity-tag list with an empty element read as no list, alone as in a part",
        READS + WRITES + COLLECTION,
        _empty_element_unreadable,
    ),
    _plant(
        "tag-member-read-by-its-start-everywhere",
        "MB-PROC-9 an If-None-Match member read by the entity-tag it begins with, alone as in a "
        "part",
        TRAILING,
        _tag_read_by_its_start,
    ),
    _plant(
        "star-member-matches-all-everywhere",
        "MB-PROC-9 a * among an entity-tag list's members matching any representation, alone as "
        "in a part",
        TRAILING,
        _star_member_matches_all,
    ),
    _plant(
        "entity-tags-read-as-quoted-strings-everywhere",
        "MB-PROC-9 entity-tags read as quoted-strings, backslashes unescaped, alone as in a part",
        ("entity-tags-compared-exactly",),
        _backslashes_unescaped,
    ),
    _plant(
        "weak-indicator-trimmed-as-cutset-everywhere",
        "MB-PROC-9 the weakness indicator trimmed as a set of W and / characters, alone as in a "
        "part",
        TRAILING,
        _indicator_cutset,
    ),
    Mutation(
        "part-tag-field-last-line-kept",
        "MB-PROC-9 of a part's repeated If-Match or If-None-Match lines only the last handed on",
        READS + WRITES + COLLECTION,
        on_request_parts=_last_line_kept,
    ),
)
