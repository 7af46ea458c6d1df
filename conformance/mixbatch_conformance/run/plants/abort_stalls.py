"""A planted server that stops a batch for its time and leaves its answer open (MB-STATUS-6):

    abort-left-open   the loop over the parts leaves the batch where it should break out of the
                      loop once the budget has run out: the parts written before stay, and
                      neither the abort part nor the close delimiter follows, nor is the
                      connection closed

The relay writes the reference server's answer up to the delimiter before its abort part, with
the framing of the whole answer, so the client waits for octets that never come.
"""

from __future__ import annotations

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import is_batch
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

ABORTED = b"Batch-Outcome: aborted"


def _up_to_abort(framed: bytes) -> bytes:
    """The framed answer up to the CRLF that begins the delimiter before its abort part."""
    at = framed.find(ABORTED)
    if at < 0:
        return framed
    return framed[: framed.rfind(b"\r\n--", 0, at)]


def _left_open(req: RelayRequest, resp: RelayResponse) -> None:
    if is_batch(req) and resp.status == 200 and ABORTED in resp.body:
        resp.wire = _up_to_abort


PLANTS: tuple[Mutation, ...] = (
    # MB-STATUS-6: "write a final part with `Batch-Outcome: aborted` ... and then the close
    # delimiter"; spec 5.4: "A server that cannot write even the abort part closes the
    # connection".
    Mutation(
        "abort-left-open",
        "MB-STATUS-6 a batch stopped for its time answered up to the abort and left open",
        ("batch-abort-after-timeout",),
        caught_by=("FAIL",),
        on_response=_left_open,
    ),
)
