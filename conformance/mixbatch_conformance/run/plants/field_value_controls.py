"""Planted violations of the octets a part field value may hold (spec 3.2, MB-PART-11,
MB-PART-8).

RFC 9110 §5.5 lets a field value hold VCHAR, obs-text and SP and HTAB between them, and §5.6.3
makes only SP and HTAB around it optional whitespace. A reader that trims a value with its
language's whitespace trim, or checks its octets after trimming, lets a control octet at an end
through with the octet gone; one that checks only some octets lets one through in the middle;
one that normalises whitespace or trims as Unicode text rewrites a valid value; one that holds
a value to ASCII refuses a valid one:

- a form feed at a value's end taken off with the OWS (Rust's `trim_ascii`), a VT at its start
  taken off, VT, FF and the separators 0x1C-0x1F taken off both ends (Python's `str.strip`),
  and a NUL between two visible characters let through (MB-PART-11);
- an HTAB inside a value turned into a space, and the obs-text octets 0x85 and 0xA0 at a
  value's ends trimmed as whitespace, before the value reaches the resource (MB-PART-8);
- a value ending in obs-text refused (MB-PART-11).

Each shows the reference server the value as the planted reader leaves it, or answers for it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import accepts, body_has, is_batch, refuses
from mixbatch_conformance.transport.relay import RelayRequest

__all__ = ["PLANTS"]

P = Mutation

#: A part field line at the start of a line: its name and its value up to the line's end.
_FIELD_LINE = re.compile(rb"(?m)^([!#$%&'*+.^_`|~0-9A-Za-z-]+):([^\r\n]*)")
#: The catcher of the refusals and the catcher of the valid neighbours.
REFUSED = ("part-field-value-controls-refused",)
NEIGHBOURS = ("part-field-value-neighbours-reach-echo",)


def _values_read(read: Callable[[str], str]) -> Callable[[RelayRequest], None]:
    """A server that reads every part field value (octets as latin-1 characters, OWS
    included) through `read`: the reference server is shown each line as `name: value`."""

    def rewrite(m: re.Match[bytes]) -> bytes:
        value = read(m.group(2).decode("latin-1"))
        return m.group(1) + b": " + value.encode("latin-1")

    def edit(req: RelayRequest) -> None:
        if is_batch(req):
            req.body = _FIELD_LINE.sub(rewrite, req.body)

    return edit


PLANTS = (
    P(
        "field-value-trailing-form-feed-trimmed",
        "MB-PART-11 a form feed at the end of a part field value taken off with the OWS",
        REFUSED,
        on_request=_values_read(lambda v: v.rstrip(" \t\f").lstrip(" \t")),
    ),
    P(
        "field-value-leading-vertical-tab-trimmed",
        "MB-PART-11 a vertical tab at the start of a part field value taken off with the OWS",
        REFUSED,
        on_request=_values_read(lambda v: v.lstrip(" \t\v").rstrip(" \t")),
    ),
    P(
        "field-value-separators-trimmed",
        "MB-PART-11 VT, FF and the separators 0x1C-0x1F at either end of a part field value "
        "taken off as whitespace",
        REFUSED,
        on_request=_values_read(lambda v: v.strip(" \t\v\f\x1c\x1d\x1e\x1f")),
    ),
    P(
        "field-value-inner-nul-accepted",
        "MB-PART-11 a NUL between two visible characters of a part field value let through",
        REFUSED,
        on_response=accepts(body_has(rb"(?m)^[!#$%&'*+.^_`|~0-9A-Za-z-]+:[^\r\n]*[!-~]\x00[!-~]")),
    ),
    P(
        "field-value-inner-htab-as-space",
        "MB-PART-8 an HTAB inside a part field value turned into a space",
        NEIGHBOURS,
        on_request=_values_read(lambda v: v.strip(" \t").replace("\t", " ")),
    ),
    P(
        "field-value-latin1-space-edges-trimmed",
        "MB-PART-8 the obs-text octets 0x85 and 0xA0 at the ends of a part field value trimmed "
        "as whitespace",
        NEIGHBOURS,
        on_request=_values_read(lambda v: v.strip(" \t\x85\xa0")),
    ),
    P(
        "field-value-obs-text-end-refused",
        "MB-PART-11 a part field value ending in obs-text refused",
        NEIGHBOURS,
        on_response=refuses(
            body_has(rb"(?m)^[!#$%&'*+.^_`|~0-9A-Za-z-]+:[^\r\n]*[\x80-\xff][ \t]*\r\n"),
            400,
            "MB-PART-11",
        ),
    ),
)
