"""Planted violation of MB-PIPE-1 after a size refusal given once the content was read whole.

Spec 11 lets "an answer a server gives before it has read the request's content whole, a 413
or 431" close the connection, and no other. The plant models a server that reads RFC 9112
§9.6 as applying to every size refusal: each 413 and 431 to a batch goes out with
`Connection: close` and the requests pipelined behind it are left unanswered. The relay reads
every request whole before it forwards it, so each refusal the server behind it gives comes
after the whole content, where a refusal may not end the connection.
"""

from __future__ import annotations

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import is_batch
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]


def _close_after_size_refusal(req: RelayRequest, resp: RelayResponse) -> None:
    if is_batch(req) and resp.status in (413, 431):
        resp.close = True


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "size-refusal-closes-after-whole-content",
        "MB-PIPE-1 every 413 and 431 closes the connection, also once the content was read whole",
        ("pipelining-behind-limit-refusals-read-whole",),
        on_response=_close_after_size_refusal,
    ),
)
