"""Date preconditions in every form a recipient must read, and in spellings it must ignore.

RFC 9110 §5.6.7 defines `HTTP-date = IMF-fixdate / obs-date`, `obs-date = rfc850-date /
asctime-date`: "A recipient that parses a timestamp value in an HTTP field MUST accept all three
HTTP-date formats", and "Recipients of a timestamp value in rfc850-date format, which uses a
two-digit year, MUST interpret a timestamp that appears to be more than 50 years in the future
as representing the most recent year in the past that had the same last two digits". The same
section says "HTTP-date is case sensitive". Its encouragement that "Recipients of timestamp
values are encouraged to be robust in parsing timestamps unless otherwise restricted by the
field definition" yields here to the fields' own definitions: "A recipient MUST ignore the
If-Modified-Since header field if the received field value is not a valid HTTP-date, the field
value has more than one member, or if the request method is neither GET nor HEAD" (§13.1.3), and
"A recipient MUST ignore the If-Unmodified-Since header field if the received field value is not
a valid HTTP-date (including when the field value appears to be a list of dates)" (§13.1.4).

`date_cases` builds, for a representation last modified at `modified` on a server whose clock
reads `now` (its Date field), If-Modified-Since and If-Unmodified-Since values whose verdict
RFC 9110 fixes:

- each of the three forms of a date clearly before `modified`, and of one after it (for
  If-Modified-Since, no later than `now`, since a server may take a date later than its clock
  for no date; for If-Unmodified-Since, a month after `now`);
- each form of those dates with the second written 60, a leap second the grammar allows
  ("00:00:00 - 23:59:60 (leap second)"), naming the next minute: If-Unmodified-Since before
  `modified` (false), If-Modified-Since from `modified` to `now` (false), where a reader that
  holds the second to 59 ignores the field and answers as without it;
- rfc850-dates whose two-digit year is read by the 50-year rule on either side of the line,
  ten years or more away from it (5 and 45 years ahead of `now`, read as the future; 55 and 80
  years ahead, read as the past century), each kept only where the two readings of its year
  give different verdicts;
- spellings that a lenient date parser reads as the date after (If-Modified-Since) or before
  (If-Unmodified-Since) `modified`, but that are no HTTP-date: ISO 8601, a numeric or another
  zone, a lower-case month, a two-digit year or a one-digit day in the IMF form, no day name,
  a list of two dates (on one field line, and on two in either order: RFC 9110 §5.3 makes the
  lines one list, so a reader that takes the first or the last line alone is caught), and
  (If-Unmodified-Since, in a common year before `modified`'s) a day
  its month does not have, such as `31 Feb`, which such a parser rolls into the next month
  (spec 7.6). The field is then ignored and the request answered as without it.

Each date uses its own weekday, and days below 10, so that the space an asctime-date pads its
day with is sent; the asctime-date is also sent with the day in two digits (`Nov 07`), which
its grammar allows as well.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from mixbatch_conformance.core.http_dates import imf_fixdate_seconds

__all__ = ["IMS", "IUS", "DateCase", "date_cases", "moment", "wanted_status"]

IMS = "If-Modified-Since"
IUS = "If-Unmodified-Since"
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_LONG_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
#: Years ahead of the server's current year written as an rfc850-date's two digits: 5 and 45
#: lie before the 50-year line (read as those future years), 55 and 80 beyond it (read as the
#: past century's), each at least five years from the line whatever the day of the year.
WINDOW_OFFSETS = (5, 45, 55, 80)
#: How far (in years) a date's year may lie from the current one for its rfc850 form to be read
#: as that year without doubt.
PLAIN_RFC850_YEARS = 40


@dataclass(frozen=True, slots=True)
class DateCase:
    """One conditional field: its name, its value, what it is, and the truth RFC 9110 gives its
    condition (None: no valid HTTP-date, so the field is ignored). `more` holds values sent
    on field lines of their own after the first."""

    field: str
    value: str
    what: str
    holds: bool | None
    more: tuple[str, ...] = ()

    @property
    def lines(self) -> tuple[tuple[str, str], ...]:
        """The field lines the case is sent as."""
        return tuple((self.field, v) for v in (self.value, *self.more))


def moment(value: str | None) -> datetime | None:
    """An IMF-fixdate a server sent (Last-Modified, Date) as a time, or None."""
    seconds = imf_fixdate_seconds((value or "").strip(" \t"))
    return datetime.fromtimestamp(seconds, UTC) if seconds is not None else None


def wanted_status(case: DateCase, unconditional: int) -> int:
    """The status RFC 9110 §13.2.2 gives a GET or HEAD carrying `case` alone, when the same
    request without it is answered `unconditional` (a 2xx): a false If-Modified-Since is 304
    (§13.1.3), a false If-Unmodified-Since 412 (§13.1.4); a true or ignored one changes
    nothing."""
    if case.holds is False:
        return 304 if case.field == IMS else 412
    return unconditional


def imf(when: datetime) -> str:
    return (
        f"{_DAYS[when.weekday()]}, {when.day:02d} {_MONTHS[when.month - 1]} {when.year:04d} "
        f"{when:%H:%M:%S} GMT"
    )


def rfc850(when: datetime) -> str:
    return (
        f"{_LONG_DAYS[when.weekday()]}, {when.day:02d}-{_MONTHS[when.month - 1]}-"
        f"{when.year % 100:02d} {when:%H:%M:%S} GMT"
    )


def asctime(when: datetime, two_digits: bool = False) -> str:
    """`when` as an asctime-date, its day padded with a space, or written in two digits
    (RFC 9110 §5.6.7: date3 = month SP ( 2DIGIT / ( SP DIGIT ) ))."""
    day = f"{when.day:02d}" if two_digits else f"{when.day:2d}"
    return (
        f"{_DAYS[when.weekday()]} {_MONTHS[when.month - 1]} {day} {when:%H:%M:%S} {when.year:04d}"
    )


def _seventh(year: int, month: int) -> datetime:
    """The 7th of a month (months past 12 or below 1 roll over), at 08:49:37 GMT."""
    year, month = year + (month - 1) // 12, (month - 1) % 12 + 1
    return datetime(year, month, 7, 8, 49, 37, tzinfo=UTC)


def _dates(modified: datetime, now: datetime) -> tuple[datetime, datetime, datetime]:
    """(before, after_no_later_than_now, after_now): a date a month or more before
    `modified`; one from `modified` to `now` (the 7th of this month or the last, else
    `modified` itself); and the 7th of the month after `now`'s."""
    before = _seventh(modified.year, modified.month - 1)
    between = modified
    for back in (0, 1):
        day = _seventh(now.year, now.month - back)
        if modified <= day <= now:
            between = day
            break
    return before, between, _seventh(now.year, now.month + 1)


def _forms(when: datetime, now: datetime) -> list[tuple[str, str]]:
    out = [
        ("IMF-fixdate", imf(when)),
        ("asctime-date", asctime(when)),
        ("asctime-date with a two-digit day", asctime(when, two_digits=True)),
    ]
    if abs(when.year - now.year) <= PLAIN_RFC850_YEARS:
        out.insert(1, ("rfc850-date", rfc850(when)))
    return out


def _window_cases(modified: datetime, now: datetime) -> list[DateCase]:
    out: list[DateCase] = []
    for offset in WINDOW_OFFSETS:
        written = now.year + offset
        # RFC 9110 §5.6.7: more than 50 years ahead is the most recent past year with the
        # same last two digits.
        year, other = (written, written - 100) if offset < 50 else (written - 100, written)
        when = datetime(year, 1, 15, 9, 30, 0, tzinfo=UTC)
        misread = when.replace(year=other)
        value = rfc850(when)
        side = "before" if offset < 50 else "beyond"
        what = (
            f"rfc850-date {value!r}, {offset} years ahead written ({side} the 50-year line: {year})"
        )
        # If-Unmodified-Since holds when the representation is not modified after the date.
        if (modified <= when) != (modified <= misread):
            out.append(DateCase(IUS, value, what, modified <= when))
        # If-Modified-Since is sent only with a date no later than `now`: read rightly, a date
        # of the past century before `modified` holds (modified since); misread, it lies far in
        # the future.
        if when <= now and when < modified < misread:
            out.append(DateCase(IMS, value, what, True))
    return out


def _leap_second(when: datetime, now: datetime) -> list[tuple[str, str, datetime]]:
    """`when`'s minute written with the second 60 in each form (RFC 9110 §5.6.7: "time-of-day
    = hour ":" minute ":" second ; 00:00:00 - 23:59:60 (leap second)"), with the moment it
    names, the start of the next minute."""
    named = when.replace(second=0) + timedelta(minutes=1)
    out = []
    for form, value in _forms(when, now):
        written = value.replace(f"{when:%H:%M:%S}", f"{when:%H:%M}:60")
        out.append((f"{form} with a leap second", written, named))
    return out


def _invalid(when: datetime) -> list[tuple[str, str]]:
    """Spellings of `when` that are no HTTP-date (RFC 9110 §5.6.7's grammar, case-sensitive)."""
    day, month = _DAYS[when.weekday()], _MONTHS[when.month - 1]
    clock = f"{when:%H:%M:%S}"
    date = f"{when.day:02d} {month} {when.year:04d}"
    out = [
        ("an ISO 8601 date", f"{when:%Y-%m-%d}"),
        ("an ISO 8601 date and time", f"{when:%Y-%m-%dT%H:%M:%S}Z"),
        ("a numeric zone", f"{day}, {date} {clock} +0000"),
        ("the zone UTC", f"{day}, {date} {clock} UTC"),
        (
            "a lower-case month",
            f"{day}, {when.day:02d} {month.lower()} {when.year:04d} {clock} GMT",
        ),
        ("a two-digit year", f"{day}, {when.day:02d} {month} {when.year % 100:02d} {clock} GMT"),
        ("no day name", f"{date} {clock} GMT"),
        ("a list of two dates", f"{imf(when)}, {imf(when)}"),
    ]
    # rfc850-date ends in the literal GMT too; a reader whose layout takes any zone name there
    # (Go's RFC850 layout does) reads these.
    long_day, short = _LONG_DAYS[when.weekday()], f"{when.day:02d}-{month}-{when.year % 100:02d}"
    out += [
        ("an rfc850-date in the zone UTC", f"{long_day}, {short} {clock} UTC"),
        ("an rfc850-date in the zone EST", f"{long_day}, {short} {clock} EST"),
    ]
    if when.day < 10:
        out.append(("a one-digit day", f"{day}, {when.day} {month} {when.year:04d} {clock} GMT"))
    return out


#: (month, day) pairs naming a day the month does not have, in a common year.
NO_SUCH_DAYS = ((2, 31), (2, 30), (2, 29), (4, 31), (9, 31), (1, 0))
#: A common year divisible by 4: a century not divisible by 400, whose 29 Feb (spec 7.6: a
#: day its month does not have makes no valid HTTP-date) a reader testing `year % 4` alone
#: takes for a day.
CENTURY_COMMON_YEAR = 1900


def _no_such_day(modified: datetime) -> list[tuple[str, str]]:
    """Dates in a common year before `modified`'s, each naming a day its month does not have
    (spec 7.6: no valid HTTP-date), in every form that can write the day, each with the weekday
    of the day a lenient reader rolls it to (`31 Feb` to `3 Mar`); and 29 Feb of a century that
    is a common year, in the forms that write its year whole."""
    year = modified.year - 1
    while year % 4 == 0 and (year % 100 != 0 or year % 400 == 0):
        year -= 1
    out = []
    for when, month, day in [
        *((year, m, d) for m, d in NO_SUCH_DAYS),
        (CENTURY_COMMON_YEAR, 2, 29),
    ]:
        rolled = datetime(when, month, 1, 8, 49, 37, tzinfo=UTC) + timedelta(days=day - 1)
        name, long_name = _DAYS[rolled.weekday()], _LONG_DAYS[rolled.weekday()]
        mon = _MONTHS[month - 1]
        what = f"{day:02d} {mon} {when}, a day its month does not have"
        out.append((what, f"{name}, {day:02d} {mon} {when:04d} 08:49:37 GMT"))
        if when != CENTURY_COMMON_YEAR:
            # An rfc850-date's two-digit year reads as 2000 for 00 (§5.6.7's 50-year rule), a
            # leap year, so it writes no impossible day there.
            out.append((what, f"{long_name}, {day:02d}-{mon}-{when % 100:02d} 08:49:37 GMT"))
        if day:
            out.append((what, f"{name} {mon} {day:2d} 08:49:37 {when:04d}"))
    return out


def date_cases(modified: datetime, now: datetime) -> list[DateCase]:
    """Date preconditions, each with the truth RFC 9110 gives it against `modified` on a
    server whose clock reads `now` (see the module's docstring)."""
    before, between, after = _dates(modified, now)
    out: list[DateCase] = []
    for form, value in _forms(before, now):
        out.append(DateCase(IMS, value, f"{form} {value!r}, before Last-Modified", True))
        out.append(DateCase(IUS, value, f"{form} {value!r}, before Last-Modified", False))
    for form, value in _forms(between, now):
        what = f"{form} {value!r}, not before Last-Modified and not after the server's Date"
        out.append(DateCase(IMS, value, what, False))
    for form, value in _forms(after, now):
        out.append(DateCase(IUS, value, f"{form} {value!r}, after Last-Modified", True))
    out.extend(_window_cases(modified, now))
    # A leap second is a valid second: read as the next minute, the field is not ignored.
    for form, value, _ in _leap_second(before, now):
        out.append(DateCase(IUS, value, f"{form} {value!r}, before Last-Modified", False))
    for form, value, named in _leap_second(between, now):
        if modified <= named <= now:
            what = f"{form} {value!r}, not before Last-Modified and not after the server's Date"
            out.append(DateCase(IMS, value, what, False))
    # Read as dates, these would make If-Modified-Since false (304) and If-Unmodified-Since
    # false (412); ignored, the request is answered as without them.
    for what, value in _invalid(between):
        out.append(DateCase(IMS, value, f"{value!r} ({what}: no HTTP-date)", None))
    for what, value in [*_invalid(before), *_no_such_day(modified)]:
        out.append(DateCase(IUS, value, f"{value!r} ({what}: no HTTP-date)", None))
    # One valid date on each of two field lines is a list of two dates (RFC 9110 §5.3), no
    # HTTP-date: the date whose condition is false on one line, one whose condition holds on the
    # other, in both orders, so that reading either line alone changes the status.
    for field, false, true in ((IMS, between, before), (IUS, before, after)):
        for first, second in ((false, true), (true, false)):
            what = f"{imf(first)!r} and {imf(second)!r} on two field lines (a list: no HTTP-date)"
            out.append(DateCase(field, imf(first), what, None, (imf(second),)))
    return out
