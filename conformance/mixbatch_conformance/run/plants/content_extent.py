"""Planted violations of what `max_batch_bytes` counts (spec 9.1: "preamble, delimiter lines,
parts and epilogue"): a server that counts only the multipart body proper.

    epilogue-left-uncounted     the content read to the end of the close delimiter and the
                                epilogue discarded unread, so content over max_batch_bytes by
                                its epilogue alone is processed (MB-STATUS-3)
    preamble-left-uncounted     the content counted from its first delimiter line, the preamble
                                skipped as it is ignored, so content over max_batch_bytes by
                                its preamble alone is processed (MB-STATUS-3)

Each takes the uncounted octets out of the batch content before the reference server sees it,
which then processes the rest as it would (the preamble and the epilogue carry nothing).
"""

from __future__ import annotations

import re

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import boundary_of, is_batch
from mixbatch_conformance.transport.relay import RelayRequest

__all__ = ["PLANTS"]


def _without_epilogue(req: RelayRequest) -> None:
    b = boundary_of(req)
    if not is_batch(req) or not b:
        return
    close = b"\r\n--" + b.encode("latin-1") + b"--"
    end = req.body.rfind(close)
    if end >= 0:
        req.body = req.body[: end + len(close)]


def _without_preamble(req: RelayRequest) -> None:
    b = boundary_of(req)
    if not is_batch(req) or not b:
        return
    first = re.search(rb"(?:^|\r\n)(--" + re.escape(b.encode("latin-1")) + rb")", req.body)
    if first is not None:
        req.body = req.body[first.start(1) :]


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "epilogue-left-uncounted",
        "MB-STATUS-3 content over max_batch_bytes by its epilogue processed",
        ("limit-batch-bytes-counts-epilogue",),
        on_request=_without_epilogue,
    ),
    Mutation(
        "preamble-left-uncounted",
        "MB-STATUS-3 content over max_batch_bytes by its preamble processed",
        ("limit-batch-bytes-counts-preamble",),
        on_request=_without_preamble,
    ),
)
