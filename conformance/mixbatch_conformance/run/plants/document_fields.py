"""Planted violations of MB-SEC-2 in the 207 forms: a miss's field raised to the header section.

A framework's router answers a miss with fields of its own (Go's net/http adds
`X-Content-Type-Options: nosniff`), alone and in a part. The plant models a server whose
misses carry that field, alone, in a multipart part and in a 207 entry, and whose JSON and XML
forms copy it to the batch response's header section, as a server reasoning that the document
carries that part's content would: "A server MUST NOT copy a header field of a sub-response
into the header section of the batch response". The reference server's own 404 carries no
such field, so a check that learnt its top-level fields from a batch of one miss would see the
copy there too and pass it.
"""

from __future__ import annotations

import json
import re

from mixbatch_conformance.run.mutations import Mutation, write_parts
from mixbatch_conformance.run.plants._edits import boundary_of, field_of, is_batch, parts_of
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

NOSNIFF = ("X-Content-Type-Options", "nosniff")
#: An XML multistatus entry's status line for a 404, with what follows it up to the entry's end.
_XML_404 = re.compile(rb"(<D:status>HTTP/1\.1 404[^<]*</D:status>)")


def _miss_field_raised(req: RelayRequest, resp: RelayResponse) -> None:
    if not is_batch(req):
        if resp.status == 404:
            resp.headers.append(NOSNIFF)
        return
    ctype = resp.get("Content-Type") or ""
    b = boundary_of(resp)
    if resp.status == 200 and b:
        parts = parts_of(resp.body, b)
        if parts is not None:
            marked = [
                ([*f, NOSNIFF] if field_of(f, "Http-Status-Code") == "404" else f, body)
                for f, body in parts
            ]
            resp.body = write_parts(marked, b)
        return
    if resp.status != 207:
        return
    raised = False
    if "json" in ctype:
        doc = json.loads(resp.body)
        for entry in doc.get("responses", []) if isinstance(doc, dict) else []:
            if isinstance(entry, dict) and entry.get("status") == 404:
                entry.setdefault("headers", []).append(list(NOSNIFF))
                raised = True
        resp.body = json.dumps(doc).encode()
    elif "xml" in ctype:
        header = b'<mb:header name="X-Content-Type-Options">nosniff</mb:header>'
        resp.body, count = _XML_404.subn(lambda m: m.group(1) + header, resp.body)
        raised = count > 0
    if raised:
        # The document carries the miss's content: keep browsers from sniffing it.
        resp.headers.append(NOSNIFF)


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "miss-nosniff-raised-in-documents",
        "MB-SEC-2 a miss's X-Content-Type-Options copied to the header section of the JSON and XML forms",
        ("top-level-fields-independent-of-parts", "sub-response-fields-not-at-top"),
        on_response=_miss_field_raised,
    ),
)
