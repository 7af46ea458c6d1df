"""One field name spelled in other letter cases, for checks that a receiver reads a field
whatever the case of its name (RFC 9110 §5.1: "Field names are case-insensitive")."""

from __future__ import annotations

__all__ = ["spellings"]


def spellings(name: str) -> tuple[str, ...]:
    """`name` in lower case, in upper case and in alternating case (RFC 9110 §5.1: one name)."""
    mixed = "".join(c.upper() if i % 2 else c.lower() for i, c in enumerate(name))
    return (name.lower(), name.upper(), mixed)
