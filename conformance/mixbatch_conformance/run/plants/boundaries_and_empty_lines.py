"""Planted writers that leave out the empty line after a bodyless response part's header
section (spec 3.1.2: MB-WIRE-7).

RFC 2046 makes the empty line and the body optional together, so a writer can be tempted to
write the empty line only when a body follows; MB-WIRE-7 makes a sender always write it. Each
plant rewrites `CRLF CRLF CRLF --boundary` (the last field line's CRLF, the empty line, the
delimiter) in a batch answer to `CRLF CRLF --boundary`, for every part without a body or only
for the outcome parts (`Batch-Outcome`) a stopped or rolled-back batch writes.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import boundary_of, is_batch
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]


def _without_empty_line(outcome_only: bool) -> Callable[[RelayRequest, RelayResponse], None]:
    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        b = boundary_of(resp)
        if not b or not is_batch(req):
            return
        dash = re.escape(b"--" + b.encode("latin-1"))
        head = rb"((?:\A|\r\n)--" + re.escape(b.encode("latin-1")) + rb"\r\n(?:[^\r\n]+\r\n)*)"
        empty = rb"\r\n(?=\r\n" + dash + rb")"

        def drop(m: re.Match[bytes]) -> bytes:
            fields = m.group(1)
            if outcome_only and b"\r\nbatch-outcome:" not in fields.lower():
                return m.group(0)
            return fields

        resp.body = re.sub(head + empty, drop, resp.body)

    return edit


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    P(
        "bodyless-part-without-empty-line",
        "MB-WIRE-7 empty line of a part without a body",
        ("bodyless-response-parts-keep-empty-line",),
        on_response=_without_empty_line(outcome_only=False),
    ),
    P(
        "outcome-part-without-empty-line",
        "MB-WIRE-7 empty line of a skipped or rolled-back part without a body",
        ("bodyless-response-parts-keep-empty-line",),
        on_response=_without_empty_line(outcome_only=True),
    ),
)
