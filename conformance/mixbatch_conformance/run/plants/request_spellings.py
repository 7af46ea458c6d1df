"""Planted violations that show only for a request spelt otherwise than usual: the batch over
HTTP/1.0, a path holding percent-encoded octets, a part naming a lookalike of the batch
endpoint (spec 6.3, 8.4, 14.4).

An XML form whose DAV:status lines are written with the batch request's HTTP version, as the
server's own status line is (MB-MULTI-6). A router that decodes percent-encoded unreserved
characters before routing, whose echo then reports the decoded path (MB-TEST-2). A nesting
test that trims a trailing slash, or folds case, before comparing a part's path with the batch
endpoint's, so a part naming a path the router sends elsewhere refuses the batch (MB-SUB-4).
A router that decodes percent-encoded unreserved characters, so that a batch sent to
`/%62atch` reaches the batch endpoint, beside a nesting test that compares a part's path with
the path the batch arrived on: a part naming `/batch` in such a batch runs as an ordinary
sub-request (MB-SUB-4).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import urlsplit

from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants._edits import BATCH_PATH, is_batch, problem
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: RFC 3986 §2.3: the unreserved characters, whose percent-encodings a router may decode.
_UNRESERVED = re.compile(
    r"%(4[1-9A-Fa-f]|5[0-9Aa]|6[1-9A-Fa-f]|7[0-9Aa]|3[0-9]|2[DEde]|5[Ff]|7[Ee])"
)
#: The path of each part's Content-Id reference.
_CONTENT_ID = re.compile(rb"(?im)^Content-Id:[ \t]*<([^>]*)>")


def _status_line_request_version(req: RelayRequest, resp: RelayResponse) -> None:
    """The 207 XML form's DAV:status lines carry the request's HTTP version."""
    if req.version == "1.1" or resp.status != 207 or b"multistatus" not in resp.body:
        return
    resp.body = re.sub(
        rb"(<([A-Za-z]+:)?status>)HTTP/1\.1 ", rb"\1HTTP/" + req.version.encode() + b" ", resp.body
    )


def _decoded_before_routing(req: RelayRequest) -> None:
    """The path is decoded before routing, and the resource sees the decoded target."""
    path, sep, query = req.target.partition("?")
    decoded = _UNRESERVED.sub(lambda m: chr(int(m[1], 16)), path)
    req.target = decoded + sep + query


def _nested_by(fold: str) -> Callable[[RelayRequest, RelayResponse], None]:
    """A nesting test that compares a part's path with the endpoint's after `fold`."""

    def edit(req: RelayRequest, resp: RelayResponse) -> None:
        if not is_batch(req) or resp.status != 200:
            return
        endpoint = req.target.partition("?")[0]
        for ref in _CONTENT_ID.findall(req.body):
            path = urlsplit(ref.decode("latin-1")).path
            if path == endpoint:
                continue
            folded = path.rstrip("/") if fold == "slash" else path.lower()
            if folded == (endpoint if fold == "slash" else endpoint.lower()):
                problem(resp, 400, "MB-SUB-4")
                return

    return edit


#: The path a nested part is run as when the planted nesting test lets it through (no
#: resource: the part is answered 404).
_RUN_AS = "/mb-planted-nested-part"


def _arrival_path_nesting(req: RelayRequest) -> None:
    """A batch sent to an encoded spelling of the endpoint routed there, its parts naming the
    endpoint's own path let through."""
    path, sep, query = req.target.partition("?")
    decoded = _UNRESERVED.sub(lambda m: chr(int(m[1], 16)), path)
    if not is_batch(req) or path == BATCH_PATH or decoded != BATCH_PATH:
        return
    req.target = BATCH_PATH + sep + query
    req.body = re.sub(
        rb"(?im)^(Content-Id:[ \t]*<)" + re.escape(BATCH_PATH.encode()) + rb">",
        rb"\g<1>" + _RUN_AS.encode() + b">",
        req.body,
    )
    req.connection[_RUN_AS] = True


def _arrival_ids_restored(req: RelayRequest, resp: RelayResponse) -> None:
    if req.connection.pop(_RUN_AS, None):
        resp.body = resp.body.replace(f"<{_RUN_AS}>".encode(), f"<{BATCH_PATH}>".encode())


PLANTS: tuple[Mutation, ...] = (
    Mutation(
        "xml-status-line-request-version",
        "MB-MULTI-6 the XML form's DAV:status written with the batch request's version, "
        "HTTP/1.0 200 OK for a batch sent over HTTP/1.0",
        ("http10-batch-in-every-form",),
        on_response=_status_line_request_version,
    ),
    Mutation(
        "echo-target-decoded-path",
        "MB-TEST-2 a router that decodes percent-encoded unreserved characters, the echo "
        "reporting the decoded path as its target",
        ("echo-target-path-octets-as-received",),
        on_request=_decoded_before_routing,
    ),
    Mutation(
        "nesting-test-trailing-slash-trimmed",
        "MB-SUB-4 a part naming the endpoint's path with a trailing slash, routed elsewhere, "
        "refused as a nested batch",
        ("nesting-unrouted-lookalikes-run",),
        on_response=_nested_by("slash"),
    ),
    Mutation(
        "nesting-test-case-folded",
        "MB-SUB-4 a part naming the endpoint's path in another case, routed elsewhere, refused "
        "as a nested batch",
        ("nesting-unrouted-lookalikes-run",),
        on_response=_nested_by("case"),
    ),
    Mutation(
        "nesting-test-on-arrival-path",
        "MB-SUB-4 a batch sent to an encoded spelling of the endpoint runs a part naming the "
        "endpoint",
        ("nesting-routed-spellings-refused",),
        on_request=_arrival_path_nesting,
        on_response=_arrival_ids_restored,
    ),
)
