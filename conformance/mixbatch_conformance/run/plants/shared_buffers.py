"""Planted violations of MB-MULTI-5 by results that share a buffer in the JSON form.

A server that keeps each part's result until the batch ends, and hands a finished recorder's
body buffer on to the next part, writes the multipart form right (each body copied out at once)
and the JSON form wrong: an earlier entry ends up holding a later part's octets. The plant
gives each entry with a body the body of the entry after it that has one.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import map_json

__all__ = ["PLANTS"]

_BODY_MEMBERS = ("body", "body_base64")


def _bodies_handed_on(doc: dict[str, Any]) -> None:
    entries = [
        e
        for e in doc.get("responses") or []
        if isinstance(e, dict) and any(m in e for m in _BODY_MEMBERS)
    ]
    for earlier, later in pairwise(entries):
        for member in _BODY_MEMBERS:
            earlier.pop(member, None)
            if member in later:
                earlier[member] = later[member]


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "json-bodies-from-a-reused-buffer",
        "MB-MULTI-5 a JSON entry holding a later part's body",
        ("distinct-parts-as-alone-in-every-form",),
        on_response=map_json(_bodies_handed_on),
    ),
)
