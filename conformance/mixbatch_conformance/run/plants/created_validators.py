"""Planted violations of the validators a part that created a resource carries (spec 7.6).

created-part-validators-dropped    the ETag and Last-Modified of a sub-response answered
                                   201 left out of its response part, taken to describe
                                   the created resource rather than the part's target
                                   (MB-PROC-10)
"""

from __future__ import annotations

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import Part, map_parts

__all__ = ["PLANTS"]

_VALIDATORS = ("etag", "last-modified")


def _drop_created_validators(parts: list[Part]) -> list[Part]:
    out: list[Part] = []
    for fields, body in parts:
        created = any(n.lower() == "http-status-code" and v.strip() == "201" for n, v in fields)
        if created:
            fields = [(n, v) for n, v in fields if n.lower() not in _VALIDATORS]
        out.append((fields, body))
    return out


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "created-part-validators-dropped",
        "MB-PROC-10 a 201 part's ETag and Last-Modified left out",
        ("created-fields-every-form",),
        on_response=map_parts(_drop_created_validators),
    ),
)
