"""Which sub-requests the client may send again, and when.

The client retries only what the spec says is safe to retry:

- a part that answered 429 or 503 with a ``Retry-After`` field: the server said the request
  was not acted on and when to come back (RFC 9110 §10.2.3, RFC 6585 §4);
- a ``skipped`` part (MB-RESP-5: it "never ran"), but only when the failure that made the
  server skip it is itself being retried; a part skipped because of a final failure stays
  skipped, or a retry would undo the caller's ``batch-on-error=stop``;
- a part whose outcome is unknown (after an abort part) only when its method is idempotent
  (RFC 9110 §9.2.2); an unsafe part whose outcome is unknown is never sent again.

Everything is bounded: ``max_retries`` rounds at most, and a Retry-After longer than
``max_delay`` seconds is not waited for (the part keeps its 429/503). Atomic batches are never
retried part by part: that would break their all-or-nothing meaning.
"""

from __future__ import annotations

import email.utils
import time
from dataclasses import dataclass

from mixbatch.codec import Fields

__all__ = ["MAX_DELAY", "MAX_RETRIES", "RETRYABLE_STATUSES", "RetryPolicy", "retry_after"]

#: Two extra rounds recover from a momentary overload without hammering a struggling server.
MAX_RETRIES = 2
#: A caller that batched for speed should not silently wait longer than this.
MAX_DELAY = 30.0
#: The most digits of a delay-seconds value read as a number; a longer one waits forever.
_MAX_DELAY_DIGITS = 18
#: Statuses that mean "not acted on, come back later" when they carry Retry-After.
RETRYABLE_STATUSES = frozenset({429, 503})


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How many retry rounds the client makes, and the longest Retry-After it honours."""

    max_retries: int = MAX_RETRIES
    max_delay: float = MAX_DELAY

    def __post_init__(self) -> None:
        if isinstance(self.max_retries, bool) or not isinstance(self.max_retries, int):
            raise TypeError(f"RetryPolicy.max_retries must be an int, got {self.max_retries!r}")
        if self.max_retries < 0:
            raise ValueError(f"RetryPolicy.max_retries must be >= 0, got {self.max_retries!r}")
        if not self.max_delay >= 0:
            raise ValueError(f"RetryPolicy.max_delay must be >= 0, got {self.max_delay!r}")

    def delay_for(self, status: int | None, headers: Fields) -> float | None:
        """Seconds to wait before retrying a response, or None when it must not be retried."""
        if status not in RETRYABLE_STATUSES:
            return None
        delay = retry_after(headers.get("Retry-After"))
        if delay is None or delay > self.max_delay:
            return None
        return delay


def retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds from ``now`` named by a Retry-After value (delay-seconds or HTTP-date)."""
    if value is None:
        return None
    value = value.strip()
    if value.isascii() and value.isdigit():
        # delay-seconds (RFC 9110 §10.2.3); a numeral too long for int() is a wait past any
        # the client would keep.
        digits = value.lstrip("0") or "0"
        return float(int(digits)) if len(digits) <= _MAX_DELAY_DIGITS else float("inf")
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))
