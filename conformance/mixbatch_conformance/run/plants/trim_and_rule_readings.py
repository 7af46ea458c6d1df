"""Planted violations by servers that trim field values as Unicode text, or apply a target rule
to something other than what it names (spec 3.1.1, 3.1.4, 3.2, 8.3, MB-SUB-8).

Optional whitespace around a field value is SP and HTAB only (RFC 9110 §5.6.3), so a reader
that trims a value with its language's Unicode-aware trim (Go's `strings.TrimSpace`, Python's
`str.strip`, JavaScript's `trim`) takes a no-break space, a next line, VT, FF, the U+2000 range,
U+3000 or a byte order mark around a value for whitespace, and accepts a value the spec
refuses, or hands a resource another value than the part's:

- a Content-Id (MB-PART-4), an Http-Method (MB-PART-2), a part Content-Length (MB-WIRE-20) and
  the batch Content-Type's boundary (MB-WIRE-4) read so trimmed;
- every part field value so trimmed before it reaches the resource (MB-PART-8).

MB-SUB-8 refuses the Content-Id value `<*>` and MB-SUB-2 a target whose resolved form names
another origin, a network-path reference or a fragment. A server that tests the resolved,
percent-decoded path for `/*`, a value for a leading `*`, a percent-decoded target for `//` or
`#`, or a reference for a substring that looks like an authority refuses batches whose parts
name ordinary resources.

Each shows the reference server the request as the planted reader understands it, or answers
400 for it.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Callable

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import (
    boundary_of,
    field_of,
    is_batch,
    part_field_read,
    parts_of,
    refuses,
)
from mixbatch_conformance.transport.relay import RelayRequest

__all__ = ["PLANTS", "unicode_trimmed"]

P = Mutation

#: What a Unicode-aware trim takes for whitespace beyond Python's `str.strip`: the byte order
#: mark (JavaScript's `trim` removes it).
_EXTRA_SPACE = "\ufeff"
#: A part field line at the start of a line: its name and its value.
_FIELD_LINE = re.compile(rb"(?m)^([!#$%&'*+.^_`|~0-9A-Za-z-]+):([^\r\n]*)")
#: An absolute URI's scheme and authority.
_ABSOLUTE_PREFIX = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*")


def unicode_trimmed(value: str) -> str:
    """`value` (octets as latin-1 characters) with the whitespace a Unicode reader trims taken
    off both ends, read as UTF-8 and then as Latin-1."""
    text = value.encode("latin-1").decode("utf-8", "surrogateescape")
    text = text.strip().strip(_EXTRA_SPACE).strip()
    return text.encode("utf-8", "surrogateescape").decode("latin-1").strip()


def _all_part_fields_trimmed(req: RelayRequest) -> None:
    def rewrite(m: re.Match[bytes]) -> bytes:
        value = unicode_trimmed(m.group(2).decode("latin-1"))
        return m.group(1) + b": " + value.encode("latin-1")

    if is_batch(req):
        req.body = _FIELD_LINE.sub(rewrite, req.body)


def _boundary_trimmed(req: RelayRequest) -> None:
    ctype = req.get("Content-Type")
    if is_batch(req) and ctype is not None and unicode_trimmed(ctype) != ctype.strip(" \t"):
        req.headers = [(n, v) for n, v in req.headers if n.lower() != "content-type"]
        req.headers.append(("Content-Type", unicode_trimmed(ctype)))


def _any_reference(test: Callable[[str, str], bool]) -> Callable[[RelayRequest], bool]:
    """True for a batch in which `test(reference, batch path)` holds for a part's Content-Id
    reference (the value inside its angle brackets)."""

    def pred(req: RelayRequest) -> bool:
        b = boundary_of(req)
        parts = parts_of(req.body, b) if b and is_batch(req) else None
        for fields, _ in parts or []:
            cid = (field_of(fields, "Content-Id") or "").strip(" \t")
            if cid.startswith("<") and cid.endswith(">") and test(cid[1:-1], req.target):
                return True
        return False

    return pred


def _resolves_to_asterisk(ref: str, batch: str) -> bool:
    """The resolved path, percent-decoded, is `/*`."""
    path = urllib.parse.urlsplit(urllib.parse.urljoin(f"http://x{batch}", ref)).path
    return urllib.parse.unquote(path) == "/*"


def _begins_with_asterisk(ref: str, batch: str) -> bool:
    return ref.startswith("*")


def _decoded_other_origin(ref: str, batch: str) -> bool:
    """The reference, percent-decoded and without its own scheme and authority, is a
    network-path reference or holds a fragment."""
    decoded = _ABSOLUTE_PREFIX.sub("", urllib.parse.unquote(ref))
    return decoded.startswith("//") or "#" in decoded


def _authority_anywhere(ref: str, batch: str) -> bool:
    """After its own scheme and authority, the reference holds `://`, `@` or `host:port/`."""
    rest = _ABSOLUTE_PREFIX.sub("", ref)
    return "://" in rest or "@" in rest or re.search(r"[^/]+\.[^/]+:[0-9]+/", rest) is not None


def _content_ids(*kinds: str, leading: tuple[str, ...]) -> tuple[str, ...]:
    return (
        *(f"reject-content-id-then-{k}" for k in kinds),
        *(f"reject-content-id-leading-{k}" for k in leading),
    )


PLANTS = (
    P(
        "content-id-unicode-trimmed",
        "MB-PART-4 a Content-Id read with the whitespace a Unicode trim removes taken off its ends",
        _content_ids(
            "utf8-nbsp",
            "utf8-nel",
            "octet-a0",
            "octet-85",
            "vertical-tab",
            "form-feed",
            "unit-separator",
            "utf8-en-quad",
            "utf8-ideographic-space",
            "utf8-byte-order-mark",
            leading=(
                "utf8-nbsp",
                "octet-a0",
                "vertical-tab",
                "utf8-ideographic-space",
                "utf8-byte-order-mark",
            ),
        ),
        on_request=part_field_read("Content-Id", unicode_trimmed),
    ),
    P(
        "http-method-unicode-trimmed",
        "MB-PART-2 an Http-Method read with the whitespace a Unicode trim removes taken off",
        (
            "reject-http-method-then-utf8-nbsp",
            "reject-http-method-then-utf8-nel",
            "reject-http-method-then-octet-a0",
            "reject-http-method-then-vertical-tab",
            "reject-http-method-then-form-feed",
            "reject-http-method-then-utf8-ideographic-space",
            "reject-http-method-leading-utf8-nbsp",
            "reject-http-method-leading-vertical-tab",
        ),
        on_request=part_field_read("Http-Method", unicode_trimmed),
    ),
    P(
        "part-content-length-unicode-trimmed",
        "MB-WIRE-20 a part Content-Length read with the whitespace a Unicode trim removes taken off",
        (
            "reject-content-length-then-utf8-nbsp",
            "reject-content-length-then-octet-a0",
            "reject-content-length-then-vertical-tab",
            "reject-content-length-then-form-feed",
            "reject-content-length-then-utf8-ideographic-space",
            "reject-content-length-leading-utf8-nbsp",
            "reject-content-length-leading-vertical-tab",
        ),
        on_request=part_field_read("Content-Length", unicode_trimmed),
    ),
    P(
        "boundary-unicode-trimmed",
        "MB-WIRE-4 a batch Content-Type read with the whitespace a Unicode trim removes taken off",
        ("reject-boundary-token-then-utf8-nbsp", "reject-boundary-quoted-then-utf8-nbsp"),
        on_request=_boundary_trimmed,
    ),
    P(
        "part-field-values-unicode-trimmed",
        "MB-PART-8 every part field value trimmed of what a Unicode trim removes before it "
        "reaches the resource",
        ("part-field-kinds-reach-resource",),
        on_request=_all_part_fields_trimmed,
    ),
    P(
        "asterisk-test-on-resolved-path",
        "MB-SUB-8 a part refused whose resolved, percent-decoded path is /*, not its value <*>",
        ("asterisk-lookalikes-run",),
        on_response=refuses(_any_reference(_resolves_to_asterisk), 400, "MB-SUB-8"),
    ),
    P(
        "asterisk-test-by-prefix",
        "MB-SUB-8 a part refused whose Content-Id value begins with <*",
        ("asterisk-lookalikes-run",),
        on_response=refuses(_any_reference(_begins_with_asterisk), 400, "MB-SUB-8"),
    ),
    P(
        "origin-test-on-decoded-target",
        "MB-SUB-2 a part refused whose target, percent-decoded, reads as a network-path "
        "reference or holds a fragment",
        ("origin-lookalikes-run",),
        on_response=refuses(_any_reference(_decoded_other_origin), 400, "MB-SUB-2"),
    ),
    P(
        "origin-test-by-substring",
        "MB-SUB-2 a part refused whose reference holds ://, @ or host:port/ after its own origin",
        ("origin-lookalikes-run",),
        on_response=refuses(_any_reference(_authority_anywhere), 400, "MB-SUB-2"),
    ),
)
