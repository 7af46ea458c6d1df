"""Sub-requests that several check modules build from the target's declared resources.

Theory of operation: a check names the resources it needs through `Context.resource`, which
makes it N/A when the target declares none; the helpers here are the few requests more than
one topic sends (a GET of `ok` and of `not_found`, a GET of a path no resource is routed
at, a standalone precondition, the current ETag of `etag_resource`, a new sandbox member,
the listing of the sandbox collection).
"""

from __future__ import annotations

import json
import re
import secrets

from mixbatch_conformance.checks._shared.collections import created_path
from mixbatch_conformance.checks._shared.sandbox_marks import MARKER_PREFIX, created_member
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge

__all__ = [
    "UNROUTED_PATH",
    "etag_of",
    "new_member",
    "ok_and_not_found",
    "require_alone",
    "sandbox_listing",
    "unrouted",
]

#: A path under the base URL that no declared resource names: the router's own miss, which a
#: framework answers with fields of its own (Go's net/http adds X-Content-Type-Options).
UNROUTED_PATH = "/mb-unrouted-3c9f1e7a/x"


def ok_and_not_found(ctx: Context, judge: Judge) -> tuple[SubRequest, SubRequest]:
    """GET parts for the target's `ok` and `not_found` resources."""
    ok = ctx.path(ctx.resource(judge, "ok"))
    nf = ctx.path(ctx.resource(judge, "not_found"))
    return SubRequest("GET", ok), SubRequest("GET", nf)


def unrouted(ctx: Context) -> SubRequest:
    """A GET of a path no resource is routed at, answered by the router's miss."""
    return SubRequest("GET", ctx.path(UNROUTED_PATH))


def require_alone(ctx: Context, judge: Judge, sub: SubRequest, statuses: set[int]) -> None:
    """SETUP-ERROR unless `sub`, sent alone, is answered with one of `statuses`."""
    resp = ctx.alone(judge, sub)
    if resp.status not in statuses:
        judge.setup_error(f"{sub.method} {sub.target} alone answered {resp.status}, not {statuses}")


def etag_of(ctx: Context, judge: Judge) -> tuple[str, str]:
    """The `etag_resource` path and the ETag it answers alone (SETUP-ERROR without one)."""
    path = ctx.path(ctx.resource(judge, "etag_resource"))
    alone = ctx.alone(judge, SubRequest("GET", path))
    etag = alone.get("ETag")
    if alone.status != 200 or not etag:
        judge.setup_error(f"GET {path} alone answered {alone.status} with ETag {etag!r}")
    return path, etag


def new_member(ctx: Context, judge: Judge) -> tuple[str, bytes]:
    """A member the check creates alone by POSTing the target's `sandbox.member` document to
    the sandbox collection: its path and the document's octets (N/A without a declared
    document, SETUP-ERROR unless the POST answers 201 with a Location, MB-TEST-3)."""
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    member = ctx.target.sandbox_member
    if member is None:
        judge.not_applicable("the target declares no sandbox.member document to write")
    doc = json.dumps(member).encode()
    created = ctx.alone(
        judge, SubRequest("POST", coll, (("Content-Type", "application/json"),), doc)
    )
    location = created.get("Location")
    if created.status != 201 or not location:
        judge.setup_error(f"POST {coll} alone answered {created.status} with Location {location!r}")
    path = created_path(ctx, coll, location)
    assert path is not None
    return path, doc


#: The most members a listing read member by member fetches.
MAX_LISTED_MEMBERS = 256
#: A path (or an absolute URI's path) in a collection's own answer: the members it names.
_NAMED_PATH = re.compile(rb"""(?:[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s"'<>]*)?(/[^\s"'<>,;()\[\]{}]*)""")
#: By target and collection: whether the sandbox's own answer to GET was seen to name a member
#: a POST created.
_NAMES_ITS_MEMBERS: dict[tuple[str, str], bool] = {}


def sandbox_listing(ctx: Context, judge: Judge, coll: str) -> bytes:
    """What the sandbox's members hold, for a check that a write ran or did not.

    A collection retrieval shows them (MB-STATUS-7, -11), the one listing the spec defines.
    A sandbox that answers GET otherwise (a JSON array of its members, or of their paths) is
    read from that answer and member by member: the paths under the collection it names, each
    fetched alone. That reading
    is used only once it was seen to show a member a POST created alone (which it
    then deletes); without either, the effect of a POST cannot be observed (N/A).
    """
    resp = ctx.send(judge, ctx.raw_request("GET", coll, [("Accept", "multipart/mixed")]))
    if resp.status == 204:
        return b""
    if resp.status == 200 and resp.media_type == "multipart/mixed":
        return resp.body
    if resp.status == 200 and _names_its_members(ctx, judge, coll):
        return _members_one_by_one(ctx, judge, coll, resp.body)
    judge.not_applicable(
        f"GET {coll} with Accept: multipart/mixed answered {resp.status} "
        f"{resp.media_type!r}, which names no member a POST creates, so the sandbox's "
        "members cannot be listed"
    )


def _members_one_by_one(ctx: Context, judge: Judge, coll: str, answer: bytes) -> bytes:
    """`answer` (a listing may hold its members' contents), then the contents of the members
    under `coll` that it names, each fetched alone."""
    prefix = coll.rstrip("/").encode() + b"/"
    named = dict.fromkeys(
        m.group(1) for m in _NAMED_PATH.finditer(answer) if m.group(1).startswith(prefix)
    )
    held = bytearray(answer + b"\n")
    for path in list(named)[:MAX_LISTED_MEMBERS]:
        got = ctx.alone(judge, SubRequest("GET", path.decode("ascii", "replace")))
        if got.status == 200:
            held += got.body + b"\n"
    return bytes(held)


def _names_its_members(ctx: Context, judge: Judge, coll: str) -> bool:
    """Whether the sandbox's answer to GET names a member a POST created alone (learnt once a
    target; the member is deleted again)."""
    key = (ctx.target.base_url, coll)
    if key not in _NAMES_ITS_MEMBERS:
        marker = f"{MARKER_PREFIX}{secrets.token_hex(6)}"
        member = created_member(ctx, judge, coll, marker)
        listed = ctx.send(judge, ctx.raw_request("GET", coll, [("Accept", "multipart/mixed")]))
        seen = listed.status == 200 and marker.encode() in _members_one_by_one(
            ctx, judge, coll, listed.body
        )
        ctx.alone(judge, SubRequest("DELETE", member))
        _NAMES_ITS_MEMBERS[key] = seen
    return _NAMES_ITS_MEMBERS[key]
