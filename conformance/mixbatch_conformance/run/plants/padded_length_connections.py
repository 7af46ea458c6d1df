"""Planted violations of MB-PIPE-1 after a batch whose Content-Length has leading zeros.

Spec 9.1 has a server read a batch's `Content-Length` of up to 18 digits, "leading zeros
counted among them", and spec 11 keeps the connection answering the requests behind any batch
that ran. A server that distrusts such a length (two parsers on the way may read it apart, as
in request smuggling) runs the batch and then ends the connection, marked `Connection: close`:

    padded-length-batch-closes-connection  a batch framed by a Content-Length with leading
                                           zeros runs, answered with Connection: close, the
                                           request behind it unanswered
"""

from __future__ import annotations

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import is_batch
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]


def _close_after_padded_length(req: RelayRequest, resp: RelayResponse) -> None:
    lengths = [v.strip(" \t") for n, v in req.headers if n.lower() == "content-length"]
    if is_batch(req) and any(len(v) > 1 and v.startswith("0") for v in lengths):
        resp.close = True


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "padded-length-batch-closes-connection",
        "MB-PIPE-1 a batch whose Content-Length has leading zeros closes the connection after "
        "it ran, marked, the request behind it unanswered",
        ("pipelining-behind-every-answer",),
        on_response=_close_after_padded_length,
    ),
)
