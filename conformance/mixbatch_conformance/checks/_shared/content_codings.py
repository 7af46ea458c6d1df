"""Content codings the checks send (spec 10.1, MB-INTER-6)."""

from __future__ import annotations

__all__ = ["UNKNOWN_CODING"]

#: A content coding no server supports (RFC 9110 §8.4.1: codings are registered tokens, and
#: this one is not).
UNKNOWN_CODING = "x-mb-suite-unknown-coding"
