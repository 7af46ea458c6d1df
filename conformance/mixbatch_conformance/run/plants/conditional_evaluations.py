"""Planted violations of RFC 9110 §13's evaluation made alike alone and in a part (MB-PROC-9).

A server that evaluates a conditional field wrongly for every request answers a part as it
answers the same request alone, so only a check that judges the part by RFC 9110 §13 sees it.
Each plant edits the standalone requests and the parts of a batch the same way: a HEAD whose
If-None-Match is taken as an unsafe method's failed precondition (412, not 304); an
If-None-Match: * that is not recognised; a modification time finer than the second
Last-Modified carries, so a date precondition equal to Last-Modified sees it as modified after
it; If-Match compared weakly, so the W/ form of the current tag matches;
and If-Match that never matches, not even the exact current tag.
"""

from __future__ import annotations

from datetime import timedelta
from email.utils import format_datetime, parsedate_to_datetime

from mixbatch_conformance.run.mutations import FieldList, Mutation
from mixbatch_conformance.run.plants._preconditions import NO_MATCH, FieldsEdit, everywhere

__all__ = ["PLANTS"]

#: The date preconditions.
DATE_FIELDS = frozenset({"if-modified-since", "if-unmodified-since"})


def _head_inm_as_unsafe(method: str, fields: FieldList) -> FieldList:
    """HEAD is not treated as GET: its If-None-Match fails the request with 412."""
    if method != "HEAD" or not any(n.lower() == "if-none-match" for n, _ in fields):
        return fields
    return [(n, v) for n, v in fields if n.lower() != "if-none-match"] + [("If-Match", NO_MATCH)]


def _inm_star_unknown(method: str, fields: FieldList) -> FieldList:
    """`*` is recognised in If-Match only: If-None-Match: * matches nothing."""
    return [(n, v) for n, v in fields if n.lower() != "if-none-match" or v.strip() != "*"]


def _second_earlier(value: str) -> str:
    try:
        return format_datetime(parsedate_to_datetime(value) - timedelta(seconds=1), True)
    except (TypeError, ValueError):
        return value


def _finer_modification_time(method: str, fields: FieldList) -> FieldList:
    """The modification time keeps a fraction of a second Last-Modified drops, so a date
    precondition compares as if it named an earlier second."""
    return [(n, _second_earlier(v) if n.lower() in DATE_FIELDS else v) for n, v in fields]


def _if_match_weak(method: str, fields: FieldList) -> FieldList:
    """If-Match compared weakly: the W/ form of a tag matches it."""
    return [(n, v.replace("W/", "") if n.lower() == "if-match" else v) for n, v in fields]


def _if_match_never_matches(method: str, fields: FieldList) -> FieldList:
    """If-Match compared with its quotes dropped on one side only: no tag ever matches."""
    return [(n, NO_MATCH if n.lower() == "if-match" else v) for n, v in fields]


def _plant(name: str, breaks: str, catchers: tuple[str, ...], edit: FieldsEdit) -> Mutation:
    alone, parts = everywhere(edit)
    return Mutation(name, breaks, catchers, on_request=alone, on_request_parts=parts)


READS = ("conditional-rfc-reads",)
WRITES = ("conditional-rfc-writes",)
PLANTS: tuple[Mutation, ...] = (
    _plant(
        "head-if-none-match-as-unsafe-everywhere",
        "MB-PROC-9 a HEAD's matching If-None-Match answered 412, alone as in a part",
        READS,
        _head_inm_as_unsafe,
    ),
    _plant(
        "if-none-match-star-unknown-everywhere",
        "MB-PROC-9 If-None-Match: * matching nothing, alone as in a part",
        READS + WRITES,
        _inm_star_unknown,
    ),
    _plant(
        "modification-time-finer-than-last-modified",
        "MB-PROC-9 a date precondition equal to Last-Modified seen as a second earlier",
        READS + WRITES,
        _finer_modification_time,
    ),
    _plant(
        "if-match-compared-weakly-everywhere",
        "MB-PROC-9 If-Match compared weakly, alone as in a part",
        WRITES,
        _if_match_weak,
    ),
    _plant(
        "if-match-exact-tag-never-matches",
        "MB-PROC-9 If-Match with the exact current tag answered 412, alone as in a part",
        WRITES,
        _if_match_never_matches,
    ),
)
