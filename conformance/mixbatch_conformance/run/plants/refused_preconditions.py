"""Planted preconditions evaluated where the request fails without them (RFC 9110 §13.2.1,
MB-PROC-9).

    preconditions-before-method-routing   a resource's preconditions evaluated in front of its
                                          routes, for every method: a request whose method the
                                          target does not route (405) and that carries
                                          If-None-Match: *, If-Match or If-Unmodified-Since is
                                          answered 412, alone as in a part
    preconditions-before-not-found        preconditions evaluated before the target is looked
                                          up: a request to a target that does not exist (404)
                                          carrying If-None-Match: * or If-Unmodified-Since is
                                          answered 412, alone as in a part

RFC 9110 §13.2.1 has a server "ignore all received preconditions if its response to the same
request without those conditions ... would have been a status code other than a 2xx
(Successful) or 412 (Precondition Failed)". Each plant rewrites the status of the answers, alone
and in the parts of a batch (read in the order they were sent, as a plain multipart batch
answers them), so a comparison with the same request alone does not see it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from mixbatch_conformance.run.mutations import FieldList, Mutation
from mixbatch_conformance.run.plants._edits import (
    Part,
    field_of,
    is_batch,
    map_answered_parts,
    set_field,
    without_field,
)
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: Whether a request with these fields, answered this status, gets 412 instead.
Evaluates = Callable[[FieldList, int], bool]


def _before_routing(fields: FieldList, status: int) -> bool:
    return status == 405 and (
        field_of(fields, "If-None-Match") == "*"
        or field_of(fields, "If-Match") is not None
        or field_of(fields, "If-Unmodified-Since") is not None
    )


def _before_lookup(fields: FieldList, status: int) -> bool:
    return status == 404 and (
        field_of(fields, "If-None-Match") == "*"
        or field_of(fields, "If-Unmodified-Since") is not None
    )


def _part_412(evaluates: Evaluates, sent: Part, answered: Part) -> Part:
    """The answered part as a 412 without content where `evaluates` holds for its request."""
    (qf, _), (af, _) = sent, answered
    code = field_of(af, "Http-Status-Code") or ""
    if not (code.isdigit() and evaluates(qf, int(code))):
        return answered
    af = set_field(af, "Http-Status-Code", "412")
    af = without_field(without_field(af, "Content-Type"), "Content-Length")
    return [*af, ("Content-Length", "0")], b""


def _planted(evaluates: Evaluates) -> Callable[[RelayRequest, RelayResponse], None]:
    def answer(req: RelayRequest, resp: RelayResponse) -> None:
        if not is_batch(req):
            if evaluates(req.headers, resp.status):
                resp.status = 412
                resp.headers = [(n, v) for n, v in resp.headers if n.lower() in ("date", "server")]
                resp.body = b""
            return
        map_answered_parts(partial(_part_412, evaluates))(req, resp)

    return answer


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "preconditions-before-method-routing",
        "MB-PROC-9 preconditions evaluated where the method is not routed (412 for a 405)",
        ("conditional-fields-where-the-request-fails", "conditional-fields-on-refused-posts"),
        on_response=_planted(_before_routing),
    ),
    Mutation(
        "preconditions-before-not-found",
        "MB-PROC-9 preconditions evaluated where the target does not exist (412 for a 404)",
        ("conditional-fields-where-the-request-fails",),
        on_response=_planted(_before_lookup),
    ),
)
