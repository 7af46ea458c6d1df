"""The grammar of the validators a server sends (RFC 9110 §8.8): what an `ETag` field and a
`Last-Modified` field must look like to be one at all.

A value that does not match is no validator: a client cannot echo it in If-None-Match, and
RFC 9110 §8.8.3 gives `entity-tag = [ weak ] opaque-tag`, `opaque-tag = DQUOTE *etagc DQUOTE`,
`etagc = %x21 / %x23-7E / obs-text`; §8.8.2 makes Last-Modified an HTTP-date (§5.6.7).
"""

from __future__ import annotations

import re
from email.utils import parsedate_to_datetime

__all__ = ["is_entity_tag", "is_http_date"]

#: RFC 9110 §8.8.3: `entity-tag = [ weak ] opaque-tag`, `weak = %s"W/"` (case-sensitive).
ENTITY_TAG = re.compile(r'(?:W/)?"[\x21\x23-\x7e\x80-\xff]*"')


def is_entity_tag(value: str | None) -> bool:
    """Whether `value`, leading and trailing whitespace aside, is one entity-tag."""
    return value is not None and ENTITY_TAG.fullmatch(value.strip(" \t")) is not None


def is_http_date(value: str | None) -> bool:
    """Whether `value` reads as an HTTP-date in any of its three forms."""
    try:
        return value is not None and parsedate_to_datetime(value).tzinfo is not None
    except (TypeError, ValueError):
        return False
