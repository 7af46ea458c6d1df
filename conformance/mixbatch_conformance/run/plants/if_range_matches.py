"""Planted violations of how If-Range matches (RFC 9110 §13.1.5, MB-PROC-9).

    if-range-date-read-as-unmodified-since   a part's If-Range date matches any Last-Modified
                                             at or before it, as If-Unmodified-Since reads a
                                             date, so a date after Last-Modified serves the
                                             range; §13.1.5 matches only the exact date
    if-range-tag-compared-weakly             a part's If-Range tag compared by the weak
                                             function, so the current tag marked W/ serves the
                                             range; §13.1.5 compares strongly
    if-range-read-by-if-match-grammar        a part's If-Range read as If-Match is, so `*` and
                                             a list holding the current tag serve the range;
                                             §13.1.5 takes one entity-tag or one date
    range-served-before-preconditions        a part's Range served before its If-None-Match or
                                             If-Match is evaluated, so a 304 or 412 becomes a
                                             206 (RFC 9110 §13.2.2's order)

The reference server serves no ranges, so each plant serves one for it (the last fetching the
octets from it, since a 304 or 412 carries none): a GET part that carries
`Range: bytes=N-M` and the If-Range the plant wrongly takes for a match, answered 200 with the
validator it compares against, is answered 206 with those octets and their Content-Range.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from email.utils import parsedate_to_datetime

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import (
    Part,
    field_of,
    map_answered_parts,
    set_field,
    without_field,
)
from mixbatch_conformance.transport.http import build_request
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

_RANGE = re.compile(r"\s*bytes=(\d+)-(\d+)\s*\Z")
#: Whether a part's If-Range value is taken to match its answer's fields.
Matches = Callable[[str, Part], bool]


def _date_at_or_after(condition: str, answer: Part) -> bool:
    modified = field_of(answer[0], "Last-Modified")
    if condition.startswith(('"', "W/")) or not modified:
        return False
    try:
        return parsedate_to_datetime(condition) >= parsedate_to_datetime(modified)
    except (TypeError, ValueError):
        return False


def _weak_tag(condition: str, answer: Part) -> bool:
    etag = (field_of(answer[0], "ETag") or "").strip()
    return (
        condition.startswith("W/")
        and bool(etag)
        and condition.removeprefix("W/") == etag.removeprefix("W/")
    )


def _as_if_match(condition: str, answer: Part) -> bool:
    etag = (field_of(answer[0], "ETag") or "").strip()
    members = [m.strip() for m in condition.split(",")]
    return condition == "*" or (len(members) > 1 and bool(etag) and etag in members)


def _served(matches: Matches) -> Callable[[RelayRequest, RelayResponse], None]:
    def serve(sent: Part, answered: Part) -> Part:
        (qf, _), (af, ab) = sent, answered
        wanted = _RANGE.match(field_of(qf, "Range") or "")
        condition = (field_of(qf, "If-Range") or "").strip()
        ok = (field_of(af, "Http-Status-Code") or "").strip() == "200"
        if not (wanted and condition and ok and matches(condition, answered)):
            return answered
        first, last = int(wanted.group(1)), min(int(wanted.group(2)), len(ab) - 1)
        if first > last:
            return answered
        af = without_field(set_field(af, "Http-Status-Code", "206"), "Content-Length")
        ranged = ab[first : last + 1]
        af = [*af, ("Content-Range", f"bytes {first}-{last}/{len(ab)}")]
        return [*af, ("Content-Length", str(len(ranged)))], ranged

    return map_answered_parts(serve)


def _range_before_preconditions(req: RelayRequest, resp: RelayResponse) -> None:
    """A part with Range whose If-None-Match or If-Match failed (304, 412) served the range all
    the same, as a handler that answers Range before it evaluates the preconditions."""
    upstream = req.upstream

    def serve(sent: Part, answered: Part) -> Part:
        (qf, _), (af, _) = sent, answered
        wanted = _RANGE.match(field_of(qf, "Range") or "")
        code = (field_of(af, "Http-Status-Code") or "").strip()
        target = (field_of(qf, "Content-Id") or "").strip().removeprefix("<").removesuffix(">")
        if not (wanted and code in ("304", "412") and target.startswith("/") and upstream):
            return answered
        got = upstream(build_request("GET", target, req.get("Host") or "relay", [], None))
        if got is None or got.status != 200:
            return answered
        whole = got.body
        first, last = int(wanted.group(1)), min(int(wanted.group(2)), len(whole) - 1)
        if first > last:
            return answered
        af = without_field(set_field(af, "Http-Status-Code", "206"), "Content-Length")
        af = [*af, ("Content-Range", f"bytes {first}-{last}/{len(whole)}")]
        return [*af, ("Content-Length", str(last + 1 - first))], whole[first : last + 1]

    map_answered_parts(serve)(req, resp)


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "if-range-date-read-as-unmodified-since",
        "MB-PROC-9 an If-Range date after Last-Modified taken for a match",
        ("conditional-if-range-ignores-range-or-serves-it",),
        on_response=_served(_date_at_or_after),
    ),
    Mutation(
        "if-range-read-by-if-match-grammar",
        "MB-PROC-9 If-Range read by If-Match's grammar, so * and a list holding the tag match",
        ("conditional-if-range-ignores-range-or-serves-it",),
        on_response=_served(_as_if_match),
    ),
    Mutation(
        "range-served-before-preconditions",
        "MB-PROC-9 Range served before If-None-Match or If-Match is evaluated",
        ("conditional-if-range-ignores-range-or-serves-it",),
        on_response=_range_before_preconditions,
    ),
    Mutation(
        "if-range-tag-compared-weakly",
        "MB-PROC-9 an If-Range tag compared by the weak function",
        ("conditional-if-range-ignores-range-or-serves-it",),
        on_response=_served(_weak_tag),
    ),
)
