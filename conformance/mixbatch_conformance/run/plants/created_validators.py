"""Planted violations of the validators a part carries (spec 7.6): those of a part that created
a resource, and those of a part read before a later part wrote its target.

created-part-validators-dropped    the ETag and Last-Modified of a sub-response answered
                                   201 left out of its response part, taken to describe
                                   the created resource rather than the part's target
                                   (MB-PROC-10)
validators-read-after-the-batch    each 200 part's ETag and Last-Modified those of the last
                                   200 part of the same target, as a server that fills in
                                   validators from its store once every part has run (at an
                                   atomic batch's commit, say) writes them (MB-PROC-10)
"""

from __future__ import annotations

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import (
    Part,
    field_of,
    map_answered_parts,
    map_parts,
    set_field,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

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


def _validators_after_the_batch(req: RelayRequest, resp: RelayResponse) -> None:
    """Each 200 part given the validators of the last 200 part of its target."""
    last: dict[str, list[tuple[str, str]]] = {}

    def learn(sent: Part, answered: Part) -> Part:
        target = field_of(sent[0], "Content-Id") or ""
        fields = answered[0]
        if field_of(fields, "Http-Status-Code") == "200" and field_of(fields, "ETag"):
            last[target] = [(n, v) for n, v in fields if n.lower() in _VALIDATORS]
        return answered

    def refresh(sent: Part, answered: Part) -> Part:
        fields, body = answered
        target = field_of(sent[0], "Content-Id") or ""
        if field_of(fields, "Http-Status-Code") == "200" and target in last:
            for n, v in last[target]:
                fields = set_field(fields, n, v)
        return fields, body

    map_answered_parts(learn)(req, resp)
    map_answered_parts(refresh)(req, resp)


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "created-part-validators-dropped",
        "MB-PROC-10 a 201 part's ETag and Last-Modified left out",
        ("created-fields-every-form",),
        on_response=map_parts(_drop_created_validators),
    ),
    Mutation(
        "validators-read-after-the-batch",
        "MB-PROC-10 each part's ETag and Last-Modified those its target has after the batch",
        ("part-validators-of-their-moment",),
        on_response=_validators_after_the_batch,
    ),
)
