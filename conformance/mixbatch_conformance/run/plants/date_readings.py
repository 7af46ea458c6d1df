"""Planted misreadings of the HTTP-dates in If-Modified-Since and If-Unmodified-Since.

RFC 9110 §5.6.7 has a recipient accept IMF-fixdate, rfc850-date and asctime-date, read an
rfc850-date's two-digit year that "appears to be more than 50 years in the future" as the past
century's, and §13.1.3/§13.1.4 have it ignore a value that "is not a valid HTTP-date". Each plant
edits a date field the way a server's date parser would misread it, handing the server the
IMF-fixdate of the misreading (or dropping the field it failed to read): the two-digit year counted
from 1900, or by a fixed pivot (69 and above in the 1900s, as C's and Python's `%y` read it); an
asctime-date, one whose day is written in two digits, or a leap second (the second 60) not read at
all; a lenient parser that takes ISO 8601 dates, numeric or other zones, a lower-case month, a
one-digit day or a missing day name for dates; a reader that takes a date field sent on two lines
from its first or its last line alone, where RFC 9110 §5.3 makes the lines one list of dates; a
calendar routine that rolls a day the month does not have (`31 Feb`) into the next month; a
leap-year rule of `year % 4` alone, which takes 29 Feb 1900 for a day; and an rfc850-date layout
that takes any zone name where RFC 9110 writes GMT. All but one edit standalone requests and parts
alike (MB-PROC-9 binds the part to RFC 9110's evaluation even when the request alone is answered
the same way); the lenient reading of collection retrievals edits only standalone ones
(MB-STATUS-7).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime

from mixbatch_conformance.run.mutations import FieldList, Mutation
from mixbatch_conformance.run.plants._edits import is_batch
from mixbatch_conformance.run.plants._preconditions import FieldsEdit, everywhere
from mixbatch_conformance.transport.relay import RelayRequest

__all__ = ["PLANTS"]

DATE_FIELDS = frozenset({"if-modified-since", "if-unmodified-since"})
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_MONTH = "|".join(_MONTHS)
_TIME = r"([0-9]{2}):([0-9]{2}):([0-9]{2})"
IMF = re.compile(rf"(?:{'|'.join(_DAYS)}), [0-9]{{2}} (?:{_MONTH}) [0-9]{{4}} {_TIME} GMT")
RFC850 = re.compile(
    rf"(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, ([0-9]{{2}})-({_MONTH})-([0-9]{{2}}) {_TIME} GMT"
)
ASCTIME = re.compile(
    rf"(?:{'|'.join(_DAYS)}) (?:{_MONTH}) (?:[0-9]{{2}}| [0-9]) {_TIME} [0-9]{{4}}"
)


def _imf(when: datetime) -> str:
    return (
        f"{_DAYS[when.weekday()]}, {when.day:02d} {_MONTHS[when.month - 1]} {when.year:04d} "
        f"{when:%H:%M:%S} GMT"
    )


def _rfc850_by(century: Callable[[int], int]) -> FieldsEdit:
    """An edit that reads an rfc850-date's two-digit year `yy` as `century(yy) + yy`."""

    def edit(method: str, fields: FieldList) -> FieldList:
        out: FieldList = []
        for name, value in fields:
            m = RFC850.fullmatch(value.strip(" \t"))
            if name.lower() in DATE_FIELDS and m is not None:
                day, month, yy, hh, mi, ss = m.groups()
                year = century(int(yy)) + int(yy)
                try:
                    when = datetime(
                        year, _MONTHS.index(month) + 1, int(day), int(hh), int(mi), int(ss)
                    )
                except ValueError:  # a day the month does not have: left as it was
                    when = None
                value = _imf(when) if when is not None else value
            out.append((name, value))
        return out

    return edit


RFC850_ANY_ZONE = re.compile(RFC850.pattern.removesuffix(" GMT") + r" [A-Z]{3}")


def _rfc850_any_zone(method: str, fields: FieldList) -> FieldList:
    """An rfc850-date whose zone is any three capitals (a layout with a zone placeholder where
    RFC 9110 writes the literal GMT) read as the same date in GMT."""
    out: FieldList = []
    for name, value in fields:
        text = value.strip(" \t")
        if name.lower() in DATE_FIELDS and RFC850_ANY_ZONE.fullmatch(text) and text[-3:] != "GMT":
            value = text[:-3] + "GMT"
        out.append((name, value))
    return out


def _asctime_unread(method: str, fields: FieldList) -> FieldList:
    """An asctime-date is not read as a date, so the field is dropped as if invalid."""
    return [
        (n, v)
        for n, v in fields
        if n.lower() not in DATE_FIELDS or ASCTIME.fullmatch(v.strip(" \t")) is None
    ]


#: An asctime-date whose day is written in two digits, the first a zero (`Nov 06`).
_ASCTIME_ZERO_DAY = re.compile(r"[A-Z][a-z]{2} [A-Z][a-z]{2} 0[1-9] [0-9:]{8} [0-9]{4}")


def _asctime_zero_day_unread(method: str, fields: FieldList) -> FieldList:
    """An asctime-date whose one-digit day is written with a zero, not a space, is not read
    as a date (a parser that takes `SP DIGIT` for the only way), so the field is dropped."""
    return [
        (n, v)
        for n, v in fields
        if n.lower() not in DATE_FIELDS or _ASCTIME_ZERO_DAY.fullmatch(v.strip(" \t")) is None
    ]


def _leap_second_unread(method: str, fields: FieldList) -> FieldList:
    """A date whose second is 60 taken for no date (a reader that holds the second to 00-59),
    so the field is dropped as if invalid."""
    return [
        (n, v)
        for n, v in fields
        if n.lower() not in DATE_FIELDS or re.search(r"[0-9]{2}:[0-9]{2}:60\b", v) is None
    ]


def _lenient(value: str) -> str:
    """The IMF-fixdate a lenient date parser reads `value` as, or `value` itself."""
    text = value.strip(" \t")
    if IMF.fullmatch(text) or RFC850.fullmatch(text) or ASCTIME.fullmatch(text):
        return value
    when: datetime | None
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        try:
            when = parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return value
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return _imf(when.astimezone(UTC))


_IMF_PARTS = re.compile(rf"(?:{'|'.join(_DAYS)}), ([0-9]{{2}}) ({_MONTH}) ([0-9]{{4}}) {_TIME} GMT")


def _days_rolled(method: str, fields: FieldList) -> FieldList:
    """An IMF-fixdate naming a day its month does not have (`31 Feb`) read as the day it
    would be counted on into the next month (`3 Mar`), as a calendar routine that adds days
    reads it."""
    out: FieldList = []
    for name, value in fields:
        m = _IMF_PARTS.fullmatch(value.strip(" \t"))
        if name.lower() in DATE_FIELDS and m is not None:
            day, month, year, hh, mi, ss = m.groups()
            first = datetime(int(year), _MONTHS.index(month) + 1, 1, tzinfo=UTC)
            when = first + timedelta(
                days=int(day) - 1, hours=int(hh), minutes=int(mi), seconds=int(ss)
            )
            value = _imf(when) if when.month != first.month else value
        out.append((name, value))
    return out


def _every_fourth_year_leap(method: str, fields: FieldList) -> FieldList:
    """An IMF-fixdate naming 29 Feb of a century that is a common year (1900) read as the day
    after 28 Feb, as a calendar whose leap-year rule is `year % 4 == 0` alone reads it."""
    out: FieldList = []
    for name, value in fields:
        m = _IMF_PARTS.fullmatch(value.strip(" \t"))
        if name.lower() in DATE_FIELDS and m is not None:
            day, month, year, hh, mi, ss = m.groups()
            y = int(year)
            if (day, month) == ("29", "Feb") and y % 4 == 0 and y % 100 == 0 and y % 400:
                when = datetime(y, 3, 1, int(hh), int(mi), int(ss), tzinfo=UTC)
                value = _imf(when)
        out.append((name, value))
    return out


def _one_line_of(pick: int) -> FieldsEdit:
    """An edit that keeps only line `pick` (0: the first, -1: the last) of a date field sent on
    several lines, as a reader that asks for one value of a singleton field does."""

    def edit(method: str, fields: FieldList) -> FieldList:
        kept = {}
        for name in DATE_FIELDS:
            lines = [i for i, (n, _) in enumerate(fields) if n.lower() == name]
            if len(lines) > 1:
                kept[name] = lines[pick]
        return [
            (n, v)
            for i, (n, v) in enumerate(fields)
            if n.lower() not in kept or kept[n.lower()] == i
        ]

    return edit


def _lenient_fields(method: str, fields: FieldList) -> FieldList:
    return [(n, _lenient(v) if n.lower() in DATE_FIELDS else v) for n, v in fields]


def _lenient_collection_alone(req: RelayRequest) -> None:
    """Lenient date reading on standalone collection retrievals only."""
    accept = ",".join(v for n, v in req.headers if n.lower() == "accept").lower()
    if not is_batch(req) and "multipart/mixed" in accept:
        req.headers = _lenient_fields(req.method, req.headers)


def _plant(name: str, breaks: str, catchers: tuple[str, ...], edit: FieldsEdit) -> Mutation:
    alone, parts = everywhere(edit)
    return Mutation(name, breaks, catchers, on_request=alone, on_request_parts=parts)


BOTH = ("conditional-date-forms", "collection-date-forms")
PLANTS: tuple[Mutation, ...] = (
    _plant(
        "rfc850-year-counted-from-1900",
        "MB-PROC-9 an rfc850-date's two-digit year read as 19yy, without the 50-year rule",
        BOTH,
        _rfc850_by(lambda yy: 1900),
    ),
    _plant(
        "rfc850-year-by-fixed-pivot",
        "MB-PROC-9 an rfc850-date's two-digit year read by a fixed pivot (69-99 as 19yy)",
        BOTH,
        _rfc850_by(lambda yy: 1900 if yy >= 69 else 2000),
    ),
    _plant(
        "rfc850-date-any-zone",
        "MB-PROC-9 an rfc850-date in a zone other than the literal GMT taken for a date",
        BOTH,
        _rfc850_any_zone,
    ),
    _plant(
        "asctime-date-unread",
        "MB-PROC-9 an asctime-date in If-Modified-Since or If-Unmodified-Since not read",
        BOTH,
        _asctime_unread,
    ),
    _plant(
        "asctime-two-digit-day-unread",
        "MB-PROC-9 an asctime-date with its day in two digits (Nov 06) not read",
        BOTH,
        _asctime_zero_day_unread,
    ),
    _plant(
        "leap-second-date-unread",
        "MB-PROC-9 an HTTP-date whose second is 60, a leap second, not read",
        BOTH,
        _leap_second_unread,
    ),
    _plant(
        "dates-read-leniently",
        "MB-PROC-9 ISO 8601 dates, other zones and a lower-case month taken for HTTP-dates",
        BOTH,
        _lenient_fields,
    ),
    _plant(
        "date-day-rolled-into-next-month",
        "MB-PROC-9 an HTTP-date naming a day its month does not have read as the next month's",
        BOTH,
        _days_rolled,
    ),
    _plant(
        "date-leap-year-every-fourth",
        "MB-PROC-9 29 Feb of a century that is a common year taken for a day",
        BOTH,
        _every_fourth_year_leap,
    ),
    _plant(
        "date-field-read-from-first-line",
        "MB-PROC-9 a date field on two field lines, a list of dates, read from its first line",
        BOTH,
        _one_line_of(0),
    ),
    _plant(
        "date-field-read-from-last-line",
        "MB-PROC-9 a date field on two field lines, a list of dates, read from its last line",
        BOTH,
        _one_line_of(-1),
    ),
    Mutation(
        "collection-dates-read-leniently",
        "MB-STATUS-7 a collection retrieval taking values that are no HTTP-date for dates",
        ("collection-date-forms",),
        on_request=_lenient_collection_alone,
    ),
)
