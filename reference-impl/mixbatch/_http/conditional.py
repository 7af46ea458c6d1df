"""Conditional requests (RFC 9110 §13): HTTP dates, entity-tags and the precondition order.

``evaluate`` applies RFC 9110 §13.2.2 step by step and returns 412, 304 or ``None`` (carry
on). The caller answers 404 itself before calling it when the resource is missing, because
§13.2.1 says preconditions are ignored when the response without them "would have been a status
code other than a 2xx (Successful) or 412". MB-PROC-9: a part's conditional fields "give 304 or
412 exactly as for the standalone request"; since sub-requests reach the same handlers, this one
function decides both.

    entity-tag = [ weak ] opaque-tag        weak = %s"W/"
    opaque-tag = DQUOTE *etagc DQUOTE       etagc = %x21 / %x23-7E / obs-text
    If-Match = "*" / #entity-tag            If-None-Match = "*" / #entity-tag
"""

from __future__ import annotations

import email.utils
import re
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from mixbatch.codec import Fields

__all__ = ["Validators", "evaluate", "format_http_date", "parse_etags", "parse_http_date"]

#: One element of an entity-tag list and the comma after it (or the end): RFC 9110 §5.6.1.2
#: has a recipient "parse and ignore a reasonable number of empty list elements", so the
#: element may be empty (`, "a" ,` lists one tag).
_ETAG = re.compile(r'[ \t]*(?:(W/)?("[\x21\x23-\x7e\x80-\xff]*")[ \t]*)?(?:,|$)')

#: RFC 9110 §5.6.7, the three forms of HTTP-date matched whole: IMF-fixdate, the obsolete
#: rfc850-date and asctime-date. A value that is not one (a list of dates, a date with another
#: zone) is no HTTP-date, and §13.1.3/§13.1.4 make the field ignored.
_DAY = r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)"
_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
_TIME = r"[0-9]{2}:[0-9]{2}:[0-9]{2}"
_HTTP_DATE = re.compile(
    rf"{_DAY}, [0-9]{{2}} {_MONTH} [0-9]{{4}} {_TIME} GMT"
    rf"|(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), [0-9]{{2}}-{_MONTH}-[0-9]{{2}} {_TIME} GMT"
    rf"|{_DAY} {_MONTH} (?:[0-9]{{2}}| [0-9]) {_TIME} [0-9]{{4}}"
)

#: The time of day in an HTTP-date, its second captured.
_CLOCK = re.compile(r"[0-9]{2}:[0-9]{2}:([0-9]{2})")
#: The dash before an rfc850-date's two-digit year.
_RFC850_YEAR = re.compile(r"-[0-9]{2} ")
#: RFC 9110 §5.6.7's "more than 50 years", in days of the Gregorian calendar's mean year.
_FIFTY_YEARS = timedelta(days=50 * 365.2425)

#: The methods for which a failed If-None-Match or If-Modified-Since means 304, not 412.
_READ_METHODS = frozenset({"GET", "HEAD"})


def format_http_date(timestamp: float) -> str:
    """IMF-fixdate (RFC 9110 §5.6.7), the only form a sender may generate."""
    return email.utils.formatdate(int(timestamp), usegmt=True)


def parse_http_date(value: str, now: float | None = None) -> float | None:
    """Seconds since the epoch for any of the three HTTP-date forms, or ``None`` if invalid.

    An rfc850-date's two-digit year is read against `now` (the current time when omitted) by
    RFC 9110 §5.6.7: a recipient "MUST interpret a timestamp that appears to be more than 50
    years in the future as representing the most recent year in the past that had the same
    last two digits" (not by a fixed pivot year, as ``email.utils`` reads it)."""
    text = value.strip(" \t")
    if _HTTP_DATE.fullmatch(text) is None:
        return None
    # RFC 9110 §5.6.7: "time-of-day = hour ":" minute ":" second ; 00:00:00 - 23:59:60 (leap
    # second)". A datetime holds no second 60, so it is read as 59 and one second added: the
    # start of the next minute, as POSIX time counts it.
    clock = _CLOCK.search(text)
    leap = clock is not None and clock.group(1) == "60"
    if leap:
        assert clock is not None
        text = f"{text[: clock.start(1)]}59{text[clock.end(1) :]}"
    try:
        parsed = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if parsed.tzinfo is None:
        # asctime-date carries no zone; every HTTP date is in GMT.
        parsed = parsed.replace(tzinfo=UTC)
    if _RFC850_YEAR.search(text):
        # The year of the century `now` falls in, moved a century back when it lies more than
        # 50 years ahead (and forward when more than 50 years behind: the nearest reading).
        current = datetime.fromtimestamp(time.time() if now is None else now, UTC)
        try:
            parsed = parsed.replace(year=current.year // 100 * 100 + parsed.year % 100)
            if parsed > current + _FIFTY_YEARS:
                parsed = parsed.replace(year=parsed.year - 100)
            elif parsed < current - _FIFTY_YEARS:
                parsed = parsed.replace(year=parsed.year + 100)
        except ValueError:  # 29 February in a year that has none
            return None
    return parsed.timestamp() + (1 if leap else 0)


def parse_etags(value: str) -> list[tuple[bool, str]] | None:
    """``[(weak, opaque-tag)]`` of an If-Match/If-None-Match value; ``None`` if malformed.

    ``"*"`` is returned as ``[(False, "*")]``.
    """
    if value.strip() == "*":
        return [(False, "*")]
    tags: list[tuple[bool, str]] = []
    pos = 0
    text = value.strip()
    while pos < len(text):
        match = _ETAG.match(text, pos)
        if match is None or match.end() == pos:
            return None
        if match.group(2) is not None:
            tags.append((match.group(1) is not None, match.group(2)))
        pos = match.end()
    return tags


@dataclass(frozen=True, slots=True)
class Validators:
    """The current representation's validators: a strong ETag and a whole-second mtime."""

    etag: str
    last_modified: float


def _combined(headers: Fields, name: str) -> str | None:
    """The field's value, its field lines joined as one list (RFC 9110 §5.3): a date field
    sent on two lines is a list of dates, no HTTP-date, and ignored (spec 7.6)."""
    values = headers.get_all(name)
    return ", ".join(values) if values else None


def _if_match(value: str, current: Validators) -> bool:
    tags = parse_etags(value)
    if tags is None:
        return False
    if tags == [(False, "*")]:
        return True
    # Strong comparison (RFC 9110 §8.8.3.2): neither tag may be weak.
    return any(not weak and tag == current.etag for weak, tag in tags)


def _if_none_match(value: str, current: Validators) -> bool:
    tags = parse_etags(value)
    if tags is None:
        return True
    if tags == [(False, "*")]:
        return False
    # Weak comparison: the opaque tags match whether or not either is weak.
    current_tag = current.etag.removeprefix("W/")
    return all(tag != current_tag for _, tag in tags)


def evaluate(method: str, headers: Fields, current: Validators, now: float) -> int | None:
    """412, 304 or ``None`` for a request on an existing resource, per RFC 9110 §13.2.2."""
    if_match = _combined(headers, "If-Match")
    # Step 1: If-Match, else step 2: If-Unmodified-Since.
    if if_match is not None:
        if not _if_match(if_match, current):
            return 412
    else:
        since = _combined(headers, "If-Unmodified-Since")
        date = parse_http_date(since, now) if since is not None else None
        if date is not None and current.last_modified > date:
            return 412
    # Step 3: If-None-Match, else step 4: If-Modified-Since (GET and HEAD only).
    if_none_match = _combined(headers, "If-None-Match")
    if if_none_match is not None:
        if not _if_none_match(if_none_match, current):
            return 304 if method in _READ_METHODS else 412
    elif method in _READ_METHODS:
        since = _combined(headers, "If-Modified-Since")
        date = parse_http_date(since, now) if since is not None else None
        # RFC 9110 §13.1.3: a date later than the server's current time is invalid.
        if date is not None and date <= now and current.last_modified <= date:
            return 304
    return None
