"""Planted limits counted in characters rather than octets (spec 9.1: MB-STATUS-3).

Spec 9.1 counts `max_part_header_bytes`, `max_part_bytes` and `max_batch_bytes` in octets. A
server that measures a section or a body as decoded text (UTF-8 code points, runes, a string's
length) counts a two-octet character once, so content written in such characters one octet
over the limit counts as within it. Each plant lifts the reference server's refusal of one
limit when the refused content holds multi-octet UTF-8: the batch is answered as processed.
"""

from __future__ import annotations

import json
import re

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import RespEdit, fake_processed
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: A UTF-8 sequence of two to four octets: one character a character count counts once.
_MULTI_OCTET = re.compile(rb"[\xc2-\xf4][\x80-\xbf]{1,3}")


def _counted_in_characters(limit: str) -> RespEdit:
    """A refusal naming `limit`, of content holding multi-octet characters, becomes a 200."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        if resp.status not in (413, 431) or _MULTI_OCTET.search(req.body) is None:
            return
        try:
            doc = json.loads(resp.body)
        except ValueError:
            return
        if isinstance(doc, dict) and doc.get("limit") == limit:
            fake_processed(req, resp)

    return edit


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    # MB-STATUS-3 and spec 9.1: "the octets of one part header section".
    P(
        "part-header-bytes-counted-in-characters",
        "MB-STATUS-3 max_part_header_bytes counted in UTF-8 characters",
        (
            "limit-part-header-bytes-one-over-multi-octet",
            "limit-part-header-bytes-one-over-multi-octet-chunked",
        ),
        on_response=_counted_in_characters("max_part_header_bytes"),
    ),
    # MB-STATUS-3 and spec 9.1: "the octets of one part body".
    P(
        "part-bytes-counted-in-characters",
        "MB-STATUS-3 max_part_bytes counted in UTF-8 characters",
        (
            "limit-part-bytes-one-over-multi-octet",
            "limit-part-bytes-one-over-multi-octet-undeclared",
        ),
        on_response=_counted_in_characters("max_part_bytes"),
    ),
    # MB-STATUS-3 and spec 9.1: "the octets of the batch request's content".
    P(
        "batch-bytes-counted-in-characters",
        "MB-STATUS-3 max_batch_bytes counted in UTF-8 characters",
        (
            "limit-batch-bytes-one-over-multi-octet",
            "limit-batch-bytes-one-over-multi-octet-chunked",
        ),
        on_response=_counted_in_characters("max_batch_bytes"),
    ),
)
