"""Building blocks for plants that evaluate a request's or a part's preconditions wrongly."""

from __future__ import annotations

from collections.abc import Callable

from mixbatch_conformance.run.mutations import FieldList
from mixbatch_conformance.run.plants._edits import Part, field_of, is_batch
from mixbatch_conformance.transport.relay import RelayRequest

__all__ = ["CONDITIONAL_FIELDS", "NO_MATCH", "FieldsEdit", "everywhere"]

#: What the edited server's failed precondition reads as: a tag no resource carries.
NO_MATCH = '"mb-plant-no-match"'
#: The conditional request fields of RFC 9110 §13.1 whose evaluation MB-PROC-9 binds.
CONDITIONAL_FIELDS = frozenset(
    {"if-match", "if-none-match", "if-modified-since", "if-unmodified-since"}
)

#: An edit of the fields of a request or of a part, given its method.
FieldsEdit = Callable[[str, FieldList], FieldList]


def everywhere(
    edit: FieldsEdit,
) -> tuple[Callable[[RelayRequest], None], Callable[[list[Part]], list[Part]]]:
    """The same edit of a request's fields alone (by its method) and of each part's."""

    def alone(req: RelayRequest) -> None:
        if not is_batch(req):
            req.headers = edit(req.method, req.headers)

    def parts(ps: list[Part]) -> list[Part]:
        return [(edit((field_of(f, "Http-Method") or "GET").upper(), f), b) for f, b in ps]

    return alone, parts
