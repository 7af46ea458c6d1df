"""The sandbox collection's retrieval after sequences of writes (spec 4.2; MB-METHOD-4,
MB-METHOD-7).

Theory of operation: MB-METHOD-4 answers a collection retrieval "with one part per member of
the collection", and MB-METHOD-7 lets its aggregate `ETag` be strong only while "every octet of
the representation, boundary included, is a function of the collection's state" (RFC 9110
§8.8.1: a strong validator changes "whenever the selected representation's octets do"). A store
keeps the collection's order and the members apart, and hashes its validators from some of what
a part carries; single writes leave them agreeing, sequences of writes are where they part:

- the same octets rewritten under another media type (the part's `Content-Type` changes, a
  member tag hashed from the content alone does not), and back, and the same octets under the
  same type again (a strong tag may stay then, and must not while the octets changed);
- a member deleted and created again under its own URI by a `PUT` (an order that kept the
  deleted id lists it twice), again under another media type;
- a `POST`, a `DELETE` of a member, and another `POST`.

The check creates its own members with POSTs of the target's `sandbox.member` (MB-TEST-3), and
runs each sequence three ways: every write and a retrieval of the collection after it as parts
of one batch (as few batches as a published `max_parts` allows, MB-LIMIT-3), each write with
its retrieval as a batch of its own, and each request alone. Every retrieval, in a part or
alone, is held to its members: no member is named by two parts, each of the check's members
that is there (created, not deleted since) is named by exactly one, and each it deleted by
none, Content-Ids resolved against the collection's URI (MB-METHOD-6) and a created member's
`Location` against the POST's (MB-RESP-7, RFC 9110 §10.2.2: a relative reference resolves
"against the target URI"). Every
two retrievals under the same strong aggregate tag must carry the same octets. The members of
other clients come and go in a shared sandbox: they are never counted, and a tag that changed
promises nothing.

What the spec leaves open is learnt from the answers, not assumed. A `PUT` to a member that
does not exist may create it (201) or be refused (404, 405), MB-TEST-3; content other than the
member document may be stored or refused (415, 413); a refused write leaves the member as it
was, and a member whose state an answer leaves unclear is not counted. N/A unless the sandbox
collection answers a collection retrieval (200 multipart/mixed, or 204) once it holds a member
of the check's. Every member the check created is deleted at the end (MB-TEST-3).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from mixbatch_conformance.checks._shared.collections import (
    created_path,
    judge_member_parts,
    retrieval_member_paths,
)
from mixbatch_conformance.checks._shared.part_limits import within_max_parts
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import expect_processed, part_status
from mixbatch_conformance.core.registry import State, checker

__all__: list[str] = []

RETRIEVAL = (("Accept", "multipart/mixed"),)
JSON_TYPE = "application/json"
#: The media types the same octets (the member document) are written under in turn: the same
#: type twice (an identical rewrite), then other types, a parameter added, and back.
SAME_OCTETS_TYPES = (
    JSON_TYPE,
    JSON_TYPE,
    "text/plain",
    "application/json; charset=utf-8",
    "application/octet-stream",
    "text/plain",
    JSON_TYPE,
)
#: MB-TEST-3: "a `PUT` to an existing member with 200 or 204"; "a `DELETE` of an existing
#: member with 200 or 204".
DONE = {200, 204}
#: MB-TEST-3: "a `PUT` to a member that does not exist with 201 (it created the member) or with
#: 404 or 405 (it refused)"; "a `DELETE` of a member that does not exist with 404 or 410".
REFUSED_ABSENT = {404, 405, 410}

#: One write: method, path ("" for the collection, whose POST creates), media type.
Write = tuple[str, str, str]
#: What a member is known to be: True there, False gone, None unknown (not counted).
Model = dict[str, bool | None]


@dataclass(frozen=True, slots=True)
class Retrieval:
    """A collection retrieval as answered: its status, strong tag and octets."""

    what: str
    status: int | None
    tag: str | None
    media: str
    body: bytes


def _strong(etag: str | None, status: int | None, media: str) -> str | None:
    tag = (etag or "").strip(" \t")
    if status != 200 or media.split(";")[0].strip().lower() != "multipart/mixed":
        return None
    return tag if tag and not tag.startswith("W/") else None


class _Sequences:
    """The check's members, what it knows of them, and every retrieval it saw."""

    def __init__(self, ctx: Context, judge: Judge, coll: str, doc: bytes) -> None:
        self.ctx, self.judge, self.coll, self.doc = ctx, judge, coll, doc
        self.model: Model = {}
        self.seen: list[Retrieval] = []

    def create(self) -> str:
        made = self.ctx.alone(
            self.judge, SubRequest("POST", self.coll, (("Content-Type", JSON_TYPE),), self.doc)
        )
        # MB-RESP-7 (RFC 9110 §10.2.2): the Location is resolved against the POST's target.
        loc = created_path(self.ctx, self.coll, made.get("Location"))
        if made.status != 201 or not loc:
            self.judge.setup_error(f"POST {self.coll} alone answered {made.status}")
        self.model[loc] = True
        return loc

    def _sub(self, write: Write) -> SubRequest:
        method, path, ctype = write
        if method == "DELETE":
            return SubRequest(method, path)
        return SubRequest(method, path or self.coll, (("Content-Type", ctype),), self.doc)

    def _wrote(self, write: Write, status: int | None, location: str | None) -> None:
        """The model after `write` answered `status` (MB-TEST-3)."""
        method, path, _ = write
        if method == "POST":
            # MB-RESP-7 (RFC 9110 §10.2.2): resolved against the POST's target, the collection.
            loc = created_path(self.ctx, self.coll, location)
            if status == 201 and loc:
                self.model[loc] = True
            return
        was = self.model.get(path)
        if method == "DELETE":
            if status in DONE or (was is False and status in REFUSED_ABSENT):
                self.model[path] = False
            elif status is None or status >= 500 or was is not False:
                self.model[path] = None
            return
        if status == 201 or (was is True and status in DONE):
            self.model[path] = True
        elif status is not None and 400 <= status < 500:
            # A refused write (415 for a media type it does not take, 404 or 405 for a PUT that
            # would create) leaves the member as it was.
            return
        else:
            self.model[path] = None

    def _judge_members(self, got: Retrieval) -> None:
        paths = retrieval_member_paths(self.ctx, self.coll, got.status, got.media, got.body)
        if paths is None:
            self.judge.note(f"{got.what}: answered {got.status} {got.media!r}, no retrieval")
            return
        self.seen.append(got)
        judge_member_parts(self.judge, got.what, paths, self.model)

    def retrieved_alone(self, what: str) -> None:
        resp = self.ctx.send(self.judge, self.ctx.raw_request("GET", self.coll, list(RETRIEVAL)))
        media = resp.get("Content-Type") or ""
        self._judge_members(
            Retrieval(
                what, resp.status, _strong(resp.get("ETag"), resp.status, media), media, resp.body
            )
        )

    def batch(self, what: str, writes: list[Write]) -> None:
        """Each write followed by a retrieval, as the parts of one batch (of as few batches as
        the published `max_parts` allows, MB-LIMIT-3)."""
        for run in within_max_parts(self.ctx, self.judge, writes, per_item=2):
            self._batch(what, run)

    def _batch(self, what: str, writes: list[Write]) -> None:
        subs: list[SubRequest] = []
        for write in writes:
            subs += [self._sub(write), SubRequest("GET", self.coll, RETRIEVAL)]
        resp = self.ctx.batch(self.judge, subs)
        env = expect_processed(self.ctx, self.judge, resp, [s.content_id for s in subs])
        for i, write in enumerate(writes):
            part = env.parts[2 * i]
            self._wrote(write, part_status(env, 2 * i), part.get("Location"))
            got = env.parts[2 * i + 1]
            status = part_status(env, 2 * i + 1)
            media = got.get("Content-Type") or ""
            self._judge_members(
                Retrieval(
                    f"{what}, part {2 * i + 1} after {write[0]} {write[1] or self.coll} "
                    f"({write[2] or 'no content'})",
                    status,
                    _strong(got.get("ETag"), status, media),
                    media,
                    got.body,
                )
            )

    def alone(self, what: str, writes: list[Write]) -> None:
        """Each write alone, followed by a retrieval alone."""
        for write in writes:
            sub = self._sub(write)
            resp = self.ctx.alone(self.judge, sub)
            self._wrote(write, resp.status, resp.get("Location"))
            self.retrieved_alone(f"{what}, after {write[0]} {write[1] or self.coll} alone")

    def judge_tags(self) -> None:
        """Every two retrievals under one strong tag carry the same octets (MB-METHOD-7)."""
        by_tag: dict[str, list[Retrieval]] = {}
        for got in self.seen:
            if got.tag is not None:
                by_tag.setdefault(got.tag, []).append(got)
        for tag, alike in by_tag.items():
            first = alike[0]
            for other in alike[1:]:
                # MB-METHOD-7: a strong aggregate tag "unless every octet of the
                # representation, boundary included, is a function of the collection's state";
                # RFC 9110 §8.8.1: a strong validator changes whenever the octets do.
                self.judge.expect_true(
                    f"{first.what} and {other.what}, under the strong tag {tag}",
                    other.body == first.body,
                    "the same octets" if other.body == first.body else "different octets",
                    "the same octets under the same strong tag",
                    "MB-METHOD-7",
                )

    def clean_up(self) -> None:
        # MB-TEST-3: "A suite deletes every member it creates before it finishes".
        for path, there in self.model.items():
            if there is not False:
                self.ctx.alone(self.judge, SubRequest("DELETE", path))


def _sequences(member: str, other: str) -> list[tuple[str, list[Write]]]:
    """The sequences of writes, on `member` and `other`, two members the check created."""
    same_octets: list[Write] = [("PUT", member, t) for t in SAME_OCTETS_TYPES]
    recreate: list[Write] = [
        ("DELETE", member, ""),
        ("PUT", member, JSON_TYPE),
        ("PUT", member, JSON_TYPE),
        ("DELETE", member, ""),
        ("PUT", member, "text/plain"),
        ("PUT", member, JSON_TYPE),
    ]
    post_delete_post: list[Write] = [
        ("POST", "", JSON_TYPE),
        ("DELETE", other, ""),
        ("POST", "", JSON_TYPE),
    ]
    return [
        ("the same octets under other media types", same_octets),
        ("a member deleted and created again", recreate),
        ("a POST, a DELETE and a POST", post_delete_post),
    ]


@checker(
    "sandbox-collection-write-sequences",
    ("MB-METHOD-4", "MB-METHOD-7"),
    "Retrievals of the sandbox collection between writes of the same octets under other media types, a delete and re-creation of a member by PUT, and POST, DELETE, POST, each in one batch, in a batch per write and alone, name every member there once and no deleted one, and carry the same octets wherever they carry the same strong aggregate ETag.",
    profile="collection-get",
    state=State.WRITES_IN_SANDBOX,
    tier="standard",
)
def sandbox_collection_write_sequences(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    member = ctx.target.sandbox_member
    if member is None:
        judge.not_applicable("the target declares no sandbox.member document to write")
    limit = ctx.limit("max_parts")
    if limit is not None and limit < 2:
        judge.not_applicable(
            f"the published max_parts {limit} leaves no room for a write and a read"
        )
    seq = _Sequences(ctx, judge, coll, json.dumps(member).encode())
    try:
        seq.create()
        seq.retrieved_alone("after the check's first member was created")
        if not seq.seen:
            judge.not_applicable(
                f"GET {coll} with Accept: multipart/mixed is not answered as a collection "
                "retrieval (200 multipart/mixed or 204)"
            )
        for how in ("in one batch", "in a batch per write", "alone"):
            for what, writes in _sequences(seq.create(), seq.create()):
                label = f"{what}, {how}"
                if how == "in one batch":
                    seq.batch(label, writes)
                elif how == "alone":
                    seq.alone(label, writes)
                else:
                    for write in writes:
                        seq.batch(label, [write])
        seq.judge_tags()
    finally:
        seq.clean_up()
