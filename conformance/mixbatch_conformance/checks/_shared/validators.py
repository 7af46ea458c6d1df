"""The grammar of the validators a server sends (RFC 9110 §8.8): what an `ETag` field and a
`Last-Modified` field must look like to be one at all.

A value that does not match is no validator: a client cannot echo it in If-None-Match, and
RFC 9110 §8.8.3 gives `entity-tag = [ weak ] opaque-tag`, `opaque-tag = DQUOTE *etagc DQUOTE`,
`etagc = %x21 / %x23-7E / obs-text`; §8.8.2 makes Last-Modified an HTTP-date (§5.6.7), which
a sender writes as an IMF-fixdate.
"""

from __future__ import annotations

import re

from mixbatch_conformance.core.http_dates import imf_fixdate_seconds, is_imf_fixdate

__all__ = ["http_date_seconds", "is_entity_tag", "is_http_date"]

#: RFC 9110 §8.8.3: `entity-tag = [ weak ] opaque-tag`, `weak = %s"W/"` (case-sensitive).
ENTITY_TAG = re.compile(r'(?:W/)?"[\x21\x23-\x7e\x80-\xff]*"')


def is_entity_tag(value: str | None) -> bool:
    """Whether `value`, leading and trailing whitespace aside, is one entity-tag."""
    return value is not None and ENTITY_TAG.fullmatch(value.strip(" \t")) is not None


def is_http_date(value: str | None) -> bool:
    """Whether `value`, leading and trailing whitespace aside, is an HTTP-date as a sender
    writes it: an IMF-fixdate (RFC 9110 §5.6.7: "the sender MUST generate those timestamps in
    the IMF-fixdate format"), naming a time that exists, on its weekday (core.http_dates)."""
    return value is not None and is_imf_fixdate(value.strip(" \t"))


def http_date_seconds(value: str | None) -> float | None:
    """A server's HTTP-date as seconds since the epoch, so that dates compare as times and not
    as text; None when `value` is missing or no HTTP-date a sender may write (an obsolete form
    included: RFC 9110 §5.6.7)."""
    return imf_fixdate_seconds(value.strip(" \t")) if value else None
