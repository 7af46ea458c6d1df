"""A collection retrieval answers every member, however many (spec 4.2, MB-METHOD-4).

Theory of operation: MB-METHOD-4 answers a collection retrieval with "one part per member of
the collection". A server built on a store that lists a page at a time, or that caps a listing
(the first 100, 500 or 1000 members, as list endpoints commonly do), answers small collections
as the requirement says and leaves members out of a large one. The declared collection is
read-only and may be small, so the check fills the sandbox collection itself: it creates
`MEMBERS` members of its own with batches of POSTs (as many parts to a batch as the target's
published limits allow), retrieves the sandbox collection with `Accept: multipart/mixed`, and
expects a part naming each member it created, exactly once. Other clients' members may be
there too, so the parts are never counted. N/A unless the sandbox collection answers a
collection retrieval (200 `multipart/mixed`) once it holds a member of the check's. Every
member created is deleted at the end with batches of DELETEs (MB-TEST-3).
"""

from __future__ import annotations

import json
import secrets
from collections import Counter
from typing import Any
from urllib.parse import urljoin, urlsplit

from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.validator import read_multipart
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

#: Members the check creates: past 1000, the largest page size list endpoints commonly use
#: (100, 500 and 1000 among them).
MEMBERS = 1001
#: Parts to a batch when the target publishes no max_parts: well below any limit the spec's
#: examples use, so that the batches of the check are ordinary ones.
PARTS_PER_BATCH = 250
#: Octets a batch may take beyond its parts' content (part fields, delimiters), per part.
PART_OVERHEAD = 200
JSON_FIELDS = (("Content-Type", "application/json"),)
RETRIEVAL = (("Accept", "multipart/mixed"),)


def _per_batch(ctx: Context, doc: bytes) -> int:
    """How many POSTs of `doc` one batch may carry under the target's published limits."""
    n = PARTS_PER_BATCH
    parts = ctx.limit("max_parts")
    if parts:
        n = min(n, parts)
    octets = ctx.limit("max_batch_bytes")
    if octets:
        n = min(n, max(1, octets // (len(doc) + PART_OVERHEAD)))
    return max(1, n)


def _member_path(coll: str, location: str | None) -> str | None:
    if not location:
        return None
    return urlsplit(urljoin(coll.rstrip("/") + "/", location)).path


def _retrieve(ctx: Context, judge: Judge, coll: str) -> Response:
    return ctx.send(judge, ctx.raw_request("GET", coll, RETRIEVAL))


def _named(ctx: Context, judge: Judge, coll: str, resp: Response) -> Counter[str]:
    """How many parts of a retrieval name each member path."""
    _, params = judge.media_type("retrieval Content-Type", resp.get("Content-Type"), "MB-WIRE-3")
    env = read_multipart(resp.body, params.get("boundary", ""))
    base = f"{ctx.scheme}://{ctx.authority}{coll}"
    # MB-METHOD-6: a Content-Id "naming the member, resolvable against the collection's URI".
    return Counter(
        urlsplit(urljoin(base, (p.get("Content-Id") or "<>").strip(" \t")[1:-1])).path
        for p in env.parts
    )


def _tagged(member: dict[str, Any], tag: str) -> bytes:
    # MB-TEST-3: "a check may change the values of its string members to tell its writes
    # apart".
    return json.dumps({k: tag if isinstance(v, str) else v for k, v in member.items()}).encode()


@checker(
    "sandbox-collection-every-member-retrieved",
    ("MB-METHOD-4",),
    "After the suite creates 1001 members of the sandbox collection with batches of POSTs, its collection retrieval has exactly one part naming each of them.",
    profile="collection-get",
    state=State.WRITES_IN_SANDBOX,
    tier="standard",
)
def every_member_retrieved(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    member = ctx.target.sandbox_member
    if member is None:
        judge.not_applicable("the target declares no sandbox.member document to write")
    doc = _tagged(member, f"mb-suite many {secrets.token_hex(4)}")
    made: list[str] = []
    try:
        first = ctx.alone(judge, SubRequest("POST", coll, JSON_FIELDS, doc))
        path = _member_path(coll, first.get("Location"))
        if first.status != 201 or path is None:
            judge.setup_error(f"POST {coll} alone answered {first.status} without a Location")
        made.append(path)
        probe = _retrieve(ctx, judge, coll)
        if probe.status != 200 or probe.media_type != "multipart/mixed":
            judge.not_applicable(
                f"GET {coll} with Accept: multipart/mixed answered {probe.status} "
                f"{probe.media_type!r}: no collection retrieval"
            )
        per_batch = _per_batch(ctx, doc)
        while len(made) < MEMBERS:
            posts = [
                SubRequest("POST", coll, JSON_FIELDS, doc)
                for _ in range(min(per_batch, MEMBERS - len(made)))
            ]
            env = ctx.read_batch(judge, ctx.batch(judge, posts))
            before = len(made)
            for i, part in enumerate(env.parts):
                where = _member_path(coll, part.get("Location"))
                if part_status(env, i) == 201 and where is not None:
                    made.append(where)
            if len(made) == before:
                judge.setup_error(f"a batch of {len(posts)} POSTs to {coll} created no member")
        named = _named(ctx, judge, coll, _retrieve(ctx, judge, coll))
        missing = [p for p in made if named[p] == 0]
        repeated = [p for p in made if named[p] > 1]
        # MB-METHOD-4: "one part per member of the collection": every member, however many the
        # collection holds, and each once.
        judge.expect_true(
            f"parts naming the {len(made)} members the suite created",
            not missing and not repeated,
            f"{len(missing)} with no part (first {missing[:3]}), "
            f"{len(repeated)} with more than one (first {repeated[:3]}), "
            f"of {sum(named.values())} parts",
            "exactly one part naming each member created",
            "MB-METHOD-4",
        )
    finally:
        _delete(ctx, judge, made)


def _delete(ctx: Context, judge: Judge, made: list[str]) -> None:
    """Delete every member in `made` with batches of DELETEs, alone where a batch fails."""
    paths = list(dict.fromkeys(made))
    per_batch = _per_batch(ctx, b"")
    for start in range(0, len(paths), per_batch):
        chunk = paths[start : start + per_batch]
        resp = ctx.batch(judge, [SubRequest("DELETE", p) for p in chunk])
        if resp.status != 200:
            for p in chunk:
                ctx.alone(judge, SubRequest("DELETE", p))
