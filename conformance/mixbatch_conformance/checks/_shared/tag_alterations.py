"""Entity tags altered so that each is certainly not the tag it was made from.

RFC 9110 §8.8.3: `entity-tag = [ weak ] opaque-tag`, `weak = %s"W/"` (case-sensitive),
`opaque-tag = DQUOTE *etagc DQUOTE`, `etagc = %x21 / %x23-7E / obs-text`; §8.8.3.2: two
entity tags are equivalent when "their opaque-tags match character-by-character". A server
that compares more loosely (case folded, whitespace trimmed, quotes optional, `w/` read as
`W/`, one tag taken for another it begins or ends with, backslashes read as quoted-pair
escapes) matches tags that are not its own.

`altered_tags` gives, for a tag a server sent, (what, value, valid) triples: `valid` says the
value is itself an entity-tag, a different one, which a precondition must treat as not
matching exactly as RFC 9110 §13.1.1/§13.1.2 say; the others break §8.8.3's grammar, and
RFC 9110 leaves open whether a server refuses the field or reads it as naming no tag, so a
check only asks that they never match. An alteration that yields the same octets (a case
change of a tag with no letters) is left out.
"""

from __future__ import annotations

__all__ = ["altered_tags", "other_strength"]


def altered_tags(etag: str) -> list[tuple[str, str, bool]]:
    """(what, altered value, whether it is a valid entity-tag) for `etag`, each certainly a
    different tag; empty when `etag` is not an entity-tag."""
    etag = etag.strip(" \t")
    weak = "W/" if etag.startswith("W/") else ""
    opaque = etag[len(weak) :]
    if len(opaque) < 2 or not (opaque.startswith('"') and opaque.endswith('"')):
        return []
    inner = opaque[1:-1]
    out: list[tuple[str, str, bool]] = []
    for what, changed in (("in upper case", inner.upper()), ("in lower case", inner.lower())):
        # Only where the case change is a change: a tag of digits alone stays the same tag.
        if changed != inner:
            out.append((f"the tag {what}", f'{weak}"{changed}"', True))
    if len(inner) > 1:
        # A tag that is a prefix or a suffix of the real one, and one the real one begins with.
        out.append(("the tag without its last character", f'{weak}"{inner[:-1]}"', True))
        out.append(("the tag without its first character", f'{weak}"{inner[1:]}"', True))
    out.append(("the tag with a character added", f'{weak}"{inner}0"', True))
    if inner:
        # A backslash is an etagc (%x5C) like any other: RFC 9110 §8.8.3 notes that
        # "opaque-tag was defined to be a quoted-string ([RFC2616], Section 3.11); thus, some
        # recipients might perform backslash unescaping", which takes this for the tag.
        out.append(
            (
                "the tag with a backslash before each character",
                weak + '"' + "".join("\\" + c for c in inner) + '"',
                True,
            )
        )
    out.append(("the tag with a space inside its quotes", f'{weak}" {inner}"', False))
    out.append(("the tag with a space before its closing quote", f'{weak}"{inner} "', False))
    if inner:
        out.append(("the tag without its quotes", f"{weak}{inner}", False))
    # `w/` is no weakness indicator: %s"W/" is case-sensitive.
    out.append(("the tag with w/ in lower case", f'w/"{inner}"', False))
    return out


def other_strength(etag: str) -> str:
    """`etag` in the other strength: `W/` taken off a weak tag, put before a strong one (RFC 9110
    §8.8.3: `entity-tag = [ weak ] opaque-tag`, the opaque-tag the same)."""
    return etag[2:] if etag.startswith("W/") else f"W/{etag}"
