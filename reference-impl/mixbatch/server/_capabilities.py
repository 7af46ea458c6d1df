"""The capabilities document answered to ``OPTIONS`` on the batch endpoint (MB-LIMIT-2).

MB-LIMIT-1: "A server enforces and publishes limits on part count, batch octets, part octets
and part header octets", and MB-LIMIT-5 adds the field lines of a part header section
(``max_part_fields``). The limits published here are read from the same ``Limits`` object the
parser enforces, so the two cannot disagree. The budget of batches in flight (MB-LIMIT-6) is
published beside them as ``max_batches_in_flight`` when the caller passes the number its
``BatchBudget`` enforces, so that a client (and the conformance suite) can know when a batch
will be refused with 503 before any part runs. The document follows
spec/schemas/capabilities.schema.json.
"""

from __future__ import annotations

import json
from typing import Any

from mixbatch._constants import CAPABILITIES_MEDIA_TYPE, SPEC_VERSION
from mixbatch._constants import SERVER_PROFILES as PROFILES
from mixbatch._http.messages import Response
from mixbatch.codec import Limits

from ._multistatus import JSON_MEDIA_TYPE, XML_MEDIA_TYPE

__all__ = [
    "CAPABILITIES_MEDIA_TYPE",
    "PREFERENCES",
    "PROFILES",
    "REPRESENTATIONS",
    "SPEC_VERSION",
    "capabilities",
    "capabilities_response",
]

#: Batch representations in preference order; multipart/mixed is always first (MB-MULTI-1).
REPRESENTATIONS = ("multipart/mixed", XML_MEDIA_TYPE, JSON_MEDIA_TYPE)
#: RFC 7240 preferences honoured, as they appear in Preference-Applied.
PREFERENCES = ("batch-on-error=continue", "batch-on-error=stop")


def capabilities(
    limits: Limits, endpoint: str, *, batches_in_flight: int | None = None
) -> dict[str, Any]:
    """The capabilities document for a batch endpoint at ``endpoint`` enforcing ``limits``,
    and holding at most ``batches_in_flight`` batches at once when that is given."""
    published: dict[str, Any] = dict(limits.as_document())
    if batches_in_flight is not None:
        # MB-LIMIT-6: a server "SHOULD bound the batches it holds in flight"; spec 9.1 lets it
        # publish that number as max_batches_in_flight.
        published["max_batches_in_flight"] = batches_in_flight
    return {
        "spec_version": SPEC_VERSION,
        "endpoint": endpoint,
        "limits": published,
        "profiles": list(PROFILES),
        "representations": list(REPRESENTATIONS),
        "preferences": list(PREFERENCES),
    }


def capabilities_response(
    limits: Limits, endpoint: str, allow: str, *, batches_in_flight: int | None = None
) -> Response:
    """200 with the capabilities document, Accept-Post and Allow."""
    document = capabilities(limits, endpoint, batches_in_flight=batches_in_flight)
    body = json.dumps(document, separators=(",", ":")).encode("ascii")
    return Response(
        200,
        [
            ("Content-Type", CAPABILITIES_MEDIA_TYPE),
            ("Accept-Post", "multipart/mixed"),
            ("Allow", allow),
        ],
        body,
    )
