"""The grammar of the validators a server sends (RFC 9110 §8.8): what an `ETag` field and a
`Last-Modified` field must look like to be one at all.

A value that does not match is no validator: a client cannot echo it in If-None-Match, and
RFC 9110 §8.8.3 gives `entity-tag = [ weak ] opaque-tag`, `opaque-tag = DQUOTE *etagc DQUOTE`,
`etagc = %x21 / %x23-7E / obs-text`; §8.8.2 makes Last-Modified an HTTP-date (§5.6.7).
"""

from __future__ import annotations

import re
from email.utils import parsedate_to_datetime

__all__ = ["http_date_seconds", "is_entity_tag", "is_http_date"]

#: RFC 9110 §8.8.3: `entity-tag = [ weak ] opaque-tag`, `weak = %s"W/"` (case-sensitive).
ENTITY_TAG = re.compile(r'(?:W/)?"[\x21\x23-\x7e\x80-\xff]*"')


def is_entity_tag(value: str | None) -> bool:
    """Whether `value`, leading and trailing whitespace aside, is one entity-tag."""
    return value is not None and ENTITY_TAG.fullmatch(value.strip(" \t")) is not None


#: RFC 9110 §5.6.7, the three forms of HTTP-date, each matched whole: `IMF-fixdate` (`Sun, 06
#: Nov 1994 08:49:37 GMT`), the obsolete `rfc850-date` (`Sunday, 06-Nov-94 08:49:37 GMT`) and
#: `asctime-date` (`Sun Nov  6 08:49:37 1994`). The zone is the literal, case-sensitive "GMT":
#: `UTC`, `+0000` or a missing zone make no HTTP-date, though a lenient date parser reads them.
_DAY = r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)"
_DAY_LONG = r"(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)"
_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
_TIME = r"[0-9]{2}:[0-9]{2}:[0-9]{2}"
HTTP_DATE = re.compile(
    rf"{_DAY}, [0-9]{{2}} {_MONTH} [0-9]{{4}} {_TIME} GMT"
    rf"|{_DAY_LONG}, [0-9]{{2}}-{_MONTH}-[0-9]{{2}} {_TIME} GMT"
    rf"|{_DAY} {_MONTH} (?:[0-9]{{2}}| [0-9]) {_TIME} [0-9]{{4}}"
)


def is_http_date(value: str | None) -> bool:
    """Whether `value`, leading and trailing whitespace aside, is an HTTP-date in any of its
    three forms, naming a date that exists."""
    if value is None or HTTP_DATE.fullmatch(value.strip(" \t")) is None:
        return False
    try:
        return parsedate_to_datetime(value) is not None
    except (TypeError, ValueError):
        return False


def http_date_seconds(value: str | None) -> float | None:
    """An HTTP-date as seconds since the epoch, so that dates compare as times and not as text;
    None when `value` is missing or no date at all."""
    if not value:
        return None
    try:
        return parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
