"""What a response's `Connection` field says about the connection it came on."""

from __future__ import annotations

__all__ = ["closes"]


def closes(connection: str | None) -> bool:
    """Whether a `Connection` value (its lines joined) holds the "close" option, by which the
    sender says the connection ends after this message (RFC 9112 §9.6)."""
    return "close" in {t.strip().lower() for t in (connection or "").split(",")}
