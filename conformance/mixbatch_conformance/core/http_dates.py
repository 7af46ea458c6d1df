"""HTTP-dates as a sender writes them (RFC 9110 §5.6.7): IMF-fixdate, the one form a sender
may generate, naming a time that exists, on the weekday it names.

RFC 9110 §5.6.7: "A recipient that parses a timestamp value in an HTTP field MUST accept all
three HTTP-date formats. When a sender generates a field that contains one or more timestamps
defined as HTTP-date, the sender MUST generate those timestamps in the IMF-fixdate format."
The suite judges what a server sent, so an `rfc850-date` (`Sunday, 06-Nov-94 08:49:37 GMT`) or
an `asctime-date` (`Sun Nov  6 08:49:37 1994`) in a server's field is a sender's fault, which a
lenient date parser hides. IMF-fixdate is "a fixed-length and single-zone subset of the date
and time specification used by the Internet Message Format [RFC5322]", whose §3.3 says "the
day-of-week (if included) MUST be the day implied by the date"; the zone is the literal,
case-sensitive "GMT".
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

__all__ = ["IMF_FIXDATE", "imf_fixdate_seconds", "is_imf_fixdate"]

_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
#: RFC 9110 §5.6.7: IMF-fixdate = day-name "," SP date1 SP time-of-day SP GMT, date1 = day SP
#: month SP year (2DIGIT, 3 letters, 4DIGIT), time-of-day = hour ":" minute ":" second.
IMF_FIXDATE = re.compile(
    rf"({'|'.join(_DAYS)}), ([0-9]{{2}}) ({'|'.join(_MONTHS)}) ([0-9]{{4}}) "
    r"([0-9]{2}):([0-9]{2}):([0-9]{2}) GMT"
)


def _moment(value: str | None) -> datetime | None:
    m = IMF_FIXDATE.fullmatch(value or "")
    if m is None:
        return None
    day, date, month, year, hour, minute, second = m.groups()
    try:
        # A leap second (second 60, RFC 9110 §5.6.7's "23:59:60") names the second before
        # the next minute's start; datetime has no 60th second.
        when = datetime(
            int(year),
            _MONTHS.index(month) + 1,
            int(date),
            int(hour),
            int(minute),
            min(int(second), 59),
            tzinfo=UTC,
        )
    except ValueError:
        return None
    if int(second) > 60 or _DAYS[when.weekday()] != day:
        return None
    return when


def is_imf_fixdate(value: str | None) -> bool:
    """Whether `value` (its field value, OWS already gone) is an IMF-fixdate naming a time
    that exists, on the weekday it names."""
    return _moment(value) is not None


def imf_fixdate_seconds(value: str | None) -> float | None:
    """An IMF-fixdate as seconds since the epoch, so that dates compare as times and not as
    text; None when `value` is missing or is no IMF-fixdate (see `is_imf_fixdate`)."""
    when = _moment(value)
    return when.timestamp() if when is not None else None
