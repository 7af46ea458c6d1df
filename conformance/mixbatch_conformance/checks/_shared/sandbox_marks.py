"""A sandbox write the suite can recognise afterwards, for checks that a refused batch ran
nothing: a POST of the target's `sandbox.member` document with a fresh marker in every string
member, which a collection retrieval of the sandbox shows if the POST ran.
"""

from __future__ import annotations

import json
import secrets

from mixbatch_conformance.checks._shared.collections import created_path
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge

__all__ = [
    "MARKER_PREFIX",
    "created_member",
    "marked_document",
    "marked_member",
    "marked_post",
    "posted_member",
]

#: How every marker begins: a value no sandbox holds unless one of these writes ran.
MARKER_PREFIX = "mb-suite-must-not-exist-"


def marked_document(ctx: Context, marker: str) -> bytes | None:
    """The target's `sandbox.member` document with every string member set to `marker`; None
    without a document holding a string member."""
    member = ctx.target.sandbox_member
    if member is None:
        return None
    # MB-TEST-3: "a check may change the values of its string members to tell its writes
    # apart".
    doc = json.dumps({k: marker if isinstance(v, str) else v for k, v in member.items()})
    return doc.encode() if marker in doc else None


def marked_member(ctx: Context, judge: Judge, marker: str) -> bytes:
    """The target's `sandbox.member` document with every string member set to `marker` (N/A
    without a document holding a string member)."""
    if ctx.target.sandbox_member is None:
        judge.not_applicable("the target declares no sandbox.member document to write")
    doc = marked_document(ctx, marker)
    if doc is None:
        judge.not_applicable("sandbox.member has no string member to mark a write with")
    return doc


def marked_post(ctx: Context, judge: Judge, coll: str) -> tuple[str, SubRequest]:
    """A fresh marker and a POST to the sandbox collection `coll` writing a member marked with
    it (N/A without a sandbox.member document holding a string member)."""
    marker = f"{MARKER_PREFIX}{secrets.token_hex(6)}"
    body = marked_member(ctx, judge, marker)
    return marker, SubRequest("POST", coll, (("Content-Type", "application/json"),), body)


def posted_member(ctx: Context, judge: Judge, coll: str, marker: str) -> str:
    """The Location a POST alone to the sandbox collection `coll` of a member marked with
    `marker` answers (a setup error unless it answers 201 with a Location)."""
    resp = ctx.alone(
        judge,
        SubRequest(
            "POST", coll, (("Content-Type", "application/json"),), marked_member(ctx, judge, marker)
        ),
    )
    location = resp.get("Location")
    if resp.status != 201 or not location:
        judge.setup_error(f"POST {coll} answered {resp.status} without a Location to use")
    return location


def created_member(ctx: Context, judge: Judge, coll: str, marker: str) -> str:
    """A new sandbox member marked with `marker`, created alone; its path (the Location,
    resolved against the collection the POST went to, MB-RESP-7 and RFC 9110 §10.2.2)."""
    path = created_path(ctx, coll, posted_member(ctx, judge, coll, marker))
    assert path is not None
    return path
