"""Planted violations of what a request in absolute-form is addressed to (RFC 9112 §3.2.2;
spec 3.2.2, 8.4, 14.4).

A batch endpoint that builds the batch's target URI from the request-target string as received,
so that under `POST http://host:port/batch` the base path relative references resolve against is
`http://host:port/batch`: a part naming the endpoint by a relative reference (`<batch>`,
`<./batch>`, `<x/../batch>`, `<>`) resolves to a path that is no endpoint and runs as an
ordinary part instead of refusing the batch (MB-SUB-4). And an echo that reports as the
authority of a request in absolute-form its Host field line, not the request-target's authority
(MB-TEST-2). And a batch endpoint that takes the origin of a batch in absolute-form from the
request-target as written, so under `POST HTTP://host:port/batch` an absolute part target on
`http://host:port` is refused as another origin (MB-SUB-2).
"""

from __future__ import annotations

import json
import posixpath
import re
from urllib.parse import urlsplit

from mixbatch_conformance.checks._shared.resolution import remove_dot_segments
from mixbatch_conformance.run.mutations import Mutation, write_parts
from mixbatch_conformance.run.plants._edits import (
    boundary_of,
    field_of,
    is_batch,
    parts_of,
    problem,
    set_field,
)
from mixbatch_conformance.run.plants.resolution import CONTENT_ID
from mixbatch_conformance.transport.relay import RelayRequest, RelayResponse

__all__ = ["PLANTS"]

#: A request-target in absolute-form: a scheme, then "//" (RFC 9112 §3.2.2).
_ABSOLUTE_FORM = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
#: Where the planted batch endpoint keeps, per connection, each reference it rewrote.
_REWRITTEN = "absolute-form-rewritten-references"


def _relative_path(ref: str) -> bool:
    """A reference with no scheme and no authority whose path is not absolute."""
    split = urlsplit(ref)
    return not split.scheme and not ref.startswith("/")


def _as_received(target: str, ref: str) -> str:
    """`ref` resolved against `target`, the request-target string, taken whole as the base
    path (RFC 3986 §5.2.2 and §5.2.3 with that path), written as the path-absolute reference
    the planted server routes."""
    base, _, base_query = target.partition("?")
    split = urlsplit(ref)
    query = f"?{split.query}" if split.query or "?" in ref else ""
    if not split.path:
        path = base
        query = query or (f"?{base_query}" if base_query else "")
    else:
        path = remove_dot_segments(posixpath.dirname(base) + "/" + split.path)
    return "/" + path.lstrip("/") + query


def _base_as_received(req: RelayRequest) -> None:
    """Each relative reference of a batch sent in absolute-form resolved against the
    request-target string as the base path, and remembered so its echo can be restored."""
    if not is_batch(req) or not _ABSOLUTE_FORM.match(req.target):
        return
    rewritten: dict[str, str] = {}

    def rewrite(m: re.Match[bytes]) -> bytes:
        ref = m.group(2).decode("latin-1")
        if not _relative_path(ref):
            return m.group(0)
        planted = _as_received(req.target, ref)
        rewritten[planted] = ref
        return m.group(1) + planted.encode("latin-1") + m.group(3)

    req.body = CONTENT_ID.sub(rewrite, req.body)
    req.connection[_REWRITTEN] = rewritten


def _echoes_restored(req: RelayRequest, resp: RelayResponse) -> None:
    """Each response part's Content-Id echo written as the client sent it: the planted server
    echoes the field as received and resolves it wrongly only for routing."""
    rewritten = req.connection.pop(_REWRITTEN, None)
    b = boundary_of(resp)
    if not isinstance(rewritten, dict) or not rewritten or not b:
        return
    parts = parts_of(resp.body, b)
    if parts is None:
        return
    out = []
    for fields, body in parts:
        echoed = (field_of(fields, "Content-Id") or "").strip()
        original = rewritten.get(echoed.removeprefix("<").removesuffix(">"))
        if original is not None:
            fields = set_field(fields, "Content-Id", f"<{original}>")
        out.append((fields, body))
    resp.body = write_parts(out, b)


def _authority_from_host_line(req: RelayRequest, resp: RelayResponse) -> None:
    """The echo of a request in absolute-form says it was addressed to the Host field line."""
    host = req.get("Host")
    if is_batch(req) or not _ABSOLUTE_FORM.match(req.target) or host is None:
        return
    if "json" not in (resp.get("Content-Type") or ""):
        return
    try:
        doc = json.loads(resp.body)
    except ValueError:
        return
    if isinstance(doc, dict) and "authority" in doc and "method" in doc and "target" in doc:
        doc["authority"] = host
        resp.body = json.dumps(doc).encode()


#: An absolute part target (a Content-Id naming a scheme and "//").
_ABSOLUTE_PART = re.compile(rb"(?im)^Content-Id:[ \t]*<[A-Za-z][A-Za-z0-9+.-]*://")


def _scheme_compared_as_written(req: RelayRequest, resp: RelayResponse) -> None:
    """The batch's origin taken from an absolute-form request-target as written and compared
    with each absolute part target's without folding case: under `POST HTTP://host:port/...`
    a part naming `http://host:port/...` is taken for another origin and refused."""
    if not is_batch(req) or not _ABSOLUTE_FORM.match(req.target):
        return
    scheme = req.target.split(":", 1)[0]
    if scheme != scheme.lower() and _ABSOLUTE_PART.search(req.body):
        problem(resp, 400, "MB-SUB-2")


P = Mutation
PLANTS: tuple[Mutation, ...] = (
    P(
        "absolute-form-base-as-received",
        "MB-SUB-4 a batch in absolute-form resolving its parts against the request-target string as a path, so a relative reference to the endpoint runs",
        ("batch-absolute-form-as-origin-form",),
        on_request=_base_as_received,
        on_response=_echoes_restored,
    ),
    P(
        "echo-authority-from-host-line",
        "MB-TEST-2 the echo of a request in absolute-form reporting its Host field line as the authority",
        ("test-resource-echo-absolute-form-authority",),
        on_response=_authority_from_host_line,
    ),
    P(
        "absolute-form-scheme-compared-as-written",
        "MB-SUB-2 a batch sent to HTTP://host:port/... refusing its part naming http://host:port/... as another origin",
        ("batch-absolute-form-as-origin-form",),
        on_response=_scheme_compared_as_written,
    ),
)
