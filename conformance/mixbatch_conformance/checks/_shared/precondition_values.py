"""Validator values the conditional checks send that no representation can match.

Theory of operation: a precondition check needs an entity-tag no server gives any
representation, and a date before any modification; both are fixed here so that a server's
logs show one spelling of each, whichever check sent it.
"""

from __future__ import annotations

__all__ = ["EPOCH", "NO_SUCH_ETAG"]

#: The earliest HTTP-date: every representation was modified after it.
EPOCH = "Thu, 01 Jan 1970 00:00:00 GMT"
#: An entity-tag no representation carries.
NO_SUCH_ETAG = '"mb-suite-no-such-etag"'
