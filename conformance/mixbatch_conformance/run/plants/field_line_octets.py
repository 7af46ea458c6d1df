"""Planted violations of the octets a part field line may hold (spec 3.2.3, MB-PART-8).

RFC 9110 §5.5 lets a field value hold any VCHAR and any obs-text octet, and §5.6.2 lets a
field name hold any tchar, a digit or a mark first as well as a letter. A reader whose grammar
is narrower refuses a valid line, or drops it, and the sub-request is not the part:

- a value holding `~` (0x7E, the last VCHAR) refused 400 naming MB-PART-11, as a range written
  half-open (`0x21..0x7e`) leaves it out;
- a field whose value opens with an obs-text octet left out of the sub-request, as a reader that
  takes such a value for no text at all;
- a field name opening with a digit or a mark refused 400 naming MB-PART-11, as a reader that
  holds names to an identifier's grammar.

Each breaks MB-PART-8: "A receiver MUST take a request part's header fields other than
`Http-Method` and `Content-Id` as the sub-request's header fields, in order".
"""

from __future__ import annotations

from mixbatch_conformance.run.mutations import FieldList, Mutation
from mixbatch_conformance.run.plants._edits import Part, all_of, body_has, is_batch, refuses

__all__ = ["PLANTS"]

P = Mutation

VALUES = ("part-field-value-octets-reach-echo",)
NAMES = ("part-field-name-tchars-reach-echo",)


def _without_obs_text_openings(parts: list[Part]) -> list[Part]:
    def kept(fields: FieldList) -> FieldList:
        return [(n, v) for n, v in fields if not v.lstrip(" \t")[:1] >= "\x80"]

    return [(kept(fields), body) for fields, body in parts]


PLANTS = (
    P(
        "field-value-tilde-refused",
        "MB-PART-8 a part whose field value holds '~' (0x7E, a VCHAR) refused 400 naming "
        "MB-PART-11",
        VALUES,
        on_response=refuses(
            all_of(is_batch, body_has(rb"(?m)^[!#$%&'*+.^_`|~0-9A-Za-z-]+:[^\r\n]*~")),
            400,
            "MB-PART-11",
        ),
    ),
    P(
        "field-value-obs-text-opening-dropped",
        "MB-PART-8 a part field whose value opens with an obs-text octet left out of the "
        "sub-request",
        VALUES,
        on_request_parts=_without_obs_text_openings,
    ),
    P(
        "field-name-leading-digit-or-mark-refused",
        "MB-PART-8 a part whose field name opens with a digit or a mark (a tchar that is no "
        "letter) refused 400 naming MB-PART-11",
        NAMES,
        on_response=refuses(
            all_of(is_batch, body_has(rb"(?m)^[!#$%&'*+.^_`|~0-9-][!#$%&'*+.^_`|~0-9A-Za-z-]*:")),
            400,
            "MB-PART-11",
        ),
    ),
)
